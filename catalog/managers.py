"""The catalog's MongoDB operations (seeds 000 and 001), as raw pymongo.

``Category.objects`` keeps the seeds' ancestor tree: every category stores
its ancestors root first, parent last, as ``{_id, slug, name}``. Adding,
renaming, moving and deleting categories go through ``CategoryManager`` so
that every ``ancestors`` array stays right. ``Product.objects`` serves the
storefront's reads: a product by SKU, the products of a category and all
its descendants, sorted and paginated.

Views, commands and admin classes call these methods; none of them builds a
pymongo query itself.
"""

import re

from bson import ObjectId
from bson.errors import InvalidId
from django.conf import settings
from django.db import connections, models
from pymongo import ASCENDING, DESCENDING, UpdateOne
from pymongo.errors import DuplicateKeyError
from slugify import slugify

from shop.mongo.collections import MongoCollectionMixin

from .keywords import KEYWORD_SOURCES, document_keywords, prefix_range, search_words
from .subdocuments import SubdocumentMixin

#: Inserts ``create_category`` tries before giving up (``SlugTaken``).
MAX_SLUG_ATTEMPTS = 100
from .ranking import RANK_FIELDS, search_ranking, what_matched


class CatalogError(ValueError):
    """A catalog change that is refused; the message says why, for a shopper or staff."""


class InvalidMove(CatalogError):
    """A move under the category itself or one of its descendants (it would make a cycle)."""


class CategoryNotEmpty(CatalogError):
    """A delete of a category that still has subcategories or products."""


class SlugTaken(CatalogError):
    """A slug that another category already has."""


def as_object_id(value):
    """Return ``value`` as an ObjectId, or None when it is not one (never raises)."""
    if isinstance(value, ObjectId):
        return value
    try:
        return ObjectId(str(value))
    except (InvalidId, TypeError):
        return None


def lower_title(title):
    """The form of a title the prefix search matches: case-folded (``"AC/DC"`` -> ``"ac/dc"``)."""
    return (title or "").casefold()


def fill_title_lower(using="default"):
    """Set ``title_lower`` on every product from its title (one read, one ``bulk_write``).

    Returns how many products were updated. Called by the migration that
    adds the field.
    """
    collection = connections[using].get_collection("products")
    updates = [
        UpdateOne({"_id": d["_id"]}, {"$set": {"title_lower": lower_title(d.get("title"))}})
        for d in collection.find({}, {"title": 1, "title_lower": 1})
        if d.get("title_lower") != lower_title(d.get("title"))
    ]
    if updates:
        collection.bulk_write(updates, ordered=False)
    return len(updates)


def fill_keywords(using="default"):
    """Set ``keywords`` on every product whose stored words differ from its fields' (one read,
    one ``bulk_write``, streamed). Returns how many products were updated. Called by the
    migration that adds the field."""
    collection = connections[using].get_collection("products")
    projection = {"keywords": 1, **{path: 1 for path in KEYWORD_SOURCES}}
    updates = []
    for document in collection.find({}, projection):
        words = document_keywords(document)
        if document.get("keywords") != words:
            updates.append(UpdateOne({"_id": document["_id"]}, {"$set": {"keywords": words}}))
    if updates:
        collection.bulk_write(updates, ordered=False)
    return len(updates)


def number_siblings_by_name(using="default"):
    """Give every category the position of its name among its siblings (one read, one
    ``bulk_write``). Returns how many were updated. Called by the migration that adds
    ``Category.position``."""
    collection = connections[using].get_collection("categories")
    by_parent = {}
    for document in collection.find({}, {"name": 1, "parent_id": 1, "position": 1}):
        by_parent.setdefault(document.get("parent_id"), []).append(document)
    updates = []
    for siblings in by_parent.values():
        siblings.sort(key=lambda d: (d["name"].lower(), d["_id"]))
        updates.extend(
            UpdateOne({"_id": d["_id"]}, {"$set": {"position": index}})
            for index, d in enumerate(siblings) if d.get("position") != index
        )
    if updates:
        collection.bulk_write(updates, ordered=False)
    return len(updates)


# Fields a category page needs of the categories below the one shown.
_TREE_FIELDS = {"name": 1, "slug": 1, "parent_id": 1, "position": 1}
# The same as model fields: a category stored without one of them (a position
# never numbered) reads as None, rather than as a deferred field that would
# cost a query per category when the page reads it.
_TREE_FIELD_NAMES = {"name", "slug", "parent", "position"}

#: Where ``CategoryManager.move`` puts a node relative to its target.
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


