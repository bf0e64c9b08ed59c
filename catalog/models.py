"""Catalog documents: categories with embedded ancestors, product types, products with their type's details.

The shapes are the ``categories`` and ``products`` collections of
``docs/collections.md`` ("Category Hierarchy" use case). Money is integer cents; times
are UTC. The ORM serves forms, the admin and simple reads; the sources'
multi-document operations live on the managers (each beside its job: ``catalog/tree/``, ``catalog/products/``, ``catalog/listings/``, ``catalog/media/``, ``catalog/store/``).
"""

from django.db import models
from django.urls import reverse
from django_mongodb_backend.fields import (
    ArrayField,
    EmbeddedModelArrayField,
    EmbeddedModelField,
    ObjectIdField,
)
from django_mongodb_backend.models import EmbeddedModel
from imagekit.models import ImageSpecField

from catalog.products.attributes import FIELD_KIND_CHOICES, KIND_CHOICES, validate_code
from catalog.fields import SubdocumentField
from catalog.media.gallery import GalleryImage, ProductImage  # noqa: F401 (a product's images)
from catalog.products.variants import line_title, options_label
from catalog.media.covers import CARD_SIZE, PAGE_SIZE, cover_processors, validate_cover
from catalog.listings.count_manager import ListingCountManager
from catalog.listings.facet_count_manager import FacetCountManager
from catalog.listings.facet_manager import FacetManager
from catalog.listings.order_count_manager import OrderCountManager
from catalog.listings.savings_count_manager import SavingsCountManager
from catalog.listings.window_manager import NewestWindowManager
from catalog.listings.manager import ListingManager
from catalog.listings.search_manager import SearchManager
from catalog.listings.search_summary import SearchSummaryManager
from catalog.products.export_manager import ProductExportManager
from catalog.products.import_manager import ProductImportManager
from catalog.products.manager import ProductManager
from catalog.products.write_manager import ProductWriteManager
from catalog.products.type_manager import ProductTypeManager
from catalog.store.versions import CatalogVersionManager
from catalog.tree.category_manager import CategoryManager
from catalog.tree.category_writes import CategoryWriteManager
from catalog.products.report_manager import CatalogReportManager
from catalog.store.writes import facts as document_facts
from catalog.store.writes import prepare_product, products_changing
from core.mongo.documents import model_to_document
from catalog.products.attributes import clean_details


# Tax classes as ``taxes.models.TAX_CLASSES`` (kept here so the catalog imports no app of the
# order side); "" means "not set here".
TAX_CLASS_CHOICES = [("", "(not set)"), ("standard", "Standard"), ("reduced", "Reduced"), ("zero", "Zero")]


class Ancestor(EmbeddedModel):
    """One breadcrumb: ``{_id, slug, name}`` of a category above this one."""

    slug = models.CharField(max_length=200)
    name = models.CharField(max_length=200)

    def get_absolute_url(self):
        return reverse("catalog:category", args=[self.slug])

    def __str__(self):
        return self.name


class Category(models.Model):
    """A node of the category tree ("Category Hierarchy" use case).

    ``ancestors`` lists every category above this one, root first and parent
    last, each as ``{_id, slug, name}``, so that breadcrumbs come from one
    read and the descendants of a node are ``{'ancestors._id': node}``.
    ``position`` orders siblings (the storefront and the admin list them by
    it). Change the tree through ``Category.writes`` (create, rename, move,
    delete), which keeps every ``ancestors`` array and position right.
    """

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=200, unique=True)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="children"
    )
    ancestors = EmbeddedModelArrayField(Ancestor, default=list, blank=True)
    # The ID of the category in an imported taxonomy file (import_taxonomy).
    taxonomy_id = models.IntegerField(null=True, blank=True)
    # Its place among its siblings (0 first); set by Category.writes when it
    # adds or moves a node. Ties (concurrent adds) fall back to the name.
    position = models.IntegerField(default=0, editable=False)

    # ``objects``, declared first, is the default manager (reads, the ORM); changes to the tree
    # are ``writes`` (docs/architecture.md).
    objects = CategoryManager()
    writes = CategoryWriteManager()

    class Meta:
        db_table = "categories"
        verbose_name_plural = "categories"
        ordering = ["name"]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("catalog:category", args=[self.slug])

    @property
    def depth(self):
        """0 for a top category, 1 for its children, ..."""
        return len(self.ancestors)

    @property
    def path(self):
        """Names from the root down to this category, e.g. ``"Music > Rock > Metal"``."""
        return " > ".join([*(a.name for a in self.ancestors), self.name])


