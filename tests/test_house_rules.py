"""The house plan's rules about the code's shape, held by tests rather than review: the import
layers and the never-list (import-linter contracts in pyproject.toml), no import cycle between
modules, and no source file over 500 lines unless its first line says it is a data table."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp

PACKAGE = Path(__file__).resolve().parents[1] / "vibe_tui"
LONGEST = 500
DATA_TABLE_MARK = "data table"
EVAL_TASKS = PACKAGE / "evals" / "tasks"


def test_the_import_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint), "--no-cache"], cwd=PACKAGE.parent,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), in import order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return groups


def _without_package_inits(graph: grimp.ImportGraph) -> grimp.ImportGraph:
    # A package's __init__ re-exporting its modules is not a cycle between ideas.
    for module in list(graph.modules):
        if graph.find_children(module):
            for imported in list(graph.find_modules_directly_imported_by(module)):
                if imported.startswith(module + "."):
                    graph.remove_import(importer=module, imported=imported)
    return graph


def test_no_module_imports_itself_through_others():
    graph = _without_package_inits(grimp.build_graph("vibe_tui"))
    assert _cycles(graph) == []


def test_the_cycle_finder_sees_a_cycle():
    graph = grimp.ImportGraph()
    for name in ("a", "a.x", "a.y", "a.z"):
        graph.add_module(name)
    graph.add_import(importer="a.x", imported="a.y")
    graph.add_import(importer="a.y", imported="a.x")
    graph.add_import(importer="a.z", imported="a.x")
    assert _cycles(graph) == [["a.x", "a.y"]]


def test_every_package_folder_is_a_package():
    # The contracts and the cycle check only see folders with an __init__.py.
    folders = {p.parent for p in PACKAGE.rglob("*.py") if EVAL_TASKS not in p.parents}
    assert sorted(str(f) for f in folders if not (f / "__init__.py").exists()) == []


def test_no_source_file_holds_two_ideas_by_length():
    too_long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if EVAL_TASKS in path.parents:
            continue  # the eval tasks' repositories are data (one is a big file on purpose)
        lines = path.read_text(encoding="utf-8").splitlines()
        if len(lines) > LONGEST and DATA_TABLE_MARK not in (lines[0] if lines else "").lower():
            too_long.append(f"{path.relative_to(PACKAGE.parent)}: {len(lines)} lines")
    assert too_long == []
