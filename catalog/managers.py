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
from django.db import connections, models
from pymongo import ASCENDING, DESCENDING, UpdateOne
from pymongo.errors import DuplicateKeyError
from slugify import slugify

from shop.mongo.documents import model_from_document


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


# Indexes the seeds prescribe, created by the catalog's migration
# (``create_catalog_indexes``). Those Django can declare (slug and SKU
# unique, the parent foreign key) come from the models themselves.
CATEGORY_INDEXES = [
    ([("ancestors._id", ASCENDING)], {"name": "ancestors_id"}),
]
PRODUCT_INDEXES = [
    ([("categories", ASCENDING)], {"name": "categories"}),
    (
        [("type", ASCENDING), ("details.genre", ASCENDING), ("details.issue_date", DESCENDING)],
        {"name": "type_genre_issue_date"},
    ),
    ([("pricing.pct_savings", ASCENDING)], {"name": "pct_savings"}),
    (
        [("type", ASCENDING), ("details.actor", ASCENDING), ("details.issue_date", DESCENDING)],
        {"name": "type_actor_issue_date"},
    ),
    (
        [("type", ASCENDING), ("details.issue_date", DESCENDING), ("title", ASCENDING)],
        {"name": "type_issue_date_title"},
    ),
    # Category pages sort by these: newest, price, title.
    ([("details.issue_date", DESCENDING)], {"name": "issue_date"}),
    ([("pricing.retail", ASCENDING)], {"name": "retail_price"}),
]


def create_catalog_indexes(using="default"):
    """Create the seed indexes above on ``categories`` and ``products`` (idempotent).

    Returns the list of index names. Called by ``catalog``'s migration.
    """
    connection = connections[using]
    names = []
    for table, indexes in (("categories", CATEGORY_INDEXES), ("products", PRODUCT_INDEXES)):
        collection = connection.get_collection(table)
        for keys, options in indexes:
            names.append(collection.create_index(keys, **options))
    return names


class MongoCollectionMixin:
    """Gives a manager ``collection``: the pymongo collection behind its model."""

    @property
    def collection(self):
        return connections[self.db].get_collection(self.model._meta.db_table)

    def from_document(self, document, fields=None):
        """A model instance from a raw document (see ``model_from_document``)."""
        return model_from_document(self.model, document, self.db, fields)


# Fields a category page needs of the categories below the one shown.
_TREE_FIELDS = {"name": 1, "slug": 1, "parent_id": 1}