class Dimensions(EmbeddedModel):
    """Package size in millimetres."""

    width = models.PositiveIntegerField(default=0)
    height = models.PositiveIntegerField(default=0)
    depth = models.PositiveIntegerField(default=0)


class Shipping(EmbeddedModel):
    """Shipping data: ``weight`` in grams, ``dimensions`` in millimetres."""

    weight = models.PositiveIntegerField(default=0)
    dimensions = EmbeddedModelField(Dimensions, null=True, blank=True)


class Pricing(EmbeddedModel):
    """Prices in cents ("Product Catalog" use case): ``savings = list - retail``, ``pct_savings`` in whole percent."""

    list = models.PositiveIntegerField()
    retail = models.PositiveIntegerField()
    savings = models.PositiveIntegerField(default=0)
    pct_savings = models.PositiveIntegerField(default=0)

    @classmethod
    def from_prices(cls, list_cents, retail_cents):
        """Build pricing from a list and a retail price in cents; derive the savings."""
        savings = max(list_cents - retail_cents, 0)
        pct = savings * 100 // list_cents if list_cents else 0
        return cls(list=list_cents, retail=retail_cents, savings=savings, pct_savings=pct)


class AttributeBase(EmbeddedModel):
    """What an attribute and a records' field share (see ``Attribute``)."""

    code = models.CharField(max_length=64, validators=[validate_code])
    label = models.CharField(max_length=200, blank=True, default="")
    unit = models.CharField(max_length=20, blank=True, default="",
                            help_text='For numbers: what they count, e.g. "g", "min", "cents".')
    choices = ArrayField(models.CharField(max_length=200), default=list, blank=True,
                         help_text="For choice and multiple choice: the values, comma-separated.")
    required = models.BooleanField(default=False)
    many = models.BooleanField(default=False, help_text="For text: a list of texts (e.g. actors).")
    facet = models.BooleanField(default=False)
    variant = models.BooleanField(default=False)

    class Meta:
        abstract = True

    def __str__(self):
        return self.code

    @property
    def name(self):
        """The label shown to shoppers and staff (the code when there is no label)."""
        return self.label or self.code


class Variant(EmbeddedModel):
    """One SKU a product sells (``catalog/products/variants.py``): its ``sku`` (unique across products
    and variants), ``options`` (``{<variant attribute code>: value}``, e.g. ``{"format":
    "Vinyl"}``, checked by ``catalog.products.attributes.clean_variant_options``) and ``pricing``
    (cents), and optionally its own ``image``: the path of a picture in the default storage
    (under ``products/``, uploaded in the admin's variant row) that the product page shows
    as its cover while the variant is chosen ("" for none: the product's cover). Its stock
    is the inventory document whose ``_id`` is its SKU."""

    sku = models.CharField("SKU", max_length=64)
    options = models.JSONField(default=dict, blank=True)
    pricing = EmbeddedModelField(Pricing)
    image = models.CharField(max_length=255, blank=True, default="")

    @property
    def label(self):
        """The options as shoppers read them (``"Vinyl"``)."""
        return options_label(self.options)


class RecordField(AttributeBase):
    """A field of the records of a ``records`` attribute (an album's track: number, title,
    composer, duration, price): an attribute without records of its own; ``kind`` is one of
    ``catalog.products.attributes.KINDS`` but ``records``."""

    kind = models.CharField(max_length=20, choices=FIELD_KIND_CHOICES, default="text")


