"""The layers stay apart: the kernel (``core``) imports no app and not the project, and the
catalog's models, managers and cache import no circle."""

import ast
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[2]
APPS = ("accounts", "analytics", "api", "catalog", "inventory", "orders", "shop")


def imported_modules(path):
    """Every module ``path`` imports, at any depth (function-level imports included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module


def test_the_kernel_imports_no_app_and_not_the_project():
    offending = [
        f"{path.relative_to(BASE_DIR)}: {module}"
        for path in sorted((BASE_DIR / "core").rglob("*.py"))
        for module in imported_modules(path)
        if module.split(".")[0] in APPS
    ]
    assert offending == []


def test_the_catalog_cache_and_managers_do_not_import_the_models():
    # catalog.models imports the managers; the managers reach sibling models by name
    # (catalog.store.siblings) and the cache gets its version reader from the middleware.
    paths = [BASE_DIR / "catalog" / "cache.py", *sorted((BASE_DIR / "catalog" / "managers").glob("*.py"))]
    offending = []
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("models") and (
                    node.level > 0 or node.module == "catalog.models"):
                offending.append(str(path.relative_to(BASE_DIR)))
    assert offending == []