class CategoryManager(SubdocumentMixin, MongoCollectionMixin, models.Manager):
    """Seed 000's category hierarchy operations, root-first ancestors; seed 002's reads by path."""

    # -- reads ---------------------------------------------------------

    def get_by_slug(self, slug):
        """The category with ``slug``, ancestors included: one read (seed 000 "Read and Display").

        ``category.ancestors`` are its breadcrumbs, root first. Raises
        ``Category.DoesNotExist`` for an unknown slug.
        """
        document = self.read_collection.find_one({"slug": str(slug)})
        if document is None:
            raise self.model.DoesNotExist(f"No category with slug {slug!r}.")
        return self.from_document(document)

    def breadcrumbs(self, slug):
        """Breadcrumbs for ``slug``: ``[{'name', 'slug'}, ...]`` root first, the category last.

        One read, projected to the names and slugs as in seed 000. Raises
        ``Category.DoesNotExist``.
        """
        document = self.read_collection.find_one(
            {"slug": str(slug)},
            {"_id": 0, "name": 1, "slug": 1, "ancestors.slug": 1, "ancestors.name": 1},
        )
        if document is None:
            raise self.model.DoesNotExist(f"No category with slug {slug!r}.")
        crumbs = [{"name": a["name"], "slug": a["slug"]} for a in document.get("ancestors", [])]
        return [*crumbs, {"name": document["name"], "slug": document["slug"]}]

    def read_by_path(self, slug, steps=()):
        """The category document with ``slug``, or its value at ``steps`` (seed 002): one read.

        See ``SubdocumentMixin.read_path``. Raises ``Category.DoesNotExist``,
        ``MalformedPath``, ``PathNotFound``.
        """
        return self.read_path({"slug": str(slug)}, steps)

    def child_crumbs(self, category_id):
        """The direct subcategories of ``category_id`` as ``[{_id, slug, name}]``, by name: one read."""
        cursor = self.read_collection.find({"parent_id": category_id}, {"slug": 1, "name": 1})
        return sorted(cursor, key=lambda d: (d["name"].lower(), d["_id"]))

    def top_level(self):
        """The categories without a parent, in sibling order (``position``)."""
        cursor = self.read_collection.find({"parent_id": None}, _TREE_FIELDS)
        return sorted((self.from_document(d, _TREE_FIELD_NAMES) for d in cursor), key=sibling_key)

    def children(self, category):
        """The direct subcategories of ``category``, in sibling order (``position``)."""
        cursor = self.read_collection.find({"parent_id": category.pk})
        return sorted((self.from_document(d) for d in cursor), key=sibling_key)

    def descendants(self, category):
        """Every category below ``category`` (through the ``ancestors._id`` index), in tree order."""
        cursor = self.read_collection.find({"ancestors._id": category.pk})
        return self.in_tree_order([self.from_document(d) for d in cursor])

    def subtree_and_top_level(self, category):
        """The descendants of ``category`` and the top categories, for a category page.

        Returns ``(descendants, top_level)``: the descendants in tree order,
        the top categories in sibling order; both hold name, slug, parent and
        position only. The
        top categories feed the navigation, so the page needs no other
        category query. Two reads, each served by its index (``ancestors._id``,
        ``parent_id``): as one ``$or`` query MongoDB serves it from both
        indexes, but SecantusDB 0.7.0b3 scans the collection for any ``$or``.
        """
        cursor = self.read_collection.find({"ancestors._id": category.pk}, _TREE_FIELDS)
        descendants = [self.from_document(document, _TREE_FIELD_NAMES) for document in cursor]
        return self.in_tree_order(descendants), self.top_level()

    def with_top_level(self, ids):
        """The categories ``ids`` and the top categories, for a product page.

        Returns ``(categories, top_level)``: the categories among ``ids``
        (with ancestors, for breadcrumbs) in the order of ``ids``, and the top
        categories in sibling order. Two indexed reads (one when ``ids`` is empty),
        not one ``$or``: see ``subtree_and_top_level``.
        """
        ids = list(ids)
        by_id = {d["_id"]: self.from_document(d)
                 for d in self.read_collection.find({"_id": {"$in": ids}})} if ids else {}
        return [by_id[i] for i in ids if i in by_id], self.top_level()

    def tree(self, max_depth=None):
        """All categories (or those at most ``max_depth`` deep: 0 = top only) in tree order. One read."""
        query = {} if max_depth is None else {f"ancestors.{max_depth}": {"$exists": False}}
        return self.in_tree_order([self.from_document(d) for d in self.collection.find(query)])

    def tree_nodes(self):
        """Every category as a light ``TreeNode`` (no model instance), in tree order. One read.

        What the admin's tree shows of 5,000 categories and more: the name,
        slug, parent, position and the ids of the ancestors, read with a
        projection and never turned into Django models (on the embedded
        engine, 5,582 categories: 1.3 s for the admin page instead of 5.5 s).
        """
        cursor = self.collection.find({}, {**_TREE_FIELDS, "ancestors": 1})
        return self.in_tree_order([TreeNode(d) for d in cursor])

    @staticmethod
    def in_tree_order(categories):
        """Sort categories depth first: each parent followed by its subtree, siblings by position.

        Works on any set of categories through their parent links (the
        ancestors do not carry positions): the nodes whose parent is not in
        the set come first, in sibling order. No database access.
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

    # -- writes --------------------------------------------------------

    def _free_slugs_and_position(self, name, slug, parent_id):
        """``(slugs, position)`` for a new category under ``parent_id`` (None: the top), in one read.

        ``slugs`` generates the slugs for ``name`` (or the given ``slug``) that
        no category had at the read: ``rock``, ``rock-2``, ... without end; the
        position is one past the last sibling's, so the new category comes
        last. The read asks for the slugs like the base and the siblings
        together (``$or``).
        """
        base = slugify(slug or name, max_length=180) or "category"
        pattern = f"^{re.escape(base)}(-[0-9]+)?$"
        taken, position = set(), 0
        cursor = self.collection.find(
            {"$or": [{"slug": {"$regex": pattern}}, {"parent_id": parent_id}]},
            {"slug": 1, "parent_id": 1, "position": 1},
        )
        for document in cursor:
            taken.add(document["slug"])
            if document.get("parent_id") == parent_id:
                position = max(position, (document.get("position") or 0) + 1)

        def slugs():
            if base not in taken:
                yield base
            number = 2
            while True:
                if f"{base}-{number}" not in taken:
                    yield f"{base}-{number}"
                number += 1

        return slugs(), position

    def _read_parent(self, parent):
        """The parent's ``{_id, slug, name, ancestors}`` document, or None for a top category."""
        if parent is None:
            return None
        parent_id = parent.pk if isinstance(parent, self.model) else as_object_id(parent)
        document = self.collection.find_one(
            {"_id": parent_id}, {"slug": 1, "name": 1, "ancestors": 1}
        )
        if document is None:
            raise self.model.DoesNotExist(f"No parent category {parent!r}.")
        return document

    @staticmethod
    def _crumb(document):
        return {"_id": document["_id"], "slug": document["slug"], "name": document["name"]}

    def create_category(self, name, parent=None, slug=None, taxonomy_id=None):
        """Add a category under ``parent`` (a Category, an id, or None for a top one).

        Seed 000 "Add a Category": reads the parent only; ancestors are the
        parent's ancestors plus the parent. The slug comes from ``slug`` or
        ``name``; when taken, ``-2``, ``-3``... is appended. The new category
        comes last among its siblings (``position``; the same read as the
        slugs, so 3 round trips: parent, slugs and siblings, insert). Returns the new
        Category. Raises ``Category.DoesNotExist`` for an unknown parent and
        ``CatalogError`` for an empty name.
        """
        name = (name or "").strip()
        if not name:
            raise CatalogError("A category needs a name.")
        parent_document = self._read_parent(parent)
        ancestors = []
        if parent_document is not None:
            ancestors = [*parent_document.get("ancestors", []), self._crumb(parent_document)]
        document = {
            "name": name,
            "parent_id": parent_document["_id"] if parent_document else None,
            "ancestors": ancestors,
            "taxonomy_id": taxonomy_id,
        }
        # One read of the taken slugs; a slug another writer takes in between is
        # refused by the unique index, and the next one is tried (no read again):
        # N writers racing for one name need at most N inserts each.
        candidates, document["position"] = self._free_slugs_and_position(
            name, slug, document["parent_id"]
        )
        for attempt, candidate in enumerate(candidates):
            document["slug"] = candidate
            document.pop("_id", None)
            try:
                self.collection.insert_one(document)
            except DuplicateKeyError:
                if attempt >= MAX_SLUG_ATTEMPTS:
                    raise SlugTaken(f"Could not find a free slug for {name!r}.") from None
                continue
            return self.from_document(document)

    def rename(self, category, name, slug=None):
        """Rename ``category`` (and optionally change its slug): exactly 2 writes.

        Seed 000 "Change the Name of a Category": the node is updated, then
        one ``update_many`` rewrites the name (and slug) in the ancestors of
        every descendant, so their breadcrumbs follow. Returns the updated
        Category. Raises ``SlugTaken`` when ``slug`` belongs to another
        category (nothing is changed then), ``CatalogError`` for an empty name.
        """
        name = (name or "").strip()
        if not name:
            raise CatalogError("A category needs a name.")
        changes = {"name": name}
        if slug is not None and slug != category.slug:
            new_slug = slugify(slug, max_length=180)
            if not new_slug:
                raise CatalogError(f"{slug!r} cannot be made into a slug.")
            changes["slug"] = new_slug
        try:
            self.collection.update_one({"_id": category.pk}, {"$set": changes})
        except DuplicateKeyError:
            raise SlugTaken(f"The slug {changes['slug']!r} is taken by another category.") from None
        self.collection.update_many(
            {"ancestors._id": category.pk},
            {"$set": {f"ancestors.$.{field}": value for field, value in changes.items()}},
        )
        for field, value in changes.items():
            setattr(category, field, value)
        return category

    def move(self, category, target, where=MOVE_INSIDE):
        """Move ``category`` (with its subtree) inside ``target``, or before or after it.

        ``target`` is a Category, an id, or None (the top level, with
        ``where="inside"`` only); ``where`` is ``"inside"`` (last child of
        ``target``), ``"before"`` or ``"after"`` (a sibling of ``target``,
        next to it). Seed 000 "Move a Category": refuses a move under the
        category itself or one of its descendants (``InvalidMove``, nothing
        changed); reads the node, the target, then the subtree (through the
        ``ancestors._id`` index) together with the new siblings, and rewrites
        the ancestors of the category and every descendant and the positions
        of the new siblings in one ``bulk_write``: 4 round trips whatever the
        size of the subtree. A move before or after the category itself
        changes nothing. Returns the moved Category. Raises
        ``Category.DoesNotExist`` for an unknown category or target,
        ``CatalogError`` for an unknown ``where``.
        """
        if where not in MOVE_PLACES:
            raise CatalogError(f"A category moves inside, before or after another, not {where!r}.")
        node = self.collection.find_one({"_id": category.pk}, {"slug": 1, "name": 1, "ancestors": 1})
        if node is None:
            raise self.model.DoesNotExist(f"No category {category.pk}.")
        if where == MOVE_INSIDE:
            parent_document = self._read_parent(target)
            self._refuse_cycle(node["_id"], node["name"], parent_document)
            new_ancestors = []
            if parent_document is not None:
                new_ancestors = [*parent_document.get("ancestors", []), self._crumb(parent_document)]
            parent_id = parent_document["_id"] if parent_document else None
            anchor_id = None
        else:
            if target is None:
                raise CatalogError("A category moves before or after another category.")
            sibling = self._read_parent(target)
            if sibling["_id"] == node["_id"]:
                return category  # Next to itself: already there.
            if any(a["_id"] == node["_id"] for a in sibling.get("ancestors", [])):
                raise InvalidMove(
                    f"{node['name']} cannot be moved next to {sibling['name']}, "
                    "which is one of its own subcategories."
                )
            new_ancestors = list(sibling.get("ancestors", []))
            parent_id = new_ancestors[-1]["_id"] if new_ancestors else None
            anchor_id = sibling["_id"]
        node_crumb = self._crumb(node)
        updates, siblings = [], []
        cursor = self.collection.find(
            {"$or": [{"ancestors._id": node["_id"]}, {"parent_id": parent_id}]},
            {"ancestors": 1, "parent_id": 1, "position": 1, "name": 1},
        )
        for document in cursor:
            old = document.get("ancestors", [])
            below = next((i for i, a in enumerate(old) if a["_id"] == node["_id"]), None)
            if below is None:
                if document["_id"] != node["_id"]:
                    siblings.append(document)
                continue
            rebuilt = [*new_ancestors, node_crumb, *old[below + 1:]]
            updates.append(UpdateOne({"_id": document["_id"]}, {"$set": {"ancestors": rebuilt}}))
        siblings.sort(key=lambda d: (d.get("position") or 0, d["name"].lower()))
        order = [d["_id"] for d in siblings]
        place = len(order)
        if anchor_id is not None:
            place = order.index(anchor_id) + (1 if where == MOVE_AFTER else 0)
        order.insert(place, node["_id"])
        for index, document in enumerate(siblings[:place] + [None] + siblings[place:]):
            if document is not None and (document.get("position") or 0) != index:
                updates.append(UpdateOne({"_id": document["_id"]}, {"$set": {"position": index}}))
        updates.insert(0, UpdateOne(
            {"_id": node["_id"]},
            {"$set": {"parent_id": parent_id, "ancestors": new_ancestors, "position": place}},
        ))
        self.collection.bulk_write(updates, ordered=False)
        category.parent_id = parent_id
        category.position = place
        category.ancestors = self.from_document({"ancestors": new_ancestors}).ancestors
        return category

    def delete_category(self, category):
        """Delete ``category``; refused (``CategoryNotEmpty``, nothing changed) while it has
        subcategories or products listed in it."""
        self.check_deletable(category)
        self.collection.delete_one({"_id": category.pk})

    # -- checks before a change (the admin's forms) --------------------

    def check_move(self, category, new_parent):
        """Refuse, before any write, a move of ``category`` under ``new_parent``.

        ``new_parent`` is a Category, an id or None (top level). Reads the
        parent only. Raises ``InvalidMove`` for a move under the category
        itself or one of its descendants (seed 000 "Move a Category"),
        ``Category.DoesNotExist`` for an unknown parent; returns None when the
        move is allowed. ``move()`` checks again when it writes.
        """
        self._refuse_cycle(category.pk, category.name, self._read_parent(new_parent))

    @staticmethod
    def _refuse_cycle(category_id, name, parent_document):
        """Raise ``InvalidMove`` when ``parent_document`` is the category or below it."""
        if parent_document is None:
            return
        if parent_document["_id"] == category_id:
            raise InvalidMove(f"{name} cannot be moved under itself.")
        if any(a["_id"] == category_id for a in parent_document.get("ancestors", [])):
            raise InvalidMove(
                f"{name} cannot be moved under {parent_document['name']}, "
                "which is one of its own subcategories."
            )

    def check_deletable(self, category):
        """Refuse, before any write, a delete of ``category`` that ``delete_category`` would refuse.

        Two reads at most. Raises ``CategoryNotEmpty`` (the message says why)
        while the category has subcategories or products listed in it;
        returns None when it may be deleted.
        """
        if self.collection.find_one({"parent_id": category.pk}, {"_id": 1}) is not None:
            raise CategoryNotEmpty(f"{category.name} still has subcategories: move or delete them first.")
        from .models import Product

        if Product.objects.collection.find_one({"categories": category.pk}, {"_id": 1}) is not None:
            raise CategoryNotEmpty(f"{category.name} still has products: move or delete them first.")

    def delete_all(self):
        """Delete every category; returns how many. (``load_catalog --reset``.)"""
        return self.collection.delete_many({}).deleted_count

    def create_many(self, nodes):
        """Add many categories at once: 3 round trips, whatever their number.

        ``nodes`` is a list of dicts ``{"_id": ObjectId, "name", "parent":
        ObjectId | None, "taxonomy_id": int | None}``, each parent before its
        children; a parent is an existing category or an earlier node. The
        caller picks the ``_id`` so that later nodes can name it as parent.
        Ancestors are built as in ``create_category`` (root first), slugs
        from the names (``-2``, ``-3``... when taken), positions after the
        siblings already there, in the order given, then one ``insert_many``. Returns the new Categories in order. Raises
        ``CatalogError`` for an empty name and ``Category.DoesNotExist`` for
        an unknown parent, before writing anything.
        """
        nodes = list(nodes)
        if not nodes:
            return []
        new_ids = {node["_id"] for node in nodes}
        outside = {node["parent"] for node in nodes} - new_ids - {None}
        known = {
            d["_id"]: d
            for d in self.collection.find(
                {"_id": {"$in": list(outside)}}, {"slug": 1, "name": 1, "ancestors": 1}
            )
        } if outside else {}
        taken, next_position = set(), {}
        for document in self.collection.find({}, {"slug": 1, "parent_id": 1, "position": 1}):
            taken.add(document["slug"])
            parent_id = document.get("parent_id")
            next_position[parent_id] = max(next_position.get(parent_id, 0),
                                           (document.get("position") or 0) + 1)
        documents = []
        for node in nodes:
            name = (node.get("name") or "").strip()
            if not name:
                raise CatalogError("A category needs a name.")
            parent = node["parent"]
            if parent is not None and parent not in known:
                raise self.model.DoesNotExist(f"No parent category {parent!r}.")
            ancestors = [] if parent is None else [
                *known[parent].get("ancestors", []), self._crumb(known[parent])
            ]
            base = slugify(name, max_length=180) or "category"
            slug, number = base, 2
            while slug in taken:
                slug, number = f"{base}-{number}", number + 1
            taken.add(slug)
            position = next_position.get(parent, 0)
            next_position[parent] = position + 1
            document = {"_id": node["_id"], "name": name, "slug": slug, "parent_id": parent,
                        "ancestors": ancestors, "taxonomy_id": node.get("taxonomy_id"),
                        "position": position}
            known[node["_id"]] = document
            documents.append(document)
        self.collection.insert_many(documents, ordered=True)
        return [self.from_document(d) for d in documents]


