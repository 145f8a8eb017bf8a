"""The Python package's modules import each other without a circle: at module level (type-only
imports included), module A importing B means B never imports A back, directly or through
others. Imports inside a function are how a module defers a heavy dependency and are not edges."""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "python" / "aqmlab"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _top_level_imports(tree: ast.Module, module: str, is_package: bool) -> set[str]:
    """Modules of aqmlab that ``tree`` imports outside functions (in `if TYPE_CHECKING:` too)."""
    found: set[str] = set()
    statements = list(tree.body)
    while statements:
        node = statements.pop()
        if isinstance(node, (ast.If, ast.Try)):
            statements += node.body + node.orelse + getattr(node, "handlers", []) + getattr(node, "finalbody", [])
        elif isinstance(node, ast.ExceptHandler):
            statements += node.body
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            # `from aqmlab.sweep import store` imports the submodule aqmlab.sweep.store
            found |= {f"{target}.{alias.name}" for alias in node.names}
    return {name for name in found if name == "aqmlab" or name.startswith("aqmlab.")}


def test_no_module_of_the_package_imports_itself_back():
    modules = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(), str(path))
        targets = _top_level_imports(tree, module, path.name == "__init__.py")
        # A submodule reaching its own package (`from aqmlab.sweep.store import ...` runs
        # aqmlab/sweep/__init__.py first) is Python's bookkeeping, not a dependency: the edges
        # kept are those to modules that are not the importer's ancestors.
        graph[module] = {t for t in targets if t in modules and t != module and not module.startswith(t + ".")}
    assert sum(map(len, graph.values())) > 50  # the walk found the imports
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as error:
        raise AssertionError(f"an import circle: {' -> '.join(error.args[1])}") from None
