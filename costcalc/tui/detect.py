"""Which GPU this machine has, asked of nvidia-smi: fast, and never through torch.

Rule kept here: no textual, no torch (importing torch costs about a second). Any failure
(no driver, no binary, a hang) means "unknown", never an error: detection is a convenience.
"""

from __future__ import annotations

import shutil
import subprocess

TIMEOUT_S = 5.0


def nvidia_smi_gpu_names(timeout_s: float = TIMEOUT_S) -> list[str]:
    """GPU names as the driver reports them ('NVIDIA GeForce RTX 3090'), or [] when unknown."""
    binary = shutil.which("nvidia-smi")
    if binary is None:
        return []
    try:
        done = subprocess.run(
            [binary, "--query-gpu=name", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return []
    if done.returncode != 0:
        return []
    return [line.strip() for line in done.stdout.splitlines() if line.strip()]
