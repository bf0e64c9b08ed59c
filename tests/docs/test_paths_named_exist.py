"""Every path of the project named in its code and docs exists (a renamed module leaves no stale pointer)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOP = sorted(p.name for p in ROOT.iterdir()
             if p.is_dir() and not p.name.startswith(".")
             # made by running things, ignored by git: whether they exist depends on what ran first
             and p.name not in {"node_modules", "var", "media", "test-artifacts"})
# A path starts at one of the project's top-level folders (or .ci) and names a file
# (by its extension) or a folder (a trailing slash); placeholders (<...>, *, {…}) are skipped.
NAMED = re.compile(r"(?<![\w./-])((?:%s|\.ci)/[\w./-]*?(?:\.(?:py|md|html|txt|json|csv|jsonl|js|css|sh|toml|ini|cfg|png)|/))(?![\w*<{-])"
                   % "|".join(map(re.escape, TOP)))
SOURCES = [*ROOT.glob("*.md"), *ROOT.glob("docs/**/*.md"), *(p for top in TOP for p in (ROOT / top).rglob("*.py")),
           *(p for top in ("templates", "static") if (ROOT / top).exists() for p in (ROOT / top).rglob("*.html")),
           ROOT / ".ci" / "run", ROOT / "pytest.ini", ROOT / "requirements.txt", ROOT / "requirements-dev.txt"]


# Named but made elsewhere, with the reason.
NOT_IN_THE_CHECKOUT = {
    "api/v1/": "a URL prefix (shop/urls.py), not a folder",
    "addresses/add/": "a URL of the account (accounts/urls.py), not a folder",
    "bench/results/": "the benchmarks' output, made when they run (.gitignore)",
    "bench/results/oscar/": "django-oscar's checkout for the side-by-side benchmark, made when it runs",
    "bench/results/lighthouse/": "bench/lighthouse.py's reports, made when it runs",
    "static/ninja/": "django-ninja's own static files (its package), served under that name",
}


def named_paths():
    """``{path named: [files naming it]}`` over the code, templates and docs."""
    found = {}
    for source in SOURCES:
        if (not source.is_file() or "node_modules" in source.parts or source == Path(__file__).resolve()
                # The benchmarks' output (.gitignore), e.g. django-oscar's virtualenv: not the project's.
                or source.relative_to(ROOT).parts[:2] == ("bench", "results")):
            continue
        for match in NAMED.finditer(source.read_text(encoding="utf-8", errors="replace")):
            found.setdefault(match.group(1).rstrip("."), []).append(str(source.relative_to(ROOT)))
    return found


def exists(path):
    """Whether ``path`` names a file or folder of the project: from its root, or as a template
    or static file name (``orders/checkout.html``, ``shop/shop.css``) in a templates or static
    folder, the project's or an app's."""
    bases = [ROOT, ROOT / "templates", ROOT / "static", *ROOT.glob("*/templates"), *ROOT.glob("*/static")]
    return any((base / path).exists() for base in bases)


def test_every_path_named_exists():
    missing = {path: sorted(set(where)) for path, where in named_paths().items()
               if not exists(path) and path not in NOT_IN_THE_CHECKOUT}
    assert missing == {}, "\n".join(f"{path}: named in {', '.join(where)}" for path, where in sorted(missing.items()))


def test_the_check_sees_a_missing_path():
    paths = named_paths()
    assert "orders/pricing.py" in paths and "docs/pricing.md" in paths and not exists("catalog/writes.py")
    assert NAMED.search("see catalog/writes.py for").group(1) == "catalog/writes.py"
    assert NAMED.search("in <catalog>/x.py") is None
