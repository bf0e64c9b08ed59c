"""``Category.objects``: the "Category Hierarchy" use case's category tree, read and changed as raw pymongo.

Every category stores its ancestors root first, parent last, as ``{_id,
slug, name}``, so that breadcrumbs come from one read and a subtree from
one indexed query (``ancestors._id``). The reads are here; adding,
renaming, moving and deleting (which keep every ``ancestors`` array and
``position`` right) are ``Category.writes``
(``catalog/tree/category_writes.py``). See ``docs/operations.md``
("Category Hierarchy" use case).

The storefront's reads (a category by slug, its subtree, the top
categories, a product's categories, the tree for the home page) go through
the catalog cache (``catalog/store/cache.py``), keyed by the versions of what
they show: the round trips each docstring counts are those of a cold cache.
"""

from django.db import models

from core.mongo.collections import MongoCollectionMixin

from catalog.tree.breadcrumbs import crumb_trail
from catalog.store.cache import (NAVIGATION, TREE, cached, category_scope, hint, in_request, listing_page_scope, names_scope,
                     prefetch, remember)
from catalog.store.subdocument_reads import SubdocumentMixin
from catalog.tree.nodes import TreeNode, in_tree_order, listed_in, sibling_key

# Fields a category page needs of the categories below the one shown.
_TREE_FIELDS = {"name": 1, "slug": 1, "parent_id": 1, "position": 1}
# The same as model fields: a category stored without one of them (a position
# never numbered) reads as None, rather than as a deferred field that would
# cost a query per category when the page reads it.
_TREE_FIELD_NAMES = {"name", "slug", "parent", "position"}


def _above(document):
    """The ids of a category document's ancestors, root first (a tuple)."""
    return tuple(a["_id"] for a in document.get("ancestors") or [])


