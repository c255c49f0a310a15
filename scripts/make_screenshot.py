"""Make the README screenshot with the app itself: docs/screenshot.svg.

    .venv/bin/python scripts/make_screenshot.py

Bundled prices, a fixed clock (so price ages do not drift between runs) and a 10-hour run on
an RTX 3090 desktop, at 140x45; the user's config and refreshed prices are not used.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "docs" / "screenshot.svg"
NOW = datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc)


async def main() -> int:
    os.environ["COSTCALC_HOME"] = tempfile.mkdtemp(prefix="costcalc-screenshot-")
    from costcalc.store.settings import Settings
    from costcalc.tui.app import make_app

    settings = Settings(gpu="rtx3090", run_hours=10, memory_gb=16)
    app = make_app(settings=settings, now=NOW, detect_gpu=False, load_bench=False)
    async with app.run_test(size=(140, 45)) as pilot:
        # The setup panel, the filters and the curves are mounted right after the first frame:
        # wait until they show the settings (MainScreen.filled), then for the curves' frame.
        for _ in range(500):
            if getattr(app.screen, "filled", False):
                break
            await asyncio.sleep(0.02)
        for _ in range(3):
            await pilot.pause()
        OUT.parent.mkdir(parents=True, exist_ok=True)
        app.save_screenshot(filename=OUT.name, path=str(OUT.parent))
    print(OUT)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
