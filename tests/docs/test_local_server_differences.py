"""The local server's differences from MongoDB are listed in one place,
docs/local-server-differences.md, and every workaround names its entry.

A module (outside tests and benchmarks) that mentions the local server by name either
runs it (the allow-list below) or works around one of its differences, and then cites it
as "local-server difference N"; every N cited anywhere is an entry of the list."""

import re
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[2]
DIFFERENCES = BASE_DIR / "docs" / "local-server-differences.md"
CITED = re.compile(r"local-server differences? ((?:\d+(?:, | and |, and )?)+)")

#: Modules that start, stop, configure or describe the local server rather than work around it.
RUN_THE_SERVER = {
    "core/mongo/__init__.py", "core/mongo/localserver.py", "core/mongo/revive.py",
    "shop/management/commands/dbserver.py", "shop/settings.py", "shop/test_settings.py",
}


def listed():
    """The numbers of the list's entries (its table's first column)."""
    return {int(n) for n in re.findall(r"^\| (\d+) \|", DIFFERENCES.read_text(encoding="utf-8"), re.M)}


def modules():
    """Every Python module of the shop (not its tests, benchmarks or installed packages)."""
    for path in sorted(BASE_DIR.rglob("*.py")):
        relative = path.relative_to(BASE_DIR).as_posix()
        if not relative.startswith(("tests/", "bench/", "node_modules/", ".venv/", "venv/")):
            yield relative, path.read_text(encoding="utf-8")


def cited(text):
    """The difference numbers ``text`` cites."""
    return {int(n) for group in CITED.findall(text) for n in re.findall(r"\d+", group)}


def test_the_list_is_numbered_from_one_without_gaps():
    numbers = listed()
    assert numbers and numbers == set(range(1, max(numbers) + 1))


def test_every_module_naming_the_local_server_cites_a_difference_or_runs_it():
    silent = [relative for relative, text in modules()
              if "SecantusDB" in text and relative not in RUN_THE_SERVER and not cited(text)]
    assert not silent, ("these mention SecantusDB without citing an entry of "
                        "docs/local-server-differences.md: " + ", ".join(silent))


def test_every_difference_cited_is_listed():
    numbers = listed()
    unknown = {}
    for path in [*BASE_DIR.glob("*/**/*.py"), *BASE_DIR.glob("docs/*.md")]:
        relative = path.relative_to(BASE_DIR).as_posix()
        if relative.startswith(("node_modules/", ".venv/", "venv/")):
            continue
        missing = cited(path.read_text(encoding="utf-8")) - numbers
        if missing:
            unknown[relative] = sorted(missing)
    assert not unknown, f"differences cited but not listed: {unknown}"


def test_the_check_catches_a_module_that_cites_nothing():
    assert not cited("SecantusDB scans the collection for an $or")
    assert cited("an $in of the ids (local-server difference 18)") == {18}
    assert cited("local-server differences 3 and 5") == {3, 5}
