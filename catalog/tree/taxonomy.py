"""Category trees from Google product taxonomy files (``import_taxonomy``).

The format: a ``#`` header line (``# Google_Product_Taxonomy_Version:
2021-09-21``), then one line per category, ``ID - Top > Middle > Leaf``,
each parent listed with its own line. Each category keeps the file's ID in
``Category.taxonomy_id``, so that importing a newer file finds it again:
a category whose name changed is renamed, one whose parent changed is moved
(through ``Category.writes.rename`` / ``move``, which keep every
``ancestors`` array right), a new ID is created, and nothing is duplicated.
Categories that are no longer in the file are left alone (products may be
listed in them); the report counts them.
"""

import re
from dataclasses import dataclass

from bson import ObjectId

from catalog.exceptions import TaxonomyError
from catalog.models import Category

_LINE = re.compile(r"^(\d+) - (.+)$")

#: New categories are written this many at a time (one ``insert_many`` each).
CREATE_BATCH = 500


@dataclass(frozen=True)
class TaxonomyEntry:
    """One category line: its ``line`` number, ``taxonomy_id`` and ``path`` of names, root first."""

    line: int
    taxonomy_id: int
    path: tuple

    @property
    def name(self):
        return self.path[-1]

    @property
    def parent_path(self):
        return self.path[:-1]


def parse_taxonomy(lines):
    """Parse the lines of a taxonomy file (strings, with or without line ends).

    Blank lines and ``#`` comment lines are skipped. Returns the entries,
    parents before children (by depth, then by line). Raises
    ``TaxonomyError`` at the first malformed line: not ``ID - A > B``, an
    empty name, an ID or a path seen before, a parent that has no line of
    its own; and for a file without any category.
    """
    entries, lines_by_id, lines_by_path = [], {}, {}
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _LINE.match(line)
        if match is None:
            raise TaxonomyError(number, f"expected 'ID - Top > Middle > Leaf', got {line[:80]!r}")
        taxonomy_id = int(match[1])
        path = tuple(part.strip() for part in match[2].split(">"))
        if not all(path):
            raise TaxonomyError(number, f"empty category name in {match[2][:80]!r}")
        if taxonomy_id in lines_by_id:
            raise TaxonomyError(number, f"ID {taxonomy_id} is already on line {lines_by_id[taxonomy_id]}")
        if path in lines_by_path:
            raise TaxonomyError(number, f"{' > '.join(path)!r} is already on line {lines_by_path[path]}")
        lines_by_id[taxonomy_id] = lines_by_path[path] = number
        entries.append(TaxonomyEntry(number, taxonomy_id, path))
    if not entries:
        raise TaxonomyError(1, "no category lines in the file")
    for entry in entries:
        if entry.parent_path and entry.parent_path not in lines_by_path:
            raise TaxonomyError(
                entry.line, f"its parent {' > '.join(entry.parent_path)!r} has no line of its own"
            )
    return sorted(entries, key=lambda e: (len(e.path), e.line))


class TaxonomyImport:
    """The import of parsed entries into the category tree: planned at creation, run by ``run()``.

    Planning reads every category once. ``total`` is the number of steps
    ``run()`` reports to its progress callback (one per entry).
    """

    def __init__(self, entries):
        self.entries = list(entries)
        existing = {c.taxonomy_id: c for c in Category.objects.tree() if c.taxonomy_id is not None}
        ids_by_path, self.creates, self.updates = {}, [], []
        self.unchanged = 0
        for entry in self.entries:
            parent_id = ids_by_path[entry.parent_path] if entry.parent_path else None
            category = existing.get(entry.taxonomy_id)
            if category is None:
                node_id = ObjectId()
                self.creates.append({"_id": node_id, "name": entry.name, "parent": parent_id,
                                     "taxonomy_id": entry.taxonomy_id})
                ids_by_path[entry.path] = node_id
                continue
            ids_by_path[entry.path] = category.pk
            rename = entry.name if category.name != entry.name else None
            move = category.parent_id != parent_id
            if rename is None and not move:
                self.unchanged += 1
            else:
                self.updates.append((category, rename, move, parent_id))
        in_file = {entry.taxonomy_id for entry in self.entries}
        self.left_alone = sum(1 for taxonomy_id in existing if taxonomy_id not in in_file)
        self.total = len(self.entries)

    def run(self, progress=None):
        """Create, rename and move as planned; returns the report
        ``{"created", "renamed", "moved", "unchanged", "left_alone"}`` (counts).

        New categories first (in batches of ``CREATE_BATCH``, parents first),
        then renames and moves parents first: each keeps the tree consistent,
        so when all are done every ``ancestors`` array is right. Raises what
        the managers raise (``CatalogError``) on a concurrent change.
        """
        progress = progress or (lambda steps: None)
        progress(self.unchanged)
        for start in range(0, len(self.creates), CREATE_BATCH):
            batch = self.creates[start:start + CREATE_BATCH]
            Category.writes.create_many(batch)
            progress(len(batch))
        renamed = moved = 0
        for category, new_name, move, parent_id in self.updates:
            if new_name is not None:
                Category.writes.rename(category, new_name)
                renamed += 1
            if move:
                Category.writes.move(category, parent_id)
                moved += 1
            progress(1)
        return {"created": len(self.creates), "renamed": renamed, "moved": moved,
                "unchanged": self.unchanged, "left_alone": self.left_alone}
