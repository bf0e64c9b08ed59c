"""Every link of the README and of docs/ leads somewhere: the file exists and, with a
``#fragment``, so does the heading (GitHub's anchors)."""

import re
from pathlib import Path

import pytest

BASE_DIR = Path(__file__).resolve().parents[2]
PAGES = [BASE_DIR / "README.md", *sorted((BASE_DIR / "docs").glob("*.md"))]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def anchor(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page):
    """The anchors of ``page``'s headings (repeated headings get -1, -2... as on GitHub)."""
    seen, found = {}, set()
    for line in FENCE.sub("", page.read_text(encoding="utf-8")).splitlines():
        match = re.match(r"#{1,6} (.+)", line)
        if match:
            name = anchor(match.group(1))
            count = seen.get(name, 0)
            seen[name] = count + 1
            found.add(name if count == 0 else f"{name}-{count}")
    return found


def links(page):
    """``(target, fragment)`` of every relative link of ``page``, outside code blocks."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    for match in LINK.finditer(text):
        target = match.group(1) or match.group(2)
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            continue
        path, _, fragment = target.partition("#")
        yield path, fragment


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_link_leads_somewhere(page):
    broken = []
    for path, fragment in links(page):
        target = (page.parent / path).resolve() if path else page
        if not target.exists():
            broken.append(f"{path}: no such file")
        elif fragment and target.suffix == ".md" and fragment not in anchors(target):
            broken.append(f"{path}#{fragment}: no such heading")
    assert not broken, f"{page.relative_to(BASE_DIR)}: " + "; ".join(broken)


def test_the_sources_page_is_linked_from_the_readme_and_the_docs_index():
    assert "sources.md" in (BASE_DIR / "docs" / "README.md").read_text(encoding="utf-8")
    assert "docs/sources.md" in (BASE_DIR / "README.md").read_text(encoding="utf-8")