class CategoryManager(MongoCollectionMixin, models.Manager):
    """Seed 000's category hierarchy operations, root-first ancestors."""

    # -- reads ---------------------------------------------------------

    def get_by_slug(self, slug):
        """The category with ``slug``, ancestors included: one read (seed 000 "Read and Display").

        ``category.ancestors`` are its breadcrumbs, root first. Raises
        ``Category.DoesNotExist`` for an unknown slug.
        """
        document = self.collection.find_one({"slug": str(slug)})
        if document is None:
            raise self.model.DoesNotExist(f"No category with slug {slug!r}.")
        return self.from_document(document)

    def breadcrumbs(self, slug):
        """Breadcrumbs for ``slug``: ``[{'name', 'slug'}, ...]`` root first, the category last.

        One read, projected to the names and slugs as in seed 000. Raises
        ``Category.DoesNotExist``.
        """
        document = self.collection.find_one(
            {"slug": str(slug)},
            {"_id": 0, "name": 1, "slug": 1, "ancestors.slug": 1, "ancestors.name": 1},
        )
        if document is None:
            raise self.model.DoesNotExist(f"No category with slug {slug!r}.")
        crumbs = [{"name": a["name"], "slug": a["slug"]} for a in document.get("ancestors", [])]
        return [*crumbs, {"name": document["name"], "slug": document["slug"]}]

    def top_level(self):
        """The categories without a parent, by name."""
        cursor = self.collection.find({"parent_id": None}, _TREE_FIELDS).sort("name", ASCENDING)
        return [self.from_document(d) for d in cursor]

    def children(self, category):
        """The direct subcategories of ``category``, by name."""
        cursor = self.collection.find({"parent_id": category.pk}).sort("name", ASCENDING)
        return [self.from_document(d) for d in cursor]

    def descendants(self, category):
        """Every category below ``category`` (through the ``ancestors._id`` index), in tree order."""
        cursor = self.collection.find({"ancestors._id": category.pk})
        return self.in_tree_order([self.from_document(d) for d in cursor])

    def subtree_and_top_level(self, category):
        """One read for a category page: the descendants of ``category`` and the top categories.

        Returns ``(descendants, top_level)``: the descendants in tree order,
        the top categories by name; both hold name, slug and parent only. The top categories feed the navigation, so the page
        needs no other category query.
        """
        cursor = self.collection.find(
            {"$or": [{"ancestors._id": category.pk}, {"parent_id": None}]}, _TREE_FIELDS
        )
        descendants, top = [], []
        for document in cursor:
            node = self.from_document(document)
            (top if document.get("parent_id") is None else descendants).append(node)
        top.sort(key=lambda c: c.name.lower())
        return self.in_tree_order(descendants), top

    def with_top_level(self, ids):
        """One read for a product page: the categories ``ids`` and the top categories.

        Returns ``(categories, top_level)``: the categories among ``ids``
        (with ancestors, for breadcrumbs) in the order of ``ids``, and the top
        categories by name.
        """
        ids = list(ids)
        cursor = self.collection.find({"$or": [{"_id": {"$in": ids}}, {"parent_id": None}]})
        by_id, top = {}, []
        for document in cursor:
            node = self.from_document(document)
            if document["_id"] in ids:
                by_id[document["_id"]] = node
            if document.get("parent_id") is None:
                top.append(node)
        top.sort(key=lambda c: c.name.lower())
        return [by_id[i] for i in ids if i in by_id], top

    def tree(self, max_depth=None):
        """All categories (or those at most ``max_depth`` deep: 0 = top only) in tree order. One read."""
        query = {} if max_depth is None else {f"ancestors.{max_depth}": {"$exists": False}}
        return self.in_tree_order([self.from_document(d) for d in self.collection.find(query)])

    @staticmethod
    def in_tree_order(categories):
        """Sort categories depth first: each parent followed by its subtree, siblings by name."""

        def key(category):
            names = [a.name.lower() for a in category.ancestors] if category.ancestors else []
            return [*names, category.name.lower()]

        if all("ancestors" in c.__dict__ for c in categories):
            return sorted(categories, key=key)
        # Projected reads carry no ancestors: order by parent links instead.
        by_parent = {}
        for category in categories:
            by_parent.setdefault(category.parent_id, []).append(category)
        ids = {c.pk for c in categories}
        roots = [c for c in categories if c.parent_id not in ids]
        ordered = []

        def walk(nodes):
            for node in sorted(nodes, key=lambda c: c.name.lower()):
                ordered.append(node)
                walk(by_parent.get(node.pk, []))

        walk(roots)
        return ordered

    # -- writes --------------------------------------------------------

    def _free_slug(self, name, slug=None):
        """A slug for ``name`` (or the given ``slug``) no category has yet: ``rock``, ``rock-2``, ..."""
        base = slugify(slug or name, max_length=180) or "category"
        pattern = f"^{re.escape(base)}(-[0-9]+)?$"
        taken = {d["slug"] for d in self.collection.find({"slug": {"$regex": pattern}}, {"slug": 1})}
        if base not in taken:
            return base
        number = 2
        while f"{base}-{number}" in taken:
            number += 1
        return f"{base}-{number}"

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
        ``name``; when taken, ``-2``, ``-3``... is appended. Returns the new
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
        for _attempt in range(5):
            document["slug"] = self._free_slug(name, slug)
            document.pop("_id", None)
            try:
                self.collection.insert_one(document)
            except DuplicateKeyError:
                continue  # Another writer took the slug in between: pick again.
            return self.from_document(document)
        raise SlugTaken(f"Could not find a free slug for {name!r}.")

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

    def move(self, category, new_parent):
        """Move ``category`` (with its subtree) under ``new_parent`` (a Category, id or None).

        Seed 000 "Move a Category": refuses a move under the category itself
        or one of its descendants (``InvalidMove``, nothing changed); reads
        the subtree once through the ``ancestors._id`` index and rewrites the
        ancestors of the category and every descendant in one ``bulk_write``.
        Returns the moved Category. Raises ``Category.DoesNotExist`` for an
        unknown parent.
        """
        node = self.collection.find_one({"_id": category.pk}, {"slug": 1, "name": 1, "ancestors": 1})
        if node is None:
            raise self.model.DoesNotExist(f"No category {category.pk}.")
        parent_document = self._read_parent(new_parent)
        new_ancestors = []
        if parent_document is not None:
            if parent_document["_id"] == node["_id"]:
                raise InvalidMove(f"{node['name']} cannot be moved under itself.")
            if any(a["_id"] == node["_id"] for a in parent_document.get("ancestors", [])):
                raise InvalidMove(
                    f"{node['name']} cannot be moved under {parent_document['name']}, "
                    "which is one of its own subcategories."
                )
            new_ancestors = [*parent_document.get("ancestors", []), self._crumb(parent_document)]
        node_crumb = self._crumb(node)
        updates = [
            UpdateOne(
                {"_id": node["_id"]},
                {"$set": {
                    "parent_id": parent_document["_id"] if parent_document else None,
                    "ancestors": new_ancestors,
                }},
            )
        ]
        for descendant in self.collection.find({"ancestors._id": node["_id"]}, {"ancestors": 1}):
            old = descendant["ancestors"]
            below = next(i for i, a in enumerate(old) if a["_id"] == node["_id"])
            rebuilt = [*new_ancestors, node_crumb, *old[below + 1:]]
            updates.append(UpdateOne({"_id": descendant["_id"]}, {"$set": {"ancestors": rebuilt}}))
        self.collection.bulk_write(updates, ordered=False)
        category.parent_id = parent_document["_id"] if parent_document else None
        category.ancestors = self.from_document({"ancestors": new_ancestors}).ancestors
        return category

    def delete_category(self, category):
        """Delete ``category``; refused (``CategoryNotEmpty``, nothing changed) while it has
        subcategories or products listed in it."""
        if self.collection.find_one({"parent_id": category.pk}, {"_id": 1}) is not None:
            raise CategoryNotEmpty(f"{category.name} still has subcategories: move or delete them first.")
        from .models import Product

        if Product.objects.collection.find_one({"categories": category.pk}, {"_id": 1}) is not None:
            raise CategoryNotEmpty(f"{category.name} still has products: move or delete them first.")
        self.collection.delete_one({"_id": category.pk})

    def delete_all(self):
        """Delete every category; returns how many. (``load_catalog --reset``.)"""
        return self.collection.delete_many({}).deleted_count


