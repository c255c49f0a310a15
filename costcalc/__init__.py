"""costcalc: rent cloud GPUs or buy a desktop? Cost per run, break-even, kWh and CO2."""

from os import path as _path

from costcalc.core import version as _version

__version__ = _version.VERSION

# The repository keeps the price feeds in its top-level providers/ (and the price snapshot in
# prices/, see costcalc/data/__init__.py); a wheel installs them inside this package, as
# costcalc/providers (pyproject.toml's force-include). Run from a checkout (an editable install,
# the tests), the package also looks beside itself, where the repository keeps them.
if not _path.isdir(_path.join(__path__[0], "providers")):
    __path__.append(_path.dirname(_path.abspath(__path__[0])))


def __getattr__(name: str) -> object:
    # costcalc.predict_seconds without loading the catalog (or anything else) on `import costcalc`
    if name == "predict_seconds":
        from costcalc.store.loaders import predict_seconds

        return predict_seconds
    raise AttributeError(f"module 'costcalc' has no attribute {name!r}")