SORTS = {
    "newest": [("details.issue_date", DESCENDING), ("_id", ASCENDING)],
    "price": [("pricing.retail", ASCENDING), ("_id", ASCENDING)],
    "-price": [("pricing.retail", DESCENDING), ("_id", ASCENDING)],
    "title": [("title", ASCENDING), ("_id", ASCENDING)],
}
SORT_LABELS = {"newest": "Newest", "price": "Price: low to high", "-price": "Price: high to low",
               "title": "Title"}
DEFAULT_SORT = "newest"
# Search results: best match first (title, then artist, then a track: see
# ``search_ranking``), or by price or date.
SEARCH_SORTS = {
    "relevance": [("rank", ASCENDING), ("title", ASCENDING), ("_id", ASCENDING)],
    "newest": SORTS["newest"], "price": SORTS["price"], "-price": SORTS["-price"],
}
SEARCH_SORT_LABELS = {"relevance": "Best match", "newest": "Newest",
                      "price": "Price: low to high", "-price": "Price: high to low"}

# What a product card shows: not the track lists.
_CARD_FIELDS = {"sku": 1, "type": 1, "title": 1, "pricing": 1, "details.artist": 1,
                "details.genre": 1, "details.issue_date": 1, "details._label": 1, "image": 1}
_CARD_FIELD_NAMES = {"sku", "type", "title", "pricing", "details", "image"}

