"""What a fresh interpreter has imported after some code: the check that a path stays light."""

from __future__ import annotations

import subprocess
import sys


def loaded_after(code: str) -> set[str]:
    """The modules in sys.modules after `code` (statements, one or more lines) ran in a fresh
    Python; an exception in `code` fails the caller."""
    script = f"import sys\n{code}\nprint(' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return set(out.stdout.split())
