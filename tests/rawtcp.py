"""A TCP server on 127.0.0.1 that answers HTTP by hand, for the faults no HTTP library will make
on purpose (headers a byte at a time, a body with no length that never ends). A subclass says how
to `answer` one connection; this class accepts them, each in its own thread, until `close`."""

from __future__ import annotations

import socket
import threading


class RawTcpServer:
    def __init__(self) -> None:
        self.stop = threading.Event()
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(4)
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server.getsockname()[1]}"

    def answer(self, conn: socket.socket) -> None:
        raise NotImplementedError

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self.answer, args=(conn,), daemon=True).start()

    def close(self) -> None:
        self.stop.set()
        self.server.close()
