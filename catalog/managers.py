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
from pymongo import ASCENDING, DESCENDING, TEXT, UpdateOne
from pymongo.errors import DuplicateKeyError, OperationFailure
from slugify import slugify

from shop.mongo import is_embedded, read_preference
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
    # An artist's products, newest first (as seed 001's actor index).
    (
        [("type", ASCENDING), ("details.artist", ASCENDING), ("details.issue_date", DESCENDING)],
        {"name": "type_artist_issue_date"},
    ),
    # Search-as-you-type: an anchored prefix pattern over the lower-cased title.
    ([("title_lower", ASCENDING), ("_id", ASCENDING)], {"name": "title_lower"}),
]

# Fields the storefront search looks in: the text index on a real server,
# the word-match fallback on the embedded engine.
SEARCH_FIELDS = ("title", "description", "details.artist", "details.tracks.title",
                 "details.actor", "details.director")
# The text index (seed 001 "Find movies with a particular word in the
# title", which now has its full-text index). ``migrate`` does not create it
# (the embedded engine has no $text); ``ensure_indexes`` does.
PRODUCT_TEXT_INDEX = (
    [(field, TEXT) for field in SEARCH_FIELDS],
    {"name": "product_text", "default_language": "english",
     "weights": {"title": 10, "details.artist": 5, "details.actor": 5, "details.director": 3,
                 "details.tracks.title": 2, "description": 1}},
)


def lower_title(title):
    """The form of a title the prefix search matches: case-folded (``"AC/DC"`` -> ``"ac/dc"``)."""
    return (title or "").casefold()


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


