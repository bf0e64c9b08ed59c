"""Catalog documents: categories with embedded ancestors, products with typed details.

The shapes are the ``categories`` and ``products`` collections of
``docs/collections.md`` ("Category Hierarchy" use case). Money is integer cents; times
are UTC. The ORM serves forms, the admin and simple reads; the sources'
multi-document operations live on the managers (``catalog/managers/``).
"""

from django.db import models
from django.urls import reverse
from django_mongodb_backend.fields import (
    ArrayField,
    EmbeddedModelArrayField,
    EmbeddedModelField,
    ObjectIdField,
    PolymorphicEmbeddedModelField,
)
from django_mongodb_backend.models import EmbeddedModel
from imagekit.models import ImageSpecField

from .images import CARD_SIZE, PAGE_SIZE, cover_processors, validate_cover
from .managers import CatalogVersionManager, CategoryManager, ListingCountManager, ProductManager
from .managers.reports import CatalogReportManager
from .managers.writes import prepare_product, product_facts, products_changing


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
    it). Change the tree through ``Category.objects`` (create, rename, move,
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
    # Its place among its siblings (0 first); set by Category.objects when it
    # adds or moves a node. Ties (concurrent adds) fall back to the name.
    position = models.IntegerField(default=0, editable=False)

    objects = CategoryManager()

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


class Track(EmbeddedModel):
    """A track of an album or an episode of a season: ``duration`` in milliseconds, ``price`` in cents."""

    number = models.PositiveIntegerField()
    title = models.CharField(max_length=300)
    composer = models.CharField(max_length=300, blank=True, default="")
    duration = models.PositiveIntegerField(help_text="milliseconds")
    price = models.PositiveIntegerField(help_text="cents")

    @property
    def duration_display(self):
        """``m:ss`` (or ``h:mm:ss`` past an hour)."""
        seconds = self.duration // 1000
        hours, rest = divmod(seconds, 3600)
        minutes, seconds = divmod(rest, 60)
        if hours:
            return f"{hours}:{minutes:02d}:{seconds:02d}"
        return f"{minutes}:{seconds:02d}"


class AlbumDetails(EmbeddedModel):
    """Details of an ``Audio Album`` ("Product Catalog" use case): artist, genres, issue date, tracks."""

    artist = models.CharField(max_length=200)
    genre = ArrayField(models.CharField(max_length=100), default=list, blank=True)
    issue_date = models.DateTimeField(null=True, blank=True)
    tracks = EmbeddedModelArrayField(Track, default=list, blank=True)


class FilmDetails(EmbeddedModel):
    """Details of a ``Film`` ("Product Catalog" use case): director, writer, actors, rating, aspect ratio."""

    director = ArrayField(models.CharField(max_length=200), default=list, blank=True)
    writer = ArrayField(models.CharField(max_length=200), default=list, blank=True)
    actor = ArrayField(models.CharField(max_length=200), default=list, blank=True)
    genre = ArrayField(models.CharField(max_length=100), default=list, blank=True)
    rating = models.CharField(max_length=20, blank=True, default="")
    aspect_ratio = models.CharField(max_length=20, blank=True, default="")
    issue_date = models.DateTimeField(null=True, blank=True)


class SeasonDetails(EmbeddedModel):
    """Details of a ``TV Season``: the series' studio or creator, genres, episodes."""

    artist = models.CharField(max_length=200)
    genre = ArrayField(models.CharField(max_length=100), default=list, blank=True)
    issue_date = models.DateTimeField(null=True, blank=True)
    tracks = EmbeddedModelArrayField(Track, default=list, blank=True)


class Product(models.Model):
    """A product ("Product Catalog" use case): common fields, then ``details`` of its type.

    ``categories`` holds the ObjectIds of the categories the product is
    listed in; a category page lists the products of the category and all
    its descendants.
    """

    AUDIO_ALBUM = "Audio Album"
    FILM = "Film"
    TV_SEASON = "TV Season"
    TYPE_CHOICES = [(AUDIO_ALBUM, AUDIO_ALBUM), (FILM, FILM), (TV_SEASON, TV_SEASON)]
    DETAILS_MODELS = {AUDIO_ALBUM: AlbumDetails, FILM: FilmDetails, TV_SEASON: SeasonDetails}

    sku = models.CharField("SKU", max_length=64, unique=True)
    type = models.CharField(max_length=40, choices=TYPE_CHOICES)
    title = models.CharField(max_length=300)
    # The title lower-cased, for the index-friendly prefix search ("Product Catalog" use case
    # "Regular Expression Pitfalls"); kept in sync by save() and sync().
    title_lower = models.CharField(max_length=300, blank=True, default="", editable=False)
    # The product's distinct words, for the storefront search's multikey index
    # (catalog/keywords.py); kept in sync by save() and sync().
    keywords = ArrayField(models.CharField(max_length=64), default=list, blank=True, editable=False)
    description = models.TextField(blank=True, default="")
    categories = ArrayField(ObjectIdField(), default=list, blank=True)
    # The ids of ``categories`` and of all their ancestors, so that the products of a
    # category and its whole subtree are one equality, ``{listed_in: id}``;
    # kept by save(), Product.objects.sync and Category.objects.move.
    listed_in = ArrayField(ObjectIdField(), default=list, blank=True, editable=False)
    shipping = EmbeddedModelField(Shipping, null=True, blank=True)
    pricing = EmbeddedModelField(Pricing)
    details = PolymorphicEmbeddedModelField(
        [AlbumDetails, FilmDetails, SeasonDetails], null=True, blank=True
    )
    # The cover staff upload (a path in the default storage; "" for none: the
    # pages then show a generated cover, see catalog/images.py).
    image = models.ImageField(
        "cover image", upload_to="covers/", blank=True, default="", validators=[validate_cover],
        help_text="JPEG, PNG or WebP, square is best; shown cropped to a square.",
    )
    # The sizes shown, made once by django-imagekit from ``image`` (not stored fields).
    cover_card = ImageSpecField(source="image", processors=cover_processors(CARD_SIZE),
                                format="JPEG", options={"quality": 85})
    cover_card_2x = ImageSpecField(source="image", processors=cover_processors(CARD_SIZE * 2),
                                   format="JPEG", options={"quality": 80})
    cover_page = ImageSpecField(source="image", processors=cover_processors(PAGE_SIZE),
                                format="JPEG", options={"quality": 85})
    cover_page_2x = ImageSpecField(source="image", processors=cover_processors(PAGE_SIZE * 2),
                                   format="JPEG", options={"quality": 80})

    objects = ProductManager()
    reports = CatalogReportManager()

    class Meta:
        db_table = "products"
        ordering = ["title"]

    def __str__(self):
        return f"{self.title} ({self.sku})"

    def save(self, *args, **kwargs):
        """Save through the catalog's write owner (``catalog/managers/writes.py``): validated
        (``clean_product``), with ``title_lower``, ``keywords`` and ``listed_in`` derived
        (one read of its categories), the kept counts of the categories it enters or leaves
        marked and recounted (one read of what is stored; 3 more round trips when its
        categories change) and, once saved, the versions of its pages bumped (one write)."""
        prepare_product(self, kwargs.get("using") or "default")
        update_fields = kwargs.get("update_fields")
        if update_fields is not None:
            kwargs["update_fields"] = {*update_fields, "title_lower", "keywords", "listed_in"}
        before = Product.objects.stored_facts(self.pk) if self.pk else None
        with products_changing([(before, product_facts(self, kwargs.get("using") or "default"))]):
            super().save(*args, **kwargs)

    def get_absolute_url(self):
        return reverse("catalog:product", args=[self.sku])


class CatalogVersion(models.Model):
    """A version of a part of the catalog: ``{name: <scope name>, token}`` (``category:<id>``,
    ``product:<sku>``, ``navigation``...: ``catalog/cache.py``), whose ``token`` the writes
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
    ``catalog/managers/counts.py``): ``listed`` counted at ``counted_at``; ``changed_at`` and
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
