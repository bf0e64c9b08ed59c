"""Docs pages stay short enough to read in one sitting: each under 400 lines, the
performance page (figures a reader scans for one number) under 300."""

from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
LIMITS = {"performance.md": 300}


@pytest.mark.parametrize("page", sorted(DOCS.glob("*.md")), ids=lambda page: page.name)
def test_a_page_is_short_enough(page):
    lines = len(page.read_text(encoding="utf-8").splitlines())
    assert lines < LIMITS.get(page.name, 400), f"docs/{page.name} has {lines} lines: split it by topic"