class Attribute(AttributeBase):
    """An attribute of a product type: ``{code, label, kind, unit, choices, required, facet,
    variant, many, fields}``.

    ``code`` is the key of the value in a product's ``details``; ``kind`` one
    of ``catalog.products.attributes.KINDS``; ``unit`` for numbers; ``choices`` for
    choice and multiple choice; ``required``: every product of the type has a
    value; ``facet``: shown as a facet on listings; ``variant``: distinguishes
    the variants of a product (an album's format: CD, Vinyl); ``many`` on text:
    a list of texts; ``fields``: the fields of each record of a ``records``
    attribute.
    """

    kind = models.CharField(max_length=20, choices=KIND_CHOICES, default="text")
    fields = EmbeddedModelArrayField(RecordField, default=list, blank=True)


class ProductType(models.Model):
    """A product type staff define ("Product Catalog" use case's ``type``): a name and its attributes.

    ``name`` is the string products store in their ``type``; ``attributes``
    (embedded in the type's document, in display order) say what a product of
    the type holds in its ``details``. Read through ``ProductType.objects``
    (``by_name``, cached with the catalog); written by the admin through
    ``ProductType.objects.save_type``, which rewrites the stored products a
    rename changes.
    """

    name = models.CharField(max_length=40, unique=True)
    slug = models.SlugField(max_length=60, unique=True)
    attributes = EmbeddedModelArrayField(Attribute, default=list, blank=True)
    # The tax class of its products (taxes.models.TAX_CLASSES); "" for standard.
    tax_class = models.CharField(max_length=10, blank=True, default="", choices=TAX_CLASS_CHOICES,
                                 help_text="the rate its products are taxed at; a product can override it")

    objects = ProductTypeManager()

    class Meta:
        db_table = "product_types"
        ordering = ["name"]

    def __str__(self):
        return self.name

    def attribute(self, code):
        """The attribute ``code``, or None."""
        return next((a for a in self.attributes or [] if a.code == code), None)

    @property
    def variant_attributes(self):
        """The attributes that distinguish variants (``variant=True``), in display order."""
        return [a for a in self.attributes or [] if a.variant]

    @property
    def facet_attributes(self):
        """The attributes shown as facets (``facet=True``), in display order."""
        return [a for a in self.attributes or [] if a.facet]


