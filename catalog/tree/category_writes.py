"""``Category.writes`` (``CategoryWriteManager``): the "Category Hierarchy" use case's changes to
the category tree, as raw pymongo: add, rename, move, delete.

Each change ends with one more write, the bump of the versions of what it
changed (``writes.categories_changed``, ``catalog/store/writes.py``):
the storefront's cached reads of the catalog are keyed by those versions
(``catalog/store/cache.py``), so every process sees the change on its next
request, and the pages of other parts of the tree stay warm. The round
trips each docstring counts leave that write out.

Every write keeps each category's ``ancestors`` (root first, parent last,
as ``{_id, slug, name}``) and its ``position`` among its siblings right.
The reads are ``Category.objects`` (``catalog/tree/category_manager.py``); the tree helpers that need no database are in
``catalog/tree/nodes.py``.
"""

import re

from django.db import models
from pymongo import UpdateOne
from pymongo.errors import DuplicateKeyError

from core.mongo.collections import MongoCollectionMixin

from catalog.exceptions import CatalogError, CategoryNotEmpty, InvalidMove, SlugTaken
from catalog.store.ids import as_object_id
from catalog.tree.slugs import free_slugs, slug_for
from catalog.store import writes
from catalog.store.siblings import catalog_model
from catalog.tree.nodes import MOVE_AFTER, MOVE_INSIDE, MOVE_PLACES, ancestors_under, crumb, refuse_cycle

#: Inserts ``create_category`` tries before giving up (``SlugTaken``).
MAX_SLUG_ATTEMPTS = 100


def _required_name(name):
    """``name`` stripped; raises ``CatalogError`` when nothing is left."""
    name = (name or "").strip()
    if not name:
        raise CatalogError("A category needs a name.")
    return name