# Availability joined into the same read (issue 12): the SKU's inventory
# document (its ``_id`` is the SKU) by a plain localField/foreignField
# $lookup, reduced to its ``qty`` as ``available`` (missing: no stock record).
# Not ``"$stock.qty"`` (a path through an array of subdocuments, which
# SecantusDB evaluates to missing) but a $map; not a $lookup with ``let``.
AVAILABILITY_STAGES = [
    {"$lookup": {"from": "inventory", "localField": "sku", "foreignField": "_id", "as": "stock"}},
    {"$addFields": {"available": {"$arrayElemAt": [
        {"$map": {"input": "$stock", "in": "$$this.qty"}}, 0]}}},
    {"$project": {"stock": 0}},
]


class ProductManager(SubdocumentMixin, MongoCollectionMixin, models.Manager):
    """Seed 001's product catalog reads; seed 002's reads by path."""

    def get_by_sku(self, sku):
        """The product with ``sku`` (one read). Raises ``Product.DoesNotExist``."""
        document = self.read_collection.find_one({"sku": str(sku)})
        if document is None:
            raise self.model.DoesNotExist(f"No product with SKU {sku!r}.")
        return self.from_document(document)

    def read_by_path(self, sku, steps=()):
        """The product document with ``sku``, or its value at ``steps`` (seed 002): one read.

        The document is served as stored, without ``title_lower`` (a search
        copy of the title) and with ``currency``: the currency of its prices,
        which are integer cents (``settings.SHOP_CURRENCY``). See
        ``SubdocumentMixin.read_path``. Raises ``Product.DoesNotExist``,
        ``MalformedPath``, ``PathNotFound``.
        """
        return self.read_path({"sku": str(sku)}, steps, hidden=("title_lower",),
                              added={"currency": settings.SHOP_CURRENCY})

    def get_with_availability(self, sku):
        """The product with ``sku`` and its ``available`` units (int, None without a stock
        record): one aggregation, the inventory joined by ``AVAILABILITY_STAGES``.

        For the product page. Raises ``Product.DoesNotExist``.
        """
        pipeline = [{"$match": {"sku": str(sku)}}, {"$limit": 1}, *AVAILABILITY_STAGES]
        document = next(iter(self.read_collection.aggregate(pipeline)), None)
        if document is None:
            raise self.model.DoesNotExist(f"No product with SKU {sku!r}.")
        return self.card_from_document(document, fields=None)

    def card_from_document(self, document, fields=_CARD_FIELD_NAMES):
        """A Product from a document read with ``AVAILABILITY_STAGES``; ``product.available``
        is the SKU's available units (int) or None when it has no stock record."""
        product = self.from_document(document, fields)
        product.available = document.get("available")
        product.matched = what_matched(document)
        return product

    def listing(self, category_ids, sort=DEFAULT_SORT, page=1, per_page=24,
                min_cents=None, max_cents=None):
        """The products listed in any of ``category_ids``, sorted by ``sort`` (a key of ``SORTS``),
        with a retail price within ``[min_cents, max_cents]`` (either bound None: no bound).

        Returns a ``ProductListing`` for ``django.core.paginator.Paginator``;
        ``page`` and ``per_page`` tell it which page will be asked for, so the
        count and that page come from a single aggregation. Raises KeyError
        for an unknown sort.
        """
        match = {"categories": {"$in": list(category_ids)}}
        bounds = {}
        if min_cents is not None:
            bounds["$gte"] = int(min_cents)
        if max_cents is not None:
            bounds["$lte"] = int(max_cents)
        if bounds:
            match["pricing.retail"] = bounds
        return self._listing(match, sort, page, per_page)

    def _listing(self, match, sort, page, per_page):
        """A ``ProductListing`` of ``match`` sorted by ``SORTS[sort]``, expecting page ``page``."""
        start = (max(page, 1) - 1) * per_page
        return ProductListing(self, match, SORTS[sort], page_hint=(start, start + per_page))

    def newest(self, limit=8):
        """The ``limit`` newest products (cards, with availability), for the home page.

        One aggregation."""
        pipeline = [{"$sort": dict(SORTS["newest"])}, {"$limit": int(limit)},
                    {"$project": _CARD_FIELDS}, *AVAILABILITY_STAGES]
        return [self.card_from_document(d) for d in self.read_collection.aggregate(pipeline)]

    def shipping_weights(self, skus):
        """``{sku: shipping weight in grams}`` of the products among ``skus`` (one read; 0 if unset)."""
        cursor = self.collection.find({"sku": {"$in": [str(s) for s in skus]}}, {"sku": 1, "shipping.weight": 1})
        return {d["sku"]: int((d.get("shipping") or {}).get("weight") or 0) for d in cursor}

    def count_by_category(self):
        """``{category_id: number of products listed in it}``, from one aggregation."""
        pipeline = [{"$unwind": "$categories"}, {"$group": {"_id": "$categories", "n": {"$sum": 1}}}]
        return {row["_id"]: row["n"] for row in self.read_collection.aggregate(pipeline)}

    def count_by_category_list(self):
        """``[(category ids, number of products listed in exactly those), ...]``: one aggregation.

        Grouping on the whole ``categories`` array gives each distinct list
        once, so the caller can count a product once per category *and* once
        per ancestor (the admin tree's subtree counts), however many of its
        categories share that ancestor.
        """
        pipeline = [{"$group": {"_id": "$categories", "n": {"$sum": 1}}}]
        return [(row["_id"] or [], row["n"]) for row in self.read_collection.aggregate(pipeline)]

    def sync(self, products):
        """Make the stored products match ``products`` (Product instances), keyed by SKU.

        One read of the existing SKUs, then one ``bulk_write`` of what is new
        or changed: a product equal to its stored document is not written.
        Products whose SKU is not in ``products`` are left alone. Returns
        ``{'created': n, 'updated': n, 'unchanged': n}``.
        """
        from pymongo import InsertOne, ReplaceOne

        from shop.mongo.documents import model_to_document

        documents = [model_to_document(p, self.db) for p in products]
        for document in documents:
            document["title_lower"] = lower_title(document["title"])
            document["keywords"] = document_keywords(document)
        skus = [d["sku"] for d in documents]
        stored = {d["sku"]: d for d in self.collection.find({"sku": {"$in": skus}})}
        writes, report = [], {"created": 0, "updated": 0, "unchanged": 0}
        for document in documents:
            current = stored.get(document["sku"])
            if current is None:
                writes.append(InsertOne(document))
                report["created"] += 1
                continue
            document["_id"] = current["_id"]
            if not document.get("image") and current.get("image"):
                document["image"] = current["image"]  # a cover staff uploaded stays
            if current == document:
                report["unchanged"] += 1
            else:
                writes.append(ReplaceOne({"_id": current["_id"]}, document))
                report["updated"] += 1
        if writes:
            self.collection.bulk_write(writes, ordered=False)
        return report

    def delete_all(self):
        """Delete every product; returns how many. (``load_catalog --reset``.)"""
        return self.collection.delete_many({}).deleted_count

    # -- storefront queries (seed 001 "Operations") ----------------------

    def by_genre(self, genre, product_type=None):
        """Products of ``product_type`` (default ``Audio Album``) in ``genre``, newest first.

        Seed 001 "Find albums by genre and sort by year produced", served by
        the ``(type, details.genre, details.issue_date -1)`` index. Returns a
        ``ProductQuery`` (count + one page: 2 round trips).
        """
        return ProductQuery(self, {
            "type": str(product_type or self.model.AUDIO_ALBUM),
            "details.genre": str(genre),
        }, SORTS["newest"])

    def deals(self, min_pct_savings=0):
        """Products saving more than ``min_pct_savings`` percent, biggest saving first.

        Seed 001 "Find products sorted by percentage discount descending",
        served by the ``pricing.pct_savings`` index. Ties come in ``_id``
        order. Returns a ``ProductQuery``.
        """
        return ProductQuery(
            self,
            {"pricing.pct_savings": {"$gt": int(min_pct_savings)}},
            [("pricing.pct_savings", DESCENDING), ("_id", ASCENDING)],
        )

    def by_artist(self, artist):
        """The albums and TV seasons of ``artist`` (exact name), newest first.

        Served by the ``(details.artist, details.issue_date -1)`` index: only
        albums and TV seasons have an artist, so no type is named (an ``$in``
        of the two types made SecantusDB 0.7.0b3 scan). Returns a ``ProductQuery``.
        """
        return ProductQuery(self, {"details.artist": str(artist)}, SORTS["newest"])

    def by_actor(self, actor):
        """The films starring ``actor`` (exact name), newest first.

        Seed 001 "Find movies based on starring actor", served by the
        ``(type, details.actor, details.issue_date -1)`` index. Returns a
        ``ProductQuery``.
        """
        return ProductQuery(
            self, {"type": self.model.FILM, "details.actor": str(actor)}, SORTS["newest"]
        )

    def search(self, text, page=1, per_page=24, sort="relevance"):
        """Products that have every word of ``text`` (a shopper's query) among their
        keywords, best match first (``sort="relevance"``) or by a key of ``SEARCH_SORTS``.

        ``text`` is split into words (``search_words``): punctuation and
        operators (``.*``, ``$where``, ``{"$ne": 1}``) are never passed on as
        a pattern or an operator; each word is a plain equality on the
        multikey ``keywords`` index. The words are consecutive ``$match``
        stages of one aggregation, which MongoDB merges into one ``$and``
        served by the index; SecantusDB 0.7.0b3 uses an index only for a
        ``$match`` of one top-level condition (an ``$and``, ``$all`` or
        ``$elemMatch`` scans the collection), so the first stage uses the index
        and the others filter what it found. Returns a ``ProductListing``
        (count and page in one aggregation; ``page`` and ``per_page`` say
        which page will be asked for), or an empty ``ProductQuery`` (no round
        trip) when ``text`` holds no word.

        Relevance (issue 12) comes from the product's fields: ``search_ranking``
        ranks a match in the title before one in the artist, then a track,
        then the cast, then the description, and each product gets
        ``matched`` ("track: Inject The Venom"). ``sort``: a key of
        ``SEARCH_SORTS`` (KeyError otherwise).
        """
        words = search_words(text)
        if not words:
            return ProductQuery(self, None, [])
        start = (max(page, 1) - 1) * per_page
        return ProductListing(self, [{"keywords": word} for word in words], SEARCH_SORTS[sort],
                              page_hint=(start, start + per_page),
                              stages=search_ranking(words), extra_fields=RANK_FIELDS)

    def suggest(self, prefix, limit=8):
        """Up to ``limit`` products whose title starts with ``prefix`` (any case), by title.

        Seed 001's index-friendly prefix pattern over ``title_lower``, written
        as a range (``prefix_range``: SecantusDB uses no index for a
        ``$regex``), served by its index. Returns a list of
        Products with ``sku`` and ``title`` only; ``[]`` for a blank prefix.
        One round trip.
        """
        prefix = lower_title(str(prefix)).lstrip()[:MAX_SUGGEST_PREFIX]
        if not prefix:
            return []
        cursor = self.read_collection.find(
            {"title_lower": prefix_range(prefix)}, {"sku": 1, "title": 1}
        ).sort([("title_lower", ASCENDING), ("_id", ASCENDING)]).limit(int(limit))
        return [self.from_document(d, {"sku", "title"}) for d in cursor]


