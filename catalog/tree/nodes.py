"""The category tree without the database: node order, ancestor crumbs, cycle checks.

The "Category Hierarchy" use case keeps, in every category, its ancestors root first and parent
last, each as ``{_id, slug, name}``. ``CategoryManager`` reads and writes
them; these helpers work on what it read (categories or raw documents) and
never touch MongoDB.
"""

from catalog.exceptions import InvalidMove

#: Where ``CategoryWriteManager.move`` puts a node relative to its target.
MOVE_INSIDE, MOVE_BEFORE, MOVE_AFTER = "inside", "before", "after"
MOVE_PLACES = (MOVE_INSIDE, MOVE_BEFORE, MOVE_AFTER)


class TreeNode:
    """A category as a tree view needs it: ``pk``, ``name``, ``slug``, ``parent_id``,
    ``position``, ``ancestor_ids`` (root first) and ``depth`` (0 for a top category).

    Built from a raw document by ``CategoryManager.tree_nodes``; callers may
    set more attributes on it (the admin sets its counts).
    """

    def __init__(self, document):
        self.pk = document["_id"]
        self.name = document["name"]
        self.slug = document["slug"]
        self.parent_id = document.get("parent_id")
        self.position = document.get("position") or 0
        self.ancestor_ids = [a["_id"] for a in document.get("ancestors", [])]

    @property
    def depth(self):
        return len(self.ancestor_ids)


def sibling_key(category):
    """Sort key of siblings: their ``position``, then the name (a tie: two adds at once)."""
    return (category.position if category.position is not None else 0, category.name.lower())


def in_tree_order(categories):
    """Sort categories depth first: each parent followed by its subtree, siblings by position.

    ``categories``: Categories or ``TreeNode``s. Works on any set of them
    through their parent links (the ancestors do not carry positions): the
    nodes whose parent is not in the set come first, in sibling order.
    Returns a new list. No database access.
    """
    by_parent = {}
    for category in categories:
        by_parent.setdefault(category.parent_id, []).append(category)
    ids = {c.pk for c in categories}
    roots = [c for c in categories if c.parent_id not in ids]
    ordered = []
    stack = [sorted(roots, key=sibling_key, reverse=True)]
    while stack:  # Iterative: a deep tree must not reach Python's recursion limit.
        nodes = stack[-1]
        if not nodes:
            stack.pop()
            continue
        node = nodes.pop()
        ordered.append(node)
        stack.append(sorted(by_parent.get(node.pk, []), key=sibling_key, reverse=True))
    return ordered


def listed_in(category_ids, ancestor_ids):
    """The ids a product listed in ``category_ids`` carries in ``listed_in``: each category and
    every ancestor of it, once, in first-seen order. ``ancestor_ids``: ``{category id: [its
    ancestors' ids]}`` (a category missing from it counts as itself alone). No database."""
    seen = {}
    for category_id in category_ids:
        for node in (*ancestor_ids.get(category_id, ()), category_id):
            seen.setdefault(node, None)
    return list(seen)


def crumb(document):
    """The ``{_id, slug, name}`` a category document leaves in its descendants' ancestors."""
    return {"_id": document["_id"], "slug": document["slug"], "name": document["name"]}


def ancestors_under(parent_document):
    """The ancestors of a child of ``parent_document`` (a ``{_id, slug, name, ancestors}``
    document, or None for the top level): the parent's ancestors, then the parent ("Category Hierarchy" use case)."""
    if parent_document is None:
        return []
    return [*parent_document.get("ancestors", []), crumb(parent_document)]


def refuse_cycle(category_id, name, parent_document):
    """Raise ``InvalidMove`` when ``parent_document`` (None: the top level) is the category
    ``category_id`` or below it ("Category Hierarchy" use case "Move a Category"); ``name`` is for the message."""
    if parent_document is None:
        return
    if parent_document["_id"] == category_id:
        raise InvalidMove(f"{name} cannot be moved under itself.")
    if any(a["_id"] == category_id for a in parent_document.get("ancestors", [])):
        raise InvalidMove(
            f"{name} cannot be moved under {parent_document['name']}, "
            "which is one of its own subcategories."
        )
