"""A setup field set from code keeps everything Textual's Input does on a new value (the Changed
message, validation, the cursor fitted to the text) and costs a repaint, not a layout pass; a
select takes a value at any point of its mounting, and can go while it mounts."""

from __future__ import annotations

import asyncio

import pytest
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.geometry import Size
from textual.validation import Number
from textual.widgets import Input, Static

from costcalc.tui._compat import SelectCurrent
from costcalc.tui.widgets.field import ChoiceSelect, FieldInput, FieldSelect
from tests.tui.helpers import counting_layouts, wait_until


class _Fields(App[None]):
    CSS = "FieldInput { width: 12; height: 1; }"

    def __init__(self) -> None:
        super().__init__()
        self.changed: list[str] = []

    def compose(self) -> ComposeResult:
        yield Input(id="elsewhere")  # focus stays here: the field is set by the app
        yield FieldInput(id="field", validators=[Number(maximum=100)], compact=True)

    def on_input_changed(self, event: Input.Changed) -> None:
        self.changed.append(event.value)


async def test_a_value_set_from_code_is_announced_validated_and_not_laid_out() -> None:
    app = _Fields()
    async with app.run_test(size=(40, 5)) as pilot:
        field = app.query_one("#field", FieldInput)
        await pilot.pause()
        assert not field.has_focus
        with counting_layouts(app.screen) as layouts:
            field.value = "12345"
            await wait_until(app, lambda: "12345" in app.changed)
            await pilot.pause()
        assert layouts == [], "a new text in a field of fixed size needs no layout pass"
        assert field.has_class("-invalid"), "validated as Textual's Input validates"
        assert field.virtual_size == Size(field.content_width, 1)
        field.cursor_position = 5
        field.value = "7"
        await wait_until(app, lambda: "7" in app.changed)
        assert field.selection.end <= len(field.value), "the cursor fitted to the shorter text"
        assert field.has_class("-valid")


@pytest.mark.parametrize("text", ["", "12", "rtx 4090", "€ 1,500", "全角"])
@pytest.mark.parametrize("password", [False, True])
async def test_the_width_given_first_is_the_width_textual_gives(text: str, password: bool) -> None:
    """FieldInput.width_for(value) is `Input.content_width` once the value is stored."""
    app = _Fields()
    async with app.run_test(size=(40, 5)):
        field = app.query_one("#field", FieldInput)
        field.placeholder = "none"
        field.password = password
        field.value = text
        assert field.width_for(text) == field.content_width


class _Host(App[None]):
    pass


STAGES = ("in the DOM", "its parts composed")
"""Where a mounting select is caught: registered in its container but not composed yet, or
with its current choice and overlay composed but the choice's own label not yet. Textual runs
each widget's compose in its own task, so the loop turns between them."""


async def _mounting(app: App[None], kind: type[ChoiceSelect], stage: str) -> ChoiceSelect:
    select = kind([("one", 1), ("two", 2)], allow_blank=False, id="choice")
    box = Vertical(select)
    app.screen.mount(box)  # not awaited: the test acts while it mounts
    if stage == "in the DOM":
        while not box.children:
            await asyncio.sleep(0)
        assert not select.children, "the select has composed already"
    else:
        while not select.children:
            await asyncio.sleep(0)
        assert not select.query_one(SelectCurrent).children, "the label is already there"
    return select


@pytest.mark.parametrize("kind", [FieldSelect, ChoiceSelect])
async def test_a_choice_set_before_its_label_is_composed_shows_once_it_is(
    kind: type[ChoiceSelect],
) -> None:
    """The race of issue 37: a value set between the select's compose and its current
    choice's raised NoMatches for '#label' (Textualize/textual#6581)."""
    app = _Host()
    async with app.run_test(size=(40, 5)) as pilot:
        select = await _mounting(app, kind, "its parts composed")
        select.value = 2
        await wait_until(app, lambda: select.is_mounted)
        await pilot.pause()
        label = select.query_one(SelectCurrent).query_one("#label", Static)
        assert str(label.render()) == "two"
        select.value = 1
        await pilot.pause()
        assert str(label.render()) == "one"


@pytest.mark.parametrize("kind", [FieldSelect, ChoiceSelect])
@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("gone", ["the app closes", "the select is removed"])
async def test_a_select_that_goes_while_it_mounts_raises_nothing(
    kind: type[ChoiceSelect], stage: str, gone: str
) -> None:
    """A user who quits while the setup panel is still filling (a slow machine; a test that
    ends early): Textual mounts no children into a widget it is removing, and the select's
    first value, set as it mounts, queried them (NoMatches for '#label' or 'SelectOverlay')."""
    app = _Host()
    async with app.run_test(size=(40, 5)) as pilot:
        select = await _mounting(app, kind, stage)
        if gone == "the select is removed":
            await select.remove()
            await pilot.pause()
            assert not app.screen.query(kind)
        app.exit()  # as `q` does; an error on the way out makes the code 1 (run_test raises it)
    assert app.return_code == 0
