"""The storefront's staff-edited content: the home page's blocks (``home_blocks``), content pages
(``content_pages``) and the footer menu (``footer_links``). Edited in the Django admin; read by
the storefront through the managers in ``content/managers.py`` (cached, ``catalog/store/cache.py``)."""

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, validate_slug
from django.db import models
from imagekit.models import ImageSpecField
from imagekit.processors import ResizeToFill

from catalog.media.covers import validate_cover
from catalog.products.keywords import search_words

from .managers import ContentPageManager, FooterLinkManager, HomeBlockManager
from .markup import render_markdown
from .skus import MAX_CARDS, parse_skus

#: The hero image's sizes, in pixels (width, height): a wide banner and its 2x; a phone's
#: (a 412 px wide screen at 1.75 device pixels a CSS pixel) takes the narrow one.
HERO_SIZE = (1200, 400)
HERO_NARROW_SIZE = (840, 280)
def validate_link(value):
    """A block's or footer link's address: a path on the shop (``/c/rock/``) or an ``https://``
    URL. Raises ``ValidationError`` otherwise (``javascript:`` and the like)."""
    if value and not (value.startswith("/") and not value.startswith("//") or value.startswith("https://")):
        raise ValidationError("Give a path on the shop (starting with /) or an https:// address.")



class HomeBlock(models.Model):
    """One block of the home page, shown in ``position`` order while it is published and
    ``starts_at <= now < ends_at`` (aware UTC; either may be empty: no bound).

    - a **hero**: ``image`` (stored as product images are, through Django's storage, under
      ``home/``; sizes made by django-imagekit), ``heading``, ``text``, ``link_url`` and
      ``link_label``;
    - a **collection**: ``heading`` and a row of up to ``limit`` product cards, from the
      category ``category_slug`` (its newest), the search ``search_query`` (its newest), or the
      hand-picked ``skus`` (in that order);
    - a **new in** row: the ``limit`` newest products of the catalog.
    """

    HERO, COLLECTION, NEW_IN = "hero", "collection", "new_in"
    KINDS = [(HERO, "Hero (image, heading, text, link)"), (COLLECTION, "Featured collection"),
             (NEW_IN, "New in (the newest products)")]
    CATEGORY, SEARCH, PRODUCTS = "category", "search", "products"
    SOURCES = [(CATEGORY, "A category"), (SEARCH, "A search"), (PRODUCTS, "Hand-picked products")]

    kind = models.CharField(max_length=12, choices=KINDS, default=HERO)
    position = models.PositiveIntegerField(default=0, help_text="Blocks show in this order, lowest first.")
    published = models.BooleanField(
        default=False, help_text="Off: a draft, seen only by staff through the preview.")
    starts_at = models.DateTimeField("starts (UTC)", null=True, blank=True,
                                     help_text="Empty: from now. Times are UTC.")
    ends_at = models.DateTimeField("ends (UTC)", null=True, blank=True, help_text="Empty: no end.")
    heading = models.CharField(max_length=120, blank=True)
    text = models.TextField(blank=True, max_length=500)
    link_url = models.CharField("link", max_length=300, blank=True, validators=[validate_link],
                                help_text="A path on the shop (/c/rock/) or an https:// address.")
    link_label = models.CharField(max_length=60, blank=True)
    image = models.ImageField(upload_to="home/", blank=True, default="", validators=[validate_cover],
                              help_text="JPEG, PNG or WebP; shown cropped to 3:1.")
    hero_image = ImageSpecField(source="image", processors=[ResizeToFill(*HERO_SIZE)],
                                format="JPEG", options={"quality": 82})
    hero_image_narrow = ImageSpecField(source="image", processors=[ResizeToFill(*HERO_NARROW_SIZE)],
                                       format="JPEG", options={"quality": 75})
    hero_image_2x = ImageSpecField(source="image", processors=[ResizeToFill(HERO_SIZE[0] * 2, HERO_SIZE[1] * 2)],
                                   format="JPEG", options={"quality": 75})
    source = models.CharField(max_length=10, choices=SOURCES, blank=True,
                              help_text="A collection's products.")
    category_slug = models.CharField("category", max_length=100, blank=True, validators=[validate_slug],
                                     help_text="The category's slug (rock for /c/rock/).")
    search_query = models.CharField("search", max_length=100, blank=True)
    skus = models.TextField("SKUs", blank=True, help_text="Hand-picked: SKUs separated by commas.")
    limit = models.PositiveSmallIntegerField(default=8, validators=[MinValueValidator(1), MaxValueValidator(MAX_CARDS)],
                                             help_text=f"Cards in the row (1 to {MAX_CARDS}).")
    updated_at = models.DateTimeField(auto_now=True)

    objects = HomeBlockManager()

    class Meta:
        db_table = "home_blocks"
        ordering = ["position", "id"]

    def __str__(self):
        return f"{self.get_kind_display().split(' (')[0]}: {self.heading or self.source or ''}".strip()

    def clean(self):
        """Each kind's required fields; a schedule that ends after it starts."""
        errors = {}
        if self.starts_at and self.ends_at and self.ends_at <= self.starts_at:
            errors["ends_at"] = "The end must come after the start."
        if self.kind == self.HERO and not self.heading:
            errors["heading"] = "A hero needs a heading."
        if self.link_url and not self.link_label:
            errors["link_label"] = "Say what the link opens."
        if self.kind == self.COLLECTION:
            if not self.heading:
                errors["heading"] = "A collection needs a heading."
            if self.source == self.CATEGORY and not self.category_slug:
                errors["category_slug"] = "Give the category's slug."
            elif self.source == self.SEARCH:
                if not search_words(self.search_query):
                    errors["search_query"] = "Give the words to search for."
            elif self.source == self.PRODUCTS:
                try:
                    if not parse_skus(self.skus):
                        errors["skus"] = "Give at least one SKU."
                except ValidationError as error:
                    errors["skus"] = error.messages
            elif not self.source:
                errors["source"] = "Choose where the collection's products come from."
        if errors:
            raise ValidationError(errors)

    def get_absolute_url(self):
        """The home page's preview with this block (``/?preview=<id>``; staff only)."""
        return f"/?preview={self.pk}"

    def live_at(self, when):
        """Whether the block shows at ``when`` (aware UTC) when published."""
        return (self.starts_at is None or self.starts_at <= when) and (self.ends_at is None or when < self.ends_at)