class Product(models.Model):
    """A product ("Product Catalog" use case): common fields, then ``details`` of its type.

    ``categories`` holds the ObjectIds of the categories the product is
    listed in; a category page lists the products of the category and all
    its descendants.
    """

    sku = models.CharField("SKU", max_length=64, unique=True)
    # The name of its ProductType (``product_types``); renamed with the type.
    type = models.CharField(max_length=40)
    title = models.CharField(max_length=300)
    # The title lower-cased, for the index-friendly prefix search ("Product Catalog" use case
    # "Regular Expression Pitfalls"); kept in sync by save() and sync().
    title_lower = models.CharField(max_length=300, blank=True, default="", editable=False)
    # The product's distinct words, for the storefront search's multikey index
    # (catalog/products/keywords.py); kept in sync by save() and sync().
    keywords = ArrayField(models.CharField(max_length=64), default=list, blank=True, editable=False)
    description = models.TextField(blank=True, default="")
    categories = ArrayField(ObjectIdField(), default=list, blank=True)
    # The ids of ``categories`` and of all their ancestors, so that the products of a
    # category and its whole subtree are one equality, ``{listed_in: id}``;
    # kept by save(), Product.writes.sync and Category.writes.move.
    listed_in = ArrayField(ObjectIdField(), default=list, blank=True, editable=False)
    # "<category id>:<code>:<value>" of each category of ``listed_in`` and each value of its
    # variants' options (catalog/products/variants.py ``variant_in``): a category page narrowed
    # by a variant attribute reads its products on one index; kept with ``listed_in``.
    variant_in = ArrayField(models.CharField(max_length=400), default=list, blank=True, editable=False)
    shipping = EmbeddedModelField(Shipping, null=True, blank=True)
    pricing = EmbeddedModelField(Pricing)
    # Overrides its type's tax class (taxes.models.TAX_CLASSES); "" for the type's.
    tax_class = models.CharField(max_length=10, blank=True, default="", choices=TAX_CLASS_CHOICES,
                                 help_text="blank: its product type's tax class")
    # The values of its type's attributes, {code: value}, checked by clean_details on save.
    details = SubdocumentField(null=True, blank=True)
    # The SKUs it sells when it has variants (catalog/products/variants.py): each with its options,
    # prices and own stock. Without variants the product sells its own ``sku``.
    variants = EmbeddedModelArrayField(Variant, default=list, blank=True)
    # ``sku`` and every variant SKU: the product of any SKU is one equality on the ``skus``
    # index, which also refuses a SKU used twice. Kept by save() and sync().
    skus = ArrayField(models.CharField(max_length=64), default=list, blank=True, editable=False)
    # The cover: the path of its first image (ProductImage.objects.sync keeps it; "" for
    # none: the pages then show a generated cover, see catalog/media/covers.py).
    image = models.ImageField(
        "cover image", upload_to="covers/", blank=True, default="", validators=[validate_cover],
        help_text="JPEG, PNG or WebP, square is best; shown cropped to a square.",
    )
    # A product's images (ProductImage, catalog/media/gallery.py) as its pages show them, in
    # position order; ``image`` above is the first's path. Written by ProductImage.objects.sync.
    images = EmbeddedModelArrayField(GalleryImage, default=list, blank=True, editable=False)
    # The sizes shown, made once by django-imagekit from ``image`` (not stored fields).
    cover_card = ImageSpecField(source="image", processors=cover_processors(CARD_SIZE),
                                format="JPEG", options={"quality": 85})
    cover_card_2x = ImageSpecField(source="image", processors=cover_processors(CARD_SIZE * 2),
                                   format="JPEG", options={"quality": 80})
    cover_page = ImageSpecField(source="image", processors=cover_processors(PAGE_SIZE),
                                format="JPEG", options={"quality": 85})
    cover_page_2x = ImageSpecField(source="image", processors=cover_processors(PAGE_SIZE * 2),
                                   format="JPEG", options={"quality": 80})

    # One manager per job (docs/architecture.md, "Managers are raw pymongo"); ``objects``,
    # declared first, is Django's default manager (the admin, forms, the ORM's reads).
    objects = ProductManager()
    listings = ListingManager()
    search = SearchManager()
    facets = FacetManager()
    writes = ProductWriteManager()
    imports = ProductImportManager()
    exports = ProductExportManager()
    reports = CatalogReportManager()

    class Meta:
        db_table = "products"
        ordering = ["title"]

    def __str__(self):
        return f"{self.title} ({self.sku})"

    def save(self, *args, **kwargs):
        """Save through the catalog's write owner (``catalog/store/writes.py``): validated
        (``clean_product``: its details against its type, raising ValidationError), with ``title_lower``, ``keywords`` and ``listed_in`` derived
        (one read of its categories), the kept counts of the categories it enters or leaves
        marked and recounted (one read of what is stored; 3 more round trips when its
        categories change) and, once saved, the versions of its pages bumped (one write); when
        it changes what its categories' facets count, their kept counts moved by it (up to 6
        more round trips: ``catalog.listings.facet_parts.PartsShift``); when it changes what a
        search shows of it, the kept summaries of its words' searches moved by it (2 more round
        trips, up to 6 when some are kept: ``catalog.listings.search_shift.WordsShift``)."""
        prepare_product(self, kwargs.get("using") or "default")
        update_fields = kwargs.get("update_fields")
        if update_fields is not None:
            kwargs["update_fields"] = {*update_fields, "title_lower", "keywords", "listed_in", "variant_in", "skus",
                                      "pricing"}
        stored = Product.writes.stored_document(self.pk) if self.pk else None
        after = model_to_document(self, kwargs.get("using") or "default")
        # The whole product written (no update_fields): its kept facet counts moved by what it
        # changed (``writes.products_changing``'s ``documents``).
        with products_changing([(None if stored is None else document_facts(stored), document_facts(after))],
                               documents=(stored, after) if update_fields is None else None):
            super().save(*args, **kwargs)

    def get_absolute_url(self):
        return reverse("catalog:product", args=[self.sku])

    @classmethod
    def from_db(cls, db, field_names, values):
        """The model read from the database, noting the codes its stored ``details`` had."""
        product = super().from_db(db, field_names, values)
        details = product.__dict__.get("details")
        product._stored_codes = frozenset(details) if isinstance(details, dict) else frozenset()
        return product

    def clean_details(self, product_type=None):
        """``details`` checked against the product's type (``catalog.products.attributes.clean_details``):
        the normalised dict. ``product_type`` (a ProductType) saves the read of the type
        (``ProductType.objects.by_name``, cached with the catalog). A value the product was
        read with under a code its type no longer has (an attribute staff removed) is left
        out; any other unknown code is refused. Raises ValidationError ``{"type": [...]}`` when
        no type has the product's ``type``, ``{code: [...]}`` for the details."""
        from django.core.exceptions import ValidationError

        product_type = product_type or ProductType.objects.by_name(self.type)
        if product_type is None:
            raise ValidationError({"type": [f"There is no product type named {self.type!r}."]})
        details = dict(self.details or {})
        known = {a.code for a in product_type.attributes or []}
        for code in getattr(self, "_stored_codes", ()):
            if code not in known:
                details.pop(code, None)
        return clean_details(product_type, details)

    @property
    def sellable_skus(self):
        """The SKUs it sells: its variants' when it has any, else its own (a list)."""
        return [v.sku for v in self.variants] if self.variants else [self.sku]

    def variant(self, sku):
        """Its variant with ``sku`` (a ``Variant``), or None (its own SKU, or another's)."""
        return next((v for v in self.variants or () if v.sku == sku), None)

    def line_details(self, sku):
        """What a cart line of ``sku`` copies from the product (the "Inventory Management" use
        case's cart): ``{title, price}``, the title naming the variant's options and the price
        in cents its retail price. Raises ``ValueError`` when the product does not sell ``sku``
        (the SKU of a product with variants names its page only)."""
        if sku not in self.sellable_skus:
            raise ValueError(f"{self.sku} does not sell {sku!r}.")
        variant = self.variant(sku)
        if variant is None:
            return {"title": self.title, "price": self.pricing.retail}
        return {"title": line_title(self.title, variant.options), "price": variant.pricing.retail}


