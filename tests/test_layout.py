"""The path says the layer: every module sits in a layer package, imports never form a cycle (not
even through an import inside a function), and the wheel installs only `costcalc`.

`lint-imports` checks the order of the layers (pyproject.toml); these tests keep what it cannot see:
modules left at the top of the package, cycles through the package `__init__` modules, imports of
the repository's top-level `providers`/`prices` directories, and what a user's pip installs.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "costcalc"
LAYERS = ("cli", "tui", "bench", "feeds", "store", "providers", "edge", "present", "core")


def modules() -> dict[str, Path]:
    """Every module of the package by dotted name, providers/ included (it installs inside)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    for path in sorted((ROOT / "providers").glob("*.py")):
        stem = "" if path.stem == "__init__" else f".{path.stem}"
        found[f"costcalc.providers{stem}"] = path
    return found


def runtime_imports(path: Path, name: str, is_package: bool) -> Iterator[str]:
    """Modules `path` imports when it runs, inside functions too (not under TYPE_CHECKING)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = {
        id(child)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for stmt in node.body
        for child in ast.walk(stmt)
    }
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = name.split(".") if is_package else name.split(".")[:-1]
                parent = parent[: len(parent) - (node.level - 1)]
                base = ".".join([*parent, *([node.module] if node.module else [])])
            # `from pkg import mod` imports pkg.mod; `from pkg import name` resolves to pkg
            yield from (f"{base}.{alias.name}" for alias in node.names)


def import_graph() -> dict[str, set[str]]:
    known = modules()
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        targets = set()
        for target in runtime_imports(path, name, path.name == "__init__.py"):
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                targets.add(target)
        graph[name] = targets
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_every_module_sits_in_a_layer_package() -> None:
    loose = [
        name
        for name in modules()
        if name.count(".") == 1 and name.split(".")[1] not in (*LAYERS, "data", "__main__")
    ]
    assert loose == [], f"modules outside a layer package: {loose}"


def test_no_import_cycle_at_any_depth() -> None:
    assert cycles(import_graph()) == []


def layer_of(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


def test_each_layer_imports_only_itself_and_the_layers_below() -> None:
    """The order `lint-imports` checks (pyproject.toml), checked here too because a checkout
    keeps providers/ at the repository's top level, where lint-imports' graph does not look."""
    place = {layer: i for i, layer in enumerate(LAYERS)}
    upward = [
        f"{name} -> {target}"
        for name, targets in import_graph().items()
        for target in targets
        if (mine := layer_of(name)) and (theirs := layer_of(target)) and place[theirs] < place[mine]
    ]
    assert upward == []


def test_the_layer_check_sees_providers_and_an_upward_import() -> None:
    graph = import_graph()
    assert "costcalc.providers.registry" in graph
    assert any(layer_of(t) == "core" for t in graph["costcalc.providers.base"])
    assert layer_of("costcalc.store.x") == "store" and layer_of("costcalc.data") is None


def test_providers_know_neither_textual_nor_torch() -> None:
    for path in sorted((ROOT / "providers").glob("*.py")):
        imported = {t.split(".")[0] for t in runtime_imports(path, "costcalc.providers.x", False)}
        assert not imported & {"textual", "torch", "rich"}, path.name


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


@pytest.mark.slow  # seconds: in the whole suite, not the fast subset
def test_nothing_imports_the_top_level_directories_as_packages() -> None:
    """providers/ and prices/ install as costcalc.providers and costcalc.data.prices: an import of
    `providers` works in a checkout and fails for every user."""
    offenders = []
    for folder in ("costcalc", "providers", "tests", "benchmarks", "scripts"):
        for path in (ROOT / folder).rglob("*.py"):
            for target in runtime_imports(path, "x", False):
                if target.split(".")[0] in ("providers", "prices"):
                    offenders.append(f"{path.relative_to(ROOT)}: {target}")
    assert offenders == []


@pytest.mark.subprocess
def test_the_repository_holds_no_link_and_no_pickle() -> None:
    """A link is two paths to one file and breaks on a Windows checkout; a pickle can run code
    when it is read. Neither is committed."""
    listed = subprocess.run(
        ["git", "ls-files", "-s"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    if not listed:
        pytest.skip("not a git checkout")
    links = [line.split("\t")[1] for line in listed if line.startswith("120000")]
    pickles = [line.split("\t")[1] for line in listed if line.endswith((".pickle", ".pkl"))]
    assert links == [] and pickles == []


@pytest.mark.subprocess
def test_the_wheel_installs_only_costcalc(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("costcalc-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"costcalc"}
    assert "costcalc/providers/registry.py" in names
    assert "costcalc/data/prices/aws_spot.yaml" in names
    assert not [n for n in names if n.startswith("costcalc/data/speed_measurements")]