class ContentPage(models.Model):
    """A page staff write (shipping, returns, contact, privacy, terms) at ``/pages/<slug>/``:
    ``body`` in Markdown, kept as ``body_html`` rendered and sanitised (``content/markup.py``)
    at each save. Unpublished: 404 for shoppers."""

    slug = models.SlugField(max_length=60, unique=True, help_text="Its address: /pages/<slug>/.")
    title = models.CharField(max_length=120)
    body = models.TextField(help_text="Markdown: **bold**, *italic*, [links](/pages/returns/), lists, "
                                      "headings (##). Scripts and styles are removed.")
    body_html = models.TextField(editable=False, default="")
    published = models.BooleanField(default=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ContentPageManager()

    class Meta:
        db_table = "content_pages"
        ordering = ["title"]

    def __str__(self):
        return self.title

    def save(self, *args, **kwargs):
        self.body_html = render_markdown(self.body)
        super().save(*args, **kwargs)

    def get_absolute_url(self):
        return f"/pages/{self.slug}/"


class FooterLink(models.Model):
    """A link of the footer menu, in ``position`` order: to a content page, or to ``url``."""

    label = models.CharField(max_length=60)
    page = models.ForeignKey(ContentPage, null=True, blank=True, on_delete=models.CASCADE,
                             help_text="A content page; or give an address below.")
    url = models.CharField("address", max_length=300, blank=True, validators=[validate_link])
    position = models.PositiveIntegerField(default=0)

    objects = FooterLinkManager()

    class Meta:
        db_table = "footer_links"
        ordering = ["position", "id"]

    def __str__(self):
        return self.label

    def clean(self):
        if bool(self.page_id) == bool(self.url):
            raise ValidationError("Choose a page or give an address (one of them).")

    @property
    def href(self):
        """Where the link goes: the page's address or ``url``."""
        return self.page.get_absolute_url() if self.page_id else self.url