MAX_SUGGEST_PREFIX = 100


class ProductQuery:
    """A filter and a sort over products, as a sequence for Django's Paginator.

    ``count()`` is one ``count_documents`` and each page one aggregation
    (match, sort, skip, limit, then the page's availability joined by
    ``AVAILABILITY_STAGES``), both on the read preference's members: a page
    of results costs 2 round trips (1 when there is nothing to show). A
    ``match`` of None is a query that matches nothing (no round trip).
    Products come with the card fields and ``available``.
    """

    def __init__(self, manager, match, sort, projection=None):
        self.manager = manager
        self.match = match
        self.sort = sort
        self.projection = projection or _CARD_FIELDS
        self._total = None
        self._page = None

    def count(self):
        """How many products match (one ``count_documents``, then cached)."""
        if self._total is None:
            self._total = 0 if self.match is None else self.manager.read_collection.count_documents(
                self.match
            )
        return self._total

    def __len__(self):
        return self.count()

    def __getitem__(self, index):
        if not isinstance(index, slice):
            return self[index:index + 1][0]
        start, stop = index.start or 0, index.stop
        if self.match is None or (stop is not None and stop <= start):
            return []
        if not self._has_read(start, stop):
            self._page = (start, stop, self._read_page(start, stop))
        first, _last, items = self._page
        return items[start - first:None if stop is None else stop - first]

    def _has_read(self, start, stop):
        """Whether the products of ``[start:stop]`` were read already (Paginator trims the
        last page to the count, a slice within the page read)."""
        if self._page is None or start < self._page[0]:
            return False
        first, last, items = self._page
        reached_the_end = last is None or len(items) < last - first
        return reached_the_end or (stop is not None and stop <= last)

    def _read_page(self, start, stop):
        """The products of ``[start:stop]`` (``stop`` None: to the end) with their
        availability: one aggregation."""
        pipeline = [{"$match": self.match}]
        if self.sort:
            pipeline.append({"$sort": dict(self.sort)})
        pipeline.append({"$skip": start})
        if stop is not None:
            pipeline.append({"$limit": max(stop - start, 1)})
        pipeline += [{"$project": self.projection}, *AVAILABILITY_STAGES]
        fields = {key.split(".")[0] for key in self.projection}
        return [self.manager.card_from_document(d, fields)
                for d in self.manager.read_collection.aggregate(pipeline)]

    def _cursor(self):
        cursor = self.manager.read_collection.find(self.match, self.projection)
        return cursor.sort(self.sort) if self.sort else cursor

    def explain(self):
        """The server's ``explain`` of the first page's find (a dict)."""
        return self._cursor().limit(1).explain()