class CategoryManager(SubdocumentMixin, MongoCollectionMixin, models.Manager):
    """The "Category Hierarchy" use case's operations, root-first ancestors; the FoundationDB "Hierarchical Documents" recipe's reads by path."""

    def get_by_slug(self, slug):
        """The category with ``slug``, ancestors included: one read ("Category Hierarchy" use case "Read and Display").

        ``category.ancestors`` are its breadcrumbs, root first. Raises
        ``Category.DoesNotExist`` for an unknown slug.
        """
        slug = str(slug)
        # The slug's id and ancestors' ids, remembered from an earlier request, name the
        # versions the document is cached under, so the page's first cached read reads them
        # all in one round trip; checked against the document (a slug changes hands).
        if not in_request():
            document = self.read_collection.find_one({"slug": slug})
            if document is None:
                raise self.model.DoesNotExist(f"No category with slug {slug!r}.")
            return self.from_document(document)
        known = hint("category-slug", slug)
        if known is not None:
            prefetch(listing_page_scope(known[0]))  # what its listing's cached reads need
            document = self._cached_by_id(*known)
            if document is not None and document.get("slug") == slug and _above(document) == known[1]:
                return self.from_document(document)
        found = self.read_collection.find_one({"slug": slug}, {"ancestors._id": 1})
        if found is None:
            raise self.model.DoesNotExist(f"No category with slug {slug!r}.")
        known = (found["_id"], _above(found))
        remember("category-slug", slug, known)
        prefetch(listing_page_scope(known[0]))
        # Read again under its versions, read first: a write between the two reads is never
        # kept under a version that follows it.
        document = self._cached_by_id(*known)
        if document is None or document.get("slug") != slug:
            document = self.read_collection.find_one({"slug": slug})
            if document is None:
                raise self.model.DoesNotExist(f"No category with slug {slug!r}.")
        return self.from_document(document)

    def _cached_by_id(self, category_id, above):
        """The category document ``category_id`` (None if none), cached under its version and
        its ancestors' (``above``) names."""
        return cached("category", category_id, lambda: self.read_collection.find_one({"_id": category_id}),
                      category_scope([category_id]) + names_scope(above))

    def breadcrumbs(self, slug):
        """Breadcrumbs for ``slug``: ``[{'name', 'slug'}, ...]`` root first, the category last.

        One read, projected to the names and slugs as in the "Category Hierarchy" use case; the list
        is ``breadcrumbs.crumb_trail``'s. Raises ``Category.DoesNotExist``.
        """
        document = self.read_collection.find_one(
            {"slug": str(slug)},
            {"_id": 0, "name": 1, "slug": 1, "ancestors.slug": 1, "ancestors.name": 1},
        )
        if document is None:
            raise self.model.DoesNotExist(f"No category with slug {slug!r}.")
        return crumb_trail(self.from_document(document, {"name", "slug", "ancestors"}))

    def read_by_path(self, slug, steps=()):
        """The category document with ``slug``, or its value at ``steps`` (FoundationDB "Hierarchical Documents" recipe): one read.

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
        documents = cached("top_level", None, lambda: list(
            self.read_collection.find({"parent_id": None}, _TREE_FIELDS)), (NAVIGATION,))
        return sorted((self.from_document(d, _TREE_FIELD_NAMES) for d in documents), key=sibling_key)

    def children(self, category):
        """The direct subcategories of ``category``, in sibling order (``position``)."""
        cursor = self.read_collection.find({"parent_id": category.pk})
        return sorted((self.from_document(d) for d in cursor), key=sibling_key)

    def descendants(self, category):
        """Every category below ``category`` (through the ``ancestors._id`` index), in tree order."""
        cursor = self.read_collection.find({"ancestors._id": category.pk})
        return in_tree_order([self.from_document(d) for d in cursor])

    def children_and_top_level(self, category):
        """The subcategories of ``category`` and the top categories, for a category page.

        Returns ``(children, top_level)``: the direct subcategories and the
        top categories, each in sibling order (``position``), holding name,
        slug, parent and position only. The top categories feed the
        navigation, so the page needs no other category query. Two reads,
        each cached and served by the ``parent_id`` index (as one ``$or``
        query MongoDB serves it from the index, but SecantusDB 0.7.0b3 scans
        (docs/local-server-differences.md: local-server difference 13)
        the collection for any ``$or``). Only the children are read: a top
        category of the generated catalog has about 500 categories below
        it, and turning them all into models cost a warm page 12 ms.
        """
        documents = cached("children", category.pk, lambda: list(
            self.read_collection.find({"parent_id": category.pk}, _TREE_FIELDS)), category_scope([category.pk]))
        children = sorted((self.from_document(d, _TREE_FIELD_NAMES) for d in documents), key=sibling_key)
        return children, self.top_level()

    def with_top_level(self, ids):
        """The categories ``ids`` and the top categories, for a product page.

        Returns ``(categories, top_level)``: the categories among ``ids``
        (with ancestors, for breadcrumbs) in the order of ``ids``, and the top
        categories in sibling order. Two indexed reads (one when ``ids`` is empty),
        not one ``$or``: see ``children_and_top_level``.
        """
        ids = list(ids)
        documents = cached("categories", tuple(ids), lambda: list(
            self.read_collection.find({"_id": {"$in": ids}})), (TREE,)) if ids else []
        by_id = {d["_id"]: self.from_document(d) for d in documents}
        return [by_id[i] for i in ids if i in by_id], self.top_level()

    def ancestor_ids(self, ids):
        """``{category id: [its ancestors' ids, root first]}`` for the categories among ``ids``:
        one read from the primary (a write depends on it), none for no ids."""
        ids = list(set(ids))
        if not ids:
            return {}
        cursor = self.collection.find({"_id": {"$in": ids}}, {"ancestors._id": 1})
        return {d["_id"]: [a["_id"] for a in d.get("ancestors", [])] for d in cursor}

    def listed_in(self, ids):
        """What a product listed in the categories ``ids`` stores as ``listed_in``: those
        categories and all their ancestors (``tree.listed_in``). One read; none for no ids."""
        ids = list(ids)
        return listed_in(ids, self.ancestor_ids(ids))

    def tree(self, max_depth=None):
        """All categories (or those at most ``max_depth`` deep: 0 = top only) in tree order.
        One read of every category; with ``max_depth``, one read per level on the
        ``parent_id`` index (the top categories, then the children of those read: 2 for the
        home page's), which examines the levels' categories only, where a filter on the
        depth of ``ancestors`` has no index and examines every category (5,000 at
        ``populatedb``'s size: about 0.2 s on the local server)."""
        scope = (NAVIGATION,) if max_depth is not None and max_depth <= 1 else (TREE,)

        def read():
            if max_depth is None:
                return list(self.collection.find({}))
            documents, parents = [], None
            for _depth in range(int(max_depth) + 1):
                level = list(self.collection.find({"parent_id": None} if parents is None
                                                  else {"parent_id": {"$in": parents}}))
                documents += level
                parents = [d["_id"] for d in level]
                if not parents:
                    break
            return documents

        documents = cached("tree", max_depth, read, scope)
        return in_tree_order([self.from_document(d) for d in documents])

    def tree_nodes(self):
        """Every category as a light ``TreeNode`` (no model instance), in tree order. One read.

        What the admin's tree shows of 5,000 categories and more: the name,
        slug, parent, position and the ids of the ancestors, read with a
        projection and never turned into Django models (on the embedded
        engine, 5,582 categories: 1.3 s for the admin page instead of 5.5 s).
        """
        cursor = self.collection.find({}, {**_TREE_FIELDS, "ancestors": 1})
        return in_tree_order([TreeNode(d) for d in cursor])

    def ids_by_path(self):
        """``{path: category id}`` of every category, the path being the names from the root
        down joined by ``" > "`` (``Category.path``), e.g. ``"Music > Rock"``: one read (the
        imports resolve categories by path with it)."""
        names = {d["_id"]: (d["name"], [a["_id"] for a in d.get("ancestors", [])])
                 for d in self.collection.find({}, {"name": 1, "ancestors._id": 1})}
        paths = {}
        for category_id, (name, ancestor_ids) in names.items():
            if all(a in names for a in ancestor_ids):
                paths[" > ".join([*(names[a][0] for a in ancestor_ids), name])] = category_id
        return paths
