"""Reading YAML data across the edge: bundled resources and user files, always through pydantic.

Rule kept here: nothing is trusted until `model_validate` accepts it; any failure becomes one
DataFileError line that names the file, never a traceback. Writes go to a temp file that is
fsynced and renamed over the target, so a crash never leaves half a file.

Parsing YAML in Python costs more than everything else `costcalc quick` does, so a validated
file is also kept as JSON in the cache directory, keyed by a hash of its text, the model and
the costcalc version; the next run validates that JSON in pydantic-core instead, without
importing the YAML parser. A cache that
cannot be read or written is ignored: it only ever saves time.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import zlib
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from costcalc.errors import DataFileError

M = TypeVar("M", bound=BaseModel)


def _yaml() -> Any:
    # Imported on first parse or dump: a cached file is read without YAML at all.
    import yaml

    return yaml


def parse_yaml(text: str, where: str) -> Any:
    """Safe YAML (no tags), with libyaml's C parser when it is there."""
    yaml = _yaml()
    try:
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}" if mark is not None else ""
        raise DataFileError(f"{where}: not valid YAML{at}") from exc


def validate(data: Any, model: type[M], where: str) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(part) for part in first["loc"]) or "(top level)"
        more = f" (+{exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise DataFileError(f"{where}: {loc}: {first['msg']}{more}") from exc


def load_yaml_resource(package: str, name: str, model: type[M]) -> M:
    """A YAML file shipped inside a package, validated as `model`."""
    where = f"{package}/{name}"
    try:
        text = resources.files(package).joinpath(name).read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError) as exc:
        raise DataFileError(f"{where}: missing from the installation") from exc
    return load_yaml_text(text, where, model)


def load_yaml_file(path: Path, model: type[M]) -> M:
    """A user-side YAML file, validated as `model`."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DataFileError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    return load_yaml_text(text, str(path), model)


def load_yaml_text(text: str, where: str, model: type[M]) -> M:
    """Validate YAML text as `model`, through the JSON cache when it holds this exact text."""
    cached = _cache_path(text, model)
    if cached is not None:
        try:
            return model.model_validate_json(cached.read_bytes())
        except (OSError, ValueError):
            pass
    result = validate(parse_yaml(text, where), model, where)
    if cached is not None:
        _write_cache(cached, result)
    return result


def _cache_path(text: str, model: type[BaseModel]) -> Path | None:
    from costcalc import __version__, locations

    try:
        directory = locations.cache_dir() / "parsed"
    except Exception:  # no usable home directory: run without a cache
        return None
    # Length and CRC-32 tell one version of a data file from the next; this is a cache key,
    # not a defence, and it avoids loading hashlib's OpenSSL binding at every start.
    data = text.encode("utf-8")
    digest = f"{len(data):x}-{zlib.crc32(data):08x}"
    return directory / f"{model.__name__}-{__version__}-{digest}.json"


def _write_cache(path: Path, result: BaseModel) -> None:
    with contextlib.suppress(OSError):
        write_atomic(path, result.model_dump_json())


def dump_yaml(data: Any) -> str:
    yaml = _yaml()
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return str(yaml.dump(data, Dumper=dumper, sort_keys=False, allow_unicode=True))


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` so that readers see the old file or the new one, never a mix."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def write_model_yaml(path: Path, model: BaseModel) -> None:
    write_atomic(path, dump_yaml(model.model_dump(mode="json", exclude_defaults=True)))


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
