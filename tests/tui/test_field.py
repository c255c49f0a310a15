"""A setup field set from code keeps everything Textual's Input does on a new value (the Changed
message, validation, the cursor fitted to the text) and costs a repaint, not a layout pass."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.geometry import Size
from textual.validation import Number
from textual.widgets import Input

from costcalc.tui.widgets.field import FieldInput
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