class ProductListing(ProductQuery):
    """A ``ProductQuery`` whose count and page come from one aggregation.

    A ``$facet`` returns the total and the page together, so a paginated
    category page costs one round trip for its products (where a plain
    ``ProductQuery`` costs two). ``match`` is a filter, or a list of filters
    applied one after the other (consecutive ``$match`` stages; see
    ``ProductManager.search``). ``page_hint`` is the ``(start, stop)`` that
    Paginator will ask for; ``count()`` reads it along. Another slice costs
    one more aggregation. Sorting happens after the match, in memory: right
    for a category page's few hundred products, while the seed queries that
    an index sorts use a ``ProductQuery``.
    """

    def __init__(self, manager, match, sort, page_hint=(0, 24), stages=(), extra_fields=None):
        super().__init__(manager, match, sort)
        self.page_hint = page_hint
        self.stages = list(stages)  # run after the $match (e.g. ``search_ranking``)
        self.projection = {**self.projection, **(extra_fields or {})}

    def count(self):
        if self._total is None:
            self[slice(*self.page_hint)]
        return self._total

    def _read_page(self, start, stop):
        window = [{"$sort": dict(self.sort)}, {"$skip": start}]
        if stop is not None:
            window.append({"$limit": max(stop - start, 1)})
        # Only the page's products are cut to what a card shows and look up their
        # stock. (Projecting every match before the $facet cost SecantusDB twice the
        # time of the whole listing read: 40 ms against 22 for the Rock page.)
        window += [{"$project": self.projection}, *AVAILABILITY_STAGES]
        matches = self.match if isinstance(self.match, list) else [self.match]
        pipeline = [
            *({"$match": match} for match in matches),
            *self.stages,
            {"$facet": {"total": [{"$count": "n"}], "items": window}},
        ]
        result = next(iter(self.manager.read_collection.aggregate(pipeline)), {"total": [], "items": []})
        self._total = result["total"][0]["n"] if result["total"] else 0
        return [self.manager.card_from_document(d) for d in result["items"]]