SORTS = {
    "newest": [("details.issue_date", DESCENDING), ("_id", ASCENDING)],
    "price": [("pricing.retail", ASCENDING), ("_id", ASCENDING)],
    "-price": [("pricing.retail", DESCENDING), ("_id", ASCENDING)],
    "title": [("title", ASCENDING), ("_id", ASCENDING)],
}
SORT_LABELS = {"newest": "Newest", "price": "Price: low to high", "-price": "Price: high to low",
               "title": "Title"}
DEFAULT_SORT = "newest"

# What a product card shows: not the track lists.
_CARD_FIELDS = {"sku": 1, "type": 1, "title": 1, "pricing": 1, "details.artist": 1,
                "details.issue_date": 1, "details._label": 1}
_CARD_FIELD_NAMES = {"sku", "type", "title", "pricing", "details"}


class ProductListing:
    """The products of a set of categories, sorted: a sequence for Django's Paginator.

    ``count()`` and the requested page come from one aggregation (a
    ``$facet`` with the total and the page), so a paginated category page
    costs one round trip for its products. Another slice costs one more.
    """

    def __init__(self, manager, category_ids, sort, page_hint=(0, 24)):
        self.manager = manager
        self.match = {"categories": {"$in": list(category_ids)}}
        self.sort = SORTS[sort]
        self.page_hint = page_hint
        self._total = None
        self._page = None

    def _run(self, start, stop):
        pipeline = [
            {"$match": self.match},
            # Only what a card shows flows on (the sort keys are among it).
            {"$project": _CARD_FIELDS},
            {"$facet": {
                "total": [{"$count": "n"}],
                "items": [
                    {"$sort": dict(self.sort)},
                    {"$skip": start},
                    {"$limit": max(stop - start, 1)},
                ],
            }},
        ]
        result = next(iter(self.manager.collection.aggregate(pipeline)), {"total": [], "items": []})
        self._total = result["total"][0]["n"] if result["total"] else 0
        self._page = (start, stop, [self.manager.from_document(d, _CARD_FIELD_NAMES)
                                    for d in result["items"]])

    def count(self):
        if self._total is None:
            self._run(*self.page_hint)
        return self._total

    def __len__(self):
        return self.count()

    def __getitem__(self, index):
        if not isinstance(index, slice):
            return self[index:index + 1][0]
        start, stop = index.start or 0, index.stop
        if stop is None:
            stop = self.count()
        cached_start, cached_stop, items = self._page or (0, 0, [])
        # Within the window already read (Paginator trims the last page to the count).
        if not (cached_start <= start and (stop <= cached_stop or len(items) < cached_stop - cached_start)):
            self._run(start, stop)
            cached_start, cached_stop, items = self._page
        return items[start - cached_start:stop - cached_start]


class ProductManager(MongoCollectionMixin, models.Manager):
    """Seed 001's product catalog reads."""

    def get_by_sku(self, sku):
        """The product with ``sku`` (one read). Raises ``Product.DoesNotExist``."""
        document = self.collection.find_one({"sku": str(sku)})
        if document is None:
            raise self.model.DoesNotExist(f"No product with SKU {sku!r}.")
        return self.from_document(document)

    def listing(self, category_ids, sort=DEFAULT_SORT, page=1, per_page=24):
        """The products listed in any of ``category_ids``, sorted by ``sort`` (a key of ``SORTS``).

        Returns a ``ProductListing`` for ``django.core.paginator.Paginator``;
        ``page`` and ``per_page`` tell it which page will be asked for, so the
        count and that page come from a single aggregation. Raises KeyError
        for an unknown sort.
        """
        start = (max(page, 1) - 1) * per_page
        return ProductListing(self, category_ids, sort, page_hint=(start, start + per_page))

    def newest(self, limit=8):
        """The ``limit`` newest products (cards only), for the home page."""
        cursor = self.collection.find({}, _CARD_FIELDS).sort(SORTS["newest"]).limit(limit)
        return [self.from_document(d, _CARD_FIELD_NAMES) for d in cursor]

    def count_by_category(self):
        """``{category_id: number of products listed in it}``, from one aggregation."""
        pipeline = [{"$unwind": "$categories"}, {"$group": {"_id": "$categories", "n": {"$sum": 1}}}]
        return {row["_id"]: row["n"] for row in self.collection.aggregate(pipeline)}

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
