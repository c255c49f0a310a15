"""Messages the app's workers and widgets answer with, named in the past tense."""

from __future__ import annotations

from typing import Any

from textual.message import Message

from costcalc.core.scenario import AppData


class SettingsChanged(Message):
    """The user changed some inputs; `update` maps Settings field names to new values.
    (Enter in a setup field applies at once, without a message; see MainScreen._submit.)"""

    def __init__(self, update: dict[str, Any]) -> None:
        super().__init__()
        self.update = update


class GpuDetected(Message):
    """nvidia-smi named a GPU the catalog knows."""

    def __init__(self, gpu_key: str, reported_name: str) -> None:
        super().__init__()
        self.gpu_key = gpu_key
        self.reported_name = reported_name


class PricesRefreshed(Message):
    """A refresh finished (maybe partly); `data` holds the reloaded offers when it could load."""

    def __init__(self, data: AppData | None, summary: str, ok: bool) -> None:
        super().__init__()
        self.data = data
        self.summary = summary
        self.ok = ok


class BenchFinished(Message):
    """A bench finished and was saved; `result` is the bench's own result object."""

    def __init__(self, result: Any, summary: str) -> None:
        super().__init__()
        self.result = result
        self.summary = summary
