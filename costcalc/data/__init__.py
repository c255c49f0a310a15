"""Bundled reference data (no code). The dated price snapshot is the repository's top-level
prices/, installed here as costcalc/data/prices by a wheel; run from a checkout, this package
also looks in the repository's root for it (as costcalc/__init__.py does for providers/)."""

from os import path as _path

if not _path.isdir(_path.join(__path__[0], "prices")):
    __path__.append(_path.dirname(_path.dirname(_path.abspath(__path__[0]))))
