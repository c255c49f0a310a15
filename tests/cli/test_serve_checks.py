"""`costcalc serve`'s rules, one by one: which Host names the server, what a page may ask of the
terminal, what a failed start says. tests/cli/test_serve.py checks them against a running server."""

from __future__ import annotations

import argparse
import errno
import socket

import pytest

from costcalc.cli import serve
from costcalc.cli.webserver import MAX_COLUMNS, MAX_ROWS, fit_size, host_allowed

NAMES = frozenset({"localhost", "127.0.0.1"})


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1:8000",
        "LOCALHOST:8000",
        "localhost",
        "[::1]:8000",
        "192.168.1.20:8000",
        "10.0.0.1",
    ],
)
def test_a_host_named_by_address_or_as_localhost_is_this_server(host: str) -> None:
    assert host_allowed(host, NAMES)


@pytest.mark.parametrize(
    "host",
    [
        "attacker.example:8000",
        "localhost.attacker.example",
        "127.0.0.1.nip.io:8000",
        "",
        "[::1",
        '127.0.0.1:8000"><script>',
        "127.0.0.1/x",
    ],
)
def test_a_host_by_any_other_name_is_not(host: str) -> None:
    """A DNS-rebinding page reaches 127.0.0.1 under its own domain name, which its Host says."""
    assert not host_allowed(host, NAMES)


def test_a_server_on_every_address_answers_to_this_machines_name() -> None:
    names = serve.host_names("0.0.0.0")
    assert socket.gethostname().lower() in names and "localhost" in names
    assert serve.host_names("127.0.0.1") == {"localhost", "127.0.0.1"}
    assert serve.url_host("0.0.0.0") == socket.gethostname()
    assert serve.url_host("::1") == "[::1]"


@pytest.mark.parametrize(
    ("asked", "given"),
    [
        ((20_000, 20_000), (MAX_COLUMNS, MAX_ROWS)),
        ((140, 45), (140, 45)),
        (("140", "45"), (140, 45)),
        ((0, -3), (1, 1)),
        ((80.5, None), (80, 24)),
        (("1e9", True), (80, 24)),
        ((10**5000, 10**5000), (80, 24)),
    ],
)
def test_a_terminal_size_is_kept_within_the_cap(
    asked: tuple[object, object], given: tuple[int, int]
) -> None:
    assert fit_size(*asked) == given


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (
            OSError(errno.EADDRINUSE, "Address already in use"),
            "port 8000 is in use; choose another with --port N",
        ),
        (
            PermissionError(errno.EACCES, "Permission denied"),
            "cannot listen on port 8000: permission denied; choose another with --port N",
        ),
        (
            socket.gaierror(socket.EAI_NONAME, "Name or service not known"),
            "cannot listen on nowhere.invalid: name or service not known; check --host",
        ),
    ],
)
def test_a_server_that_cannot_listen_says_which_option_to_change(error: OSError, said: str) -> None:
    assert serve.cannot_listen(error, "nowhere.invalid", 8000) == said


@pytest.mark.parametrize("text", ["0", "-1", "four", "1234567"])
def test_a_session_count_is_a_whole_number_from_one(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="sessions must be a whole number from 1"):
        serve.session_count(text)
    assert serve.session_count("8") == 8


def test_each_tab_runs_the_served_app() -> None:
    assert serve.app_command().endswith(" -m costcalc tui --served")


def test_the_help_gives_the_caps_the_server_keeps(capsys: pytest.CaptureFixture[str]) -> None:
    from costcalc.cli import main

    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"at most {MAX_COLUMNS} x {MAX_ROWS} cells" in text
    assert f"(default {serve.MAX_SESSIONS})" in text


def test_the_private_parts_of_textual_serve_the_server_overrides_are_still_there() -> None:
    """textual-serve has no hooks for the checks, so costcalc.cli.webserver overrides two of its
    private methods; a textual-serve that renames or reshapes them fails here, not in a browser."""
    import inspect

    from textual_serve.server import Server

    assert inspect.iscoroutinefunction(Server._make_app)
    assert list(inspect.signature(Server._make_app).parameters) == ["self"]
    assert inspect.iscoroutinefunction(Server._process_messages)
    assert list(inspect.signature(Server._process_messages).parameters)[:3] == [
        "self",
        "websocket",
        "app_service",
    ]
