"""costcalc's version (pyproject.toml's), read as `costcalc.__version__`.

Rule kept here: one constant and no import, so `costcalc --version` loads nothing else, and a
layer that needs the version reads it here rather than from the package's root (which offers
`costcalc.predict_seconds`, and so imports the layers above).
"""

VERSION = "0.1.0"