class CatalogVersion(models.Model):
    """A version of a part of the catalog: ``{name: <scope name>, token}`` (``category:<id>``,
    ``product:<sku>``, ``navigation``...: ``catalog/store/cache.py``), whose ``token`` the writes
    that change that part change (``CatalogVersion.objects.bump``).

    The storefront's cache keys carry the tokens of what they show, so a
    staff edit shows on the next request of every process, and cools only
    the pages that show what it changed. Read and written only through
    ``CatalogVersion.objects``.
    """

    name = models.CharField(max_length=40, unique=True)
    token = models.CharField(max_length=64)

    objects = CatalogVersionManager()

    class Meta:
        db_table = "catalog_versions"

    def __str__(self):
        return f"{self.name} {self.token}"


class ListingCount(models.Model):
    """How many products a category lists (``listing_counts``, one document per category;
    ``catalog/listings/count_manager.py``): ``listed`` counted at ``counted_at``; ``changed_at`` and
    ``writing`` are the marks of the writes that change it. A category page reads its
    count here rather than counting its products. Written only by ``ListingCount.objects``.
    """

    id = ObjectIdField(primary_key=True, db_column="_id")
    listed = models.IntegerField(null=True, blank=True)
    counted_at = models.DateTimeField(null=True, blank=True)
    changed_at = models.DateTimeField(null=True, blank=True)
    writing = models.IntegerField(default=0)

    objects = ListingCountManager()

    class Meta:
        db_table = "listing_counts"

    def __str__(self):
        return f"category {self.id}: {self.listed} products"