class MongoCollectionMixin:
    """Gives a manager ``collection``: the pymongo collection behind its model."""

    @property
    def collection(self):
        return connections[self.db].get_collection(self.model._meta.db_table)

    @property
    def read_collection(self):
        """``collection`` with the ``MONGODB_READ_PREFERENCE`` read preference (seed 001
        "Scaling read performance"), for the storefront's read-only queries.

        Reads that a write depends on use ``collection`` (the primary).
        """
        return self.collection.with_options(read_preference=read_preference())

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

    def top_level(self):
        """The categories without a parent, by name."""
        cursor = self.read_collection.find({"parent_id": None}, _TREE_FIELDS).sort("name", ASCENDING)
        return [self.from_document(d) for d in cursor]

    def children(self, category):
        """The direct subcategories of ``category``, by name."""
        cursor = self.read_collection.find({"parent_id": category.pk}).sort("name", ASCENDING)
        return [self.from_document(d) for d in cursor]

    def descendants(self, category):
        """Every category below ``category`` (through the ``ancestors._id`` index), in tree order."""
        cursor = self.read_collection.find({"ancestors._id": category.pk})
        return self.in_tree_order([self.from_document(d) for d in cursor])

    def subtree_and_top_level(self, category):
        """One read for a category page: the descendants of ``category`` and the top categories.

        Returns ``(descendants, top_level)``: the descendants in tree order,
        the top categories by name; both hold name, slug and parent only. The top categories feed the navigation, so the page
        needs no other category query.
        """
        cursor = self.read_collection.find(
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
        cursor = self.read_collection.find({"$or": [{"_id": {"$in": ids}}, {"parent_id": None}]})
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
        self._refuse_cycle(node["_id"], node["name"], parent_document)
        new_ancestors = []
        if parent_document is not None:
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
        from the names (``-2``, ``-3``... when taken), then one
        ``insert_many``. Returns the new Categories in order. Raises
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
        taken = {d["slug"] for d in self.collection.find({}, {"slug": 1})}
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
            document = {"_id": node["_id"], "name": name, "slug": slug, "parent_id": parent,
                        "ancestors": ancestors, "taxonomy_id": node.get("taxonomy_id")}
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

# What a product card shows: not the track lists.
_CARD_FIELDS = {"sku": 1, "type": 1, "title": 1, "pricing": 1, "details.artist": 1,
                "details.issue_date": 1, "details._label": 1}
_CARD_FIELD_NAMES = {"sku", "type", "title", "pricing", "details"}


class ProductManager(MongoCollectionMixin, models.Manager):
    """Seed 001's product catalog reads."""

    def get_by_sku(self, sku):
        """The product with ``sku`` (one read). Raises ``Product.DoesNotExist``."""
        document = self.read_collection.find_one({"sku": str(sku)})
        if document is None:
            raise self.model.DoesNotExist(f"No product with SKU {sku!r}.")
        return self.from_document(document)

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
        """The ``limit`` newest products (cards only), for the home page."""
        cursor = self.read_collection.find({}, _CARD_FIELDS).sort(SORTS["newest"]).limit(limit)
        return [self.from_document(d, _CARD_FIELD_NAMES) for d in cursor]

    def shipping_weights(self, skus):
        """``{sku: shipping weight in grams}`` of the products among ``skus`` (one read; 0 if unset)."""
        cursor = self.collection.find({"sku": {"$in": [str(s) for s in skus]}}, {"sku": 1, "shipping.weight": 1})
        return {d["sku"]: int((d.get("shipping") or {}).get("weight") or 0) for d in cursor}

    def count_by_category(self):
        """``{category_id: number of products listed in it}``, from one aggregation."""
        pipeline = [{"$unwind": "$categories"}, {"$group": {"_id": "$categories", "n": {"$sum": 1}}}]
        return {row["_id"]: row["n"] for row in self.read_collection.aggregate(pipeline)}

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

        Served by the ``(type, details.artist, details.issue_date -1)`` index.
        Returns a ``ProductQuery``.
        """
        return ProductQuery(self, {
            "type": {"$in": [self.model.AUDIO_ALBUM, self.model.TV_SEASON]},
            "details.artist": str(artist),
        }, SORTS["newest"])

    def by_actor(self, actor):
        """The films starring ``actor`` (exact name), newest first.

        Seed 001 "Find movies based on starring actor", served by the
        ``(type, details.actor, details.issue_date -1)`` index. Returns a
        ``ProductQuery``.
        """
        return ProductQuery(
            self, {"type": self.model.FILM, "details.actor": str(actor)}, SORTS["newest"]
        )

    def search(self, text, page=1, per_page=24):
        """Products matching the words of ``text`` (a shopper's query string).

        ``text`` is split into words (``search_words``); punctuation and
        operators (``.*``, ``$where``, ``{"$ne": 1}``) are never passed on as
        a pattern or an operator. On a real server: a ``$text`` query on the
        ``product_text`` index (``ensure_indexes``), best match first. On the
        embedded engine, which has no ``$text``: products where a word of
        ``SEARCH_FIELDS`` starts with one of the words, case-insensitive, by
        title; as it has no index, the count and the page (``page`` and
        ``per_page`` say which will be asked for) come from one aggregation,
        one scan (a ``ProductListing``). Returns a sequence for Paginator: a
        ``ProductQuery`` on a server (count, page: 2 round trips), a
        ``ProductListing`` on the embedded engine (1), an empty
        ``ProductQuery`` (no round trip) when ``text`` holds no word.
        """
        words = search_words(text)
        if not words:
            return ProductQuery(self, None, [])
        if is_embedded(self.db):
            pattern = r"\b(?:" + "|".join(re.escape(word) for word in words) + ")"
            condition = {"$regex": pattern, "$options": "i"}
            match = {"$or": [{field: condition} for field in SEARCH_FIELDS]}
            return self._listing(match, "title", page, per_page)
        score = {"$meta": "textScore"}
        return ProductQuery(
            self,
            {"$text": {"$search": " ".join(words)}},
            [("score", score), ("_id", ASCENDING)],
            projection={**_CARD_FIELDS, "score": score},
        )

    def suggest(self, prefix, limit=8):
        """Up to ``limit`` products whose title starts with ``prefix`` (any case), by title.

        Seed 001's index-friendly prefix pattern: an anchored, escaped
        pattern over ``title_lower`` (served by its index). Returns a list of
        Products with ``sku`` and ``title`` only; ``[]`` for a blank prefix.
        One round trip.
        """
        prefix = lower_title(str(prefix)).lstrip()[:MAX_SUGGEST_PREFIX]
        if not prefix:
            return []
        cursor = self.read_collection.find(
            {"title_lower": {"$regex": "^" + re.escape(prefix)}}, {"sku": 1, "title": 1}
        ).sort([("title_lower", ASCENDING), ("_id", ASCENDING)]).limit(int(limit))
        return [self.from_document(d, {"sku", "title"}) for d in cursor]


MAX_SEARCH_WORDS = 10
MAX_SUGGEST_PREFIX = 100


def search_words(text):
    """The words of a search query: runs of letters and digits, lower-cased, at most
    ``MAX_SEARCH_WORDS``, without repeats. ``"$where (Led) .*"`` -> ``["where", "led"]``."""
    words = []
    for word in re.findall(r"\w+", str(text or "").casefold()):
        if word not in words:
            words.append(word)
    return words[:MAX_SEARCH_WORDS]


class SearchUnavailable(CatalogError):
    """The server has no text index for ``$text`` (run ``python manage.py ensure_indexes``)."""


# The server's answer to a $text query without a text index.
_INDEX_NOT_FOUND = 27


class ProductQuery:
    """A filter and a sort over products, as a sequence for Django's Paginator.

    ``count()`` is one ``count_documents`` and each page one ``find`` with
    sort, skip and limit, both on the read preference's members: a page of
    results costs 2 round trips (1 when there is nothing to show). A
    ``match`` of None is a query that matches nothing (no round trip).
    Products come with the card fields only.
    """

    def __init__(self, manager, match, sort, projection=None):
        self.manager = manager
        self.match = match
        self.sort = sort
        self.projection = projection or _CARD_FIELDS
        self._total = None
        self._page = None

    def count(self):
        """How many products match (one ``count_documents``, then cached).

        Raises ``SearchUnavailable`` for a ``$text`` query on a server without
        the text index (as does reading a page).
        """
        if self._total is None:
            self._total = 0 if self.match is None else self._read(
                lambda: self.manager.read_collection.count_documents(self.match)
            )
        return self._total

    @staticmethod
    def _read(function):
        try:
            return function()
        except OperationFailure as error:
            if error.code == _INDEX_NOT_FOUND:
                raise SearchUnavailable(
                    "Search is not available: the text index is missing "
                    "(python manage.py ensure_indexes)."
                ) from error
            raise

    def __len__(self):
        return self.count()

    def __getitem__(self, index):
        if not isinstance(index, slice):
            return self[index:index + 1][0]
        start, stop = index.start or 0, index.stop
        if self.match is None or (stop is not None and stop <= start):
            return []
        if not self._has_read(start, stop):
            self._page = (start, stop, self._read(lambda: self._read_page(start, stop)))
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
        """The products of ``[start:stop]`` (``stop`` None: to the end): one ``find``."""
        cursor = self._cursor().skip(start)
        if stop is not None:
            cursor = cursor.limit(stop - start)
        fields = {key.split(".")[0] for key in self.projection} - {"score"}
        return [self.manager.from_document(d, fields) for d in cursor]

    def _cursor(self):
        cursor = self.manager.read_collection.find(self.match, self.projection)
        return cursor.sort(self.sort) if self.sort else cursor

    def explain(self):
        """The server's ``explain`` of the first page's find (a dict; real server only)."""
        return self._cursor().limit(1).explain()


class ProductListing(ProductQuery):
    """A ``ProductQuery`` whose count and page come from one aggregation.

    A ``$facet`` returns the total and the page together, so a paginated
    category page costs one round trip for its products (where a plain
    ``ProductQuery`` costs two). ``page_hint`` is the ``(start, stop)`` that
    Paginator will ask for; ``count()`` reads it along. Another slice costs
    one more aggregation. Sorting happens after the match, in memory: right
    for a category page's few hundred products, while the seed queries that
    an index sorts use a ``ProductQuery``.
    """

    def __init__(self, manager, match, sort, page_hint=(0, 24)):
        super().__init__(manager, match, sort)
        self.page_hint = page_hint

    def count(self):
        if self._total is None:
            self[slice(*self.page_hint)]
        return self._total

    def _read_page(self, start, stop):
        window = [{"$sort": dict(self.sort)}, {"$skip": start}]
        if stop is not None:
            window.append({"$limit": max(stop - start, 1)})
        pipeline = [
            {"$match": self.match},
            # Only what a card shows flows on (the sort keys are among it).
            {"$project": self.projection},
            {"$facet": {"total": [{"$count": "n"}], "items": window}},
        ]
        result = next(iter(self.manager.read_collection.aggregate(pipeline)), {"total": [], "items": []})
        self._total = result["total"][0]["n"] if result["total"] else 0
        return [self.manager.from_document(d, _CARD_FIELD_NAMES) for d in result["items"]]
