"""Shared fixtures: every test gets its own COSTCALC_HOME, and nothing reaches the internet."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_LOOPBACK = ("127.0.0.1", "::1", "localhost")
_real_connect = socket.socket.connect
_real_create_connection = socket.create_connection


def _is_loopback(address: Any) -> bool:
    if isinstance(address, tuple) and address:
        return str(address[0]) in _LOOPBACK
    return isinstance(address, (str, bytes))  # AF_UNIX paths are local


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point every user file at a fresh directory so no test reads or writes real files."""
    home = tmp_path / "costcalc-home"
    monkeypatch.setenv("COSTCALC_HOME", str(home))
    for name in ("COSTCALC_AWS_SPOT_URL", "COSTCALC_AWS_ADVISOR_URL", "COSTCALC_AWS_ONDEMAND_URL"):
        monkeypatch.delenv(name, raising=False)
    yield home


@pytest.fixture(autouse=True)
def no_internet(monkeypatch: pytest.MonkeyPatch) -> None:
    """Refuse any connection that is not to this machine: tests never touch the internet."""

    def guarded_connect(self: socket.socket, address: Any) -> Any:
        if not _is_loopback(address):
            raise RuntimeError(f"test tried to reach the network: {address!r}")
        return _real_connect(self, address)

    def guarded_create_connection(address: Any, *args: Any, **kwargs: Any) -> socket.socket:
        if not _is_loopback(address):
            raise RuntimeError(f"test tried to reach the network: {address!r}")
        return _real_create_connection(address, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket, "create_connection", guarded_create_connection)