class FacetCount(models.Model):
    """A category's facet counts for the products of one issue decade (``facet_counts``,
    ``catalog/listings/facet_count_manager.py``): ``total``, ``bands`` and ``values`` as counted
    at ``stamp`` (the facet fields and the part's versions). A cold category page reads them
    rather than counting its products. Written only by ``FacetCount.objects``."""

    id = models.CharField(primary_key=True, max_length=64, db_column="_id")
    category = ObjectIdField()
    part = models.CharField(max_length=16)
    stamp = models.CharField(max_length=64)
    total = models.IntegerField(default=0)
    counted_at = models.DateTimeField(null=True, blank=True)

    objects = FacetCountManager()

    class Meta:
        db_table = "facet_counts"

    def __str__(self):
        return f"{self.id}: {self.total} products"


class OrderCount(models.Model):
    """A category's products counted along one sort, by price or by title (``order_counts``,
    ``catalog/listings/order_count_manager.py``): per band of the order (a narrow price band,
    a title's first character), the version it was counted at and its chunks (first value,
    products). A large category's page sorted so reads only the chunks holding its rows.
    Written only by ``OrderCount.objects``."""

    id = models.CharField(primary_key=True, max_length=64, db_column="_id")
    category = ObjectIdField()
    kind = models.CharField(max_length=16)
    relisted = models.CharField(max_length=64)
    counted_at = models.DateTimeField(null=True, blank=True)

    objects = OrderCountManager()

    class Meta:
        db_table = "order_counts"

    def __str__(self):
        return self.id


class SavingsCount(models.Model):
    """How many products save one whole percent (``savings_counts``, one document per saving;
    ``catalog/listings/savings_count_manager.py``): ``listed`` as counted at ``stamp`` (the
    saving's versions), ``first`` and ``last`` the lowest and highest ``_id`` among them (a
    hint for the deals page's window of ids). A deals page reads them rather than counting
    its products. Written only by ``SavingsCount.objects``."""

    id = models.IntegerField(primary_key=True, db_column="_id")
    listed = models.IntegerField(default=0)
    stamp = models.CharField(max_length=64)
    first = ObjectIdField(null=True, blank=True)
    last = ObjectIdField(null=True, blank=True)
    counted_at = models.DateTimeField(null=True, blank=True)

    objects = SavingsCountManager()

    class Meta:
        db_table = "savings_counts"

    def __str__(self):
        return f"saving {self.id}%: {self.listed} products"


class SearchSummary(models.Model):
    """What a search by relevance shows, kept per set of words (``search_summaries``,
    ``catalog/listings/search_summary.py``): ``total`` and, per price band, its counts, facet
    counts and best matches, as counted at ``stamp`` (the facet fields and its words'
    versions). A search's first visit reads it rather than every match. Written only by
    ``SearchSummary.objects``."""

    id = models.CharField(primary_key=True, max_length=700, db_column="_id")
    stamp = models.CharField(max_length=64)
    total = models.IntegerField(default=0)
    counted_at = models.DateTimeField(null=True, blank=True)

    objects = SearchSummaryManager()

    class Meta:
        db_table = "search_summaries"

    def __str__(self):
        return f"{self.id}: {self.total} products"


class NewestWindow(models.Model):
    """Where a list of newest products last ended (``newest_windows``, one document per list;
    ``catalog/listings/window_manager.py``): ``since``, the issue date of its last product, from
    which its next cold read starts (``ListingManager.newest_page``). Written only by
    ``NewestWindow.objects``."""

    id = models.CharField(primary_key=True, max_length=64, db_column="_id")
    since = models.DateTimeField(null=True, blank=True)
    kept_at = models.DateTimeField(null=True, blank=True)

    objects = NewestWindowManager()

    class Meta:
        db_table = "newest_windows"

    def __str__(self):
        return f"{self.id}: since {self.since}"