class CategoryWriteManager(MongoCollectionMixin, models.Manager):
    """``Category.writes``: the "Category Hierarchy" use case's writes on the ``categories`` collection."""

    def _free_slugs_and_position(self, name, slug, parent_id):
        """``(slugs, position)`` for a new category under ``parent_id`` (None: the top), in one read.

        ``slugs`` generates the slugs for ``name`` (or the given ``slug``) that
        no category had at the read: ``rock``, ``rock-2``, ... without end; the
        position is one past the last sibling's, so the new category comes
        last. The read asks for the slugs like the base and the siblings
        together (``$or``).
        """
        base = slug_for(slug or name) or "category"
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
        return free_slugs(base, taken), position

    def _read_parent(self, parent):
        """The parent's ``{_id, slug, name, ancestors}`` document, or None for a top category.

        ``parent``: a Category, an id or None. Raises ``Category.DoesNotExist``."""
        if parent is None:
            return None
        parent_id = parent.pk if isinstance(parent, self.model) else as_object_id(parent)
        document = self.collection.find_one(
            {"_id": parent_id}, {"slug": 1, "name": 1, "ancestors": 1}
        )
        if document is None:
            raise self.model.DoesNotExist(f"No parent category {parent!r}.")
        return document

    def create_category(self, name, parent=None, slug=None, taxonomy_id=None):
        """Add a category under ``parent`` (a Category, an id, or None for a top one).

        The "Category Hierarchy" use case "Add a Category": reads the parent only; ancestors are the
        parent's ancestors plus the parent. The slug comes from ``slug`` or
        ``name``; when taken, ``-2``, ``-3``... is appended. The new category
        comes last among its siblings (``position``; the same read as the
        slugs, so 3 round trips: parent, slugs and siblings, insert). Returns the new
        Category. Raises ``Category.DoesNotExist`` for an unknown parent,
        ``CatalogError`` for an empty name and ``SlugTaken`` when
        ``MAX_SLUG_ATTEMPTS`` inserts all lost their slug to other writers.
        """
        name = _required_name(name)
        parent_document = self._read_parent(parent)
        document = {
            "name": name,
            "parent_id": parent_document["_id"] if parent_document else None,
            "ancestors": ancestors_under(parent_document),
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
            writes.categories_changed(changed=[document["parent_id"]] if document["parent_id"] else [],
                                      depths=[len(document["ancestors"])])
            return self.from_document(document)

    def create_many(self, nodes):
        """Add many categories at once: 3 round trips, whatever their number.

        ``nodes`` is a list of dicts ``{"_id": ObjectId, "name", "parent":
        ObjectId | None, "taxonomy_id": int | None}``, each parent before its
        children; a parent is an existing category or an earlier node. The
        caller picks the ``_id`` so that later nodes can name it as parent.
        Ancestors are built as in ``create_category`` (root first), slugs
        from the names (``-2``, ``-3``... when taken), positions after the
        siblings already there, in the order given, then one ``insert_many``.
        Returns the new Categories in order. Raises ``CatalogError`` for an
        empty name and ``Category.DoesNotExist`` for an unknown parent, before
        writing anything.
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
            name = _required_name(node.get("name"))
            parent = node["parent"]
            if parent is not None and parent not in known:
                raise self.model.DoesNotExist(f"No parent category {parent!r}.")
            slug = next(free_slugs(slug_for(name) or "category", taken))
            taken.add(slug)
            position = next_position.get(parent, 0)
            next_position[parent] = position + 1
            document = {"_id": node["_id"], "name": name, "slug": slug, "parent_id": parent,
                        "ancestors": ancestors_under(known.get(parent)),
                        "taxonomy_id": node.get("taxonomy_id"), "position": position}
            known[node["_id"]] = document
            documents.append(document)
        try:
            self.collection.insert_many(documents, ordered=True)
        finally:
            writes.categories_changed(changed={d["parent_id"] for d in documents if d["parent_id"]},
                                      depths=[len(d["ancestors"]) for d in documents])
        return [self.from_document(d) for d in documents]

    def rename(self, category, name, slug=None):
        """Rename ``category`` (and optionally change its slug): exactly 2 writes.

        The "Category Hierarchy" use case "Change the Name of a Category": the node is updated, then
        one ``update_many`` rewrites the name (and slug) in the ancestors of
        every descendant, so their breadcrumbs follow. Returns the updated
        Category. Raises ``SlugTaken`` when ``slug`` belongs to another
        category (nothing is changed then), ``CatalogError`` for an empty name.
        """
        changes = {"name": _required_name(name)}
        if slug is not None and slug != category.slug:
            new_slug = slug_for(slug)
            if not new_slug:
                raise CatalogError(f"{slug!r} cannot be made into a slug.")
            changes["slug"] = new_slug
        try:
            self.collection.update_one({"_id": category.pk}, {"$set": changes})
        except DuplicateKeyError:
            raise SlugTaken(f"The slug {changes['slug']!r} is taken by another category.") from None
        try:
            self.collection.update_many(
                {"ancestors._id": category.pk},
                {"$set": {f"ancestors.$.{field}": value for field, value in changes.items()}},
            )
        finally:
            writes.categories_changed(changed=[category.pk, *([category.parent_id] if category.parent_id else [])],
                                      renamed=[category.pk], depths=[len(category.ancestors or [])])
        for field, value in changes.items():
            setattr(category, field, value)
        return category

    def move(self, category, target, where=MOVE_INSIDE):
        """Move ``category`` (with its subtree) inside ``target``, or before or after it.

        ``target`` is a Category, an id, or None (the top level, with
        ``where="inside"`` only); ``where`` is ``"inside"`` (last child of
        ``target``), ``"before"`` or ``"after"`` (a sibling of ``target``,
        next to it). The "Category Hierarchy" use case "Move a Category": refuses a move under the
        category itself or one of its descendants (``InvalidMove``, nothing
        changed); reads the node, the target, then the subtree (through the
        ``ancestors._id`` index) together with the new siblings, and rewrites
        the ancestors of the category and every descendant and the positions
        of the new siblings in one ``bulk_write``: 4 round trips whatever the
        size of the subtree; then the products listed below it get their new
        ``listed_in`` (``Product.writes.relist_under``: one read, and when
        there are any, one read of their categories and one ``bulk_write``, around which
        the categories above it, before and after, are marked and recounted:
        ``ListingCount.objects.changing``, one aggregation and 2 writes). A move before or after the category itself
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
            refuse_cycle(node["_id"], node["name"], parent_document)
            new_ancestors = ancestors_under(parent_document)
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
        node_crumb = crumb(node)
        updates, siblings = [], []
        cursor = self.collection.find(
            {"$or": [{"ancestors._id": node["_id"]}, {"parent_id": parent_id}]},
            {"ancestors": 1, "parent_id": 1, "position": 1, "name": 1},
        )
        subtree = [node["_id"]]
        for document in cursor:
            old = document.get("ancestors", [])
            below = next((i for i, a in enumerate(old) if a["_id"] == node["_id"]), None)
            if below is None:
                if document["_id"] != node["_id"]:
                    siblings.append(document)
                continue
            subtree.append(document["_id"])
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
        # The categories above it, before and after, gain or lose what it lists.
        above = {a["_id"] for a in node.get("ancestors", [])} | {a["_id"] for a in new_ancestors}
        try:
            self.collection.bulk_write(updates, ordered=False)
            catalog_model("Product").writes.relist_under(node["_id"], above)
        finally:
            # The subtree's pages (ancestors, listings), those above it before and after (their
            # listings and children), the new parent's other children's order.
            writes.categories_changed(changed=[*subtree, *above, *([parent_id] if parent_id else [])],
                                      depths=[len(node.get("ancestors", [])), len(new_ancestors)],
                                      relisted=above)
        category.parent_id = parent_id
        category.position = place
        category.ancestors = self.from_document({"ancestors": new_ancestors}).ancestors
        return category

    def delete_category(self, category):
        """Delete ``category``; refused (``CategoryNotEmpty``, nothing changed) while it has
        subcategories or products listed in it."""
        self.check_deletable(category)
        self.collection.delete_one({"_id": category.pk})
        writes.categories_changed(changed=[category.pk, *([category.parent_id] if category.parent_id else [])],
                                  depths=[len(category.ancestors or [])])

    def delete_all(self):
        """Delete every category; returns how many. (``load_catalog --reset``.)"""
        try:
            return self.collection.delete_many({}).deleted_count
        finally:
            writes.catalog_reset()

    # -- checks before a change (the admin's forms) --------------------

    def check_move(self, category, new_parent):
        """Refuse, before any write, a move of ``category`` under ``new_parent``.

        ``new_parent`` is a Category, an id or None (top level). Reads the
        parent only. Raises ``InvalidMove`` for a move under the category
        itself or one of its descendants ("Category Hierarchy" use case "Move a Category"),
        ``Category.DoesNotExist`` for an unknown parent; returns None when the
        move is allowed. ``move()`` checks again when it writes.
        """
        refuse_cycle(category.pk, category.name, self._read_parent(new_parent))

    def check_deletable(self, category):
        """Refuse, before any write, a delete of ``category`` that ``delete_category`` would refuse.

        Two reads at most. Raises ``CategoryNotEmpty`` (the message says why)
        while the category has subcategories or products listed in it;
        returns None when it may be deleted.
        """
        if self.collection.find_one({"parent_id": category.pk}, {"_id": 1}) is not None:
            raise CategoryNotEmpty(f"{category.name} still has subcategories: move or delete them first.")
        products = self.get_collection("products")
        if products.find_one({"categories": category.pk}, {"_id": 1}) is not None:
            raise CategoryNotEmpty(f"{category.name} still has products: move or delete them first.")
