"""The content app's managers: what the storefront reads of the home page's blocks, the content
pages and the footer menu, each through the catalog cache (``catalog/store/cache.py``) under a scope
the edits bump (``content/receivers.py``):

- ``home``: the home page's blocks (bumped by a block saved or deleted);
- ``pages``: the content pages (a page saved or deleted);
- ``footer``: the footer menu (a link or a page saved or deleted).

A collection's products are cached as the catalog's own listings are (the newest products of
a category under its listing's scope, of a search under its words', hand-picked products under
theirs), each also under the ``product:<sku>`` of the products it shows, so a product edit
cools the home page only when the page shows that product. Stock is never cached: one read of
the inventory for every card on the page.
"""

from bson import ObjectId
from bson.errors import InvalidId
from django.core.exceptions import ValidationError
from django.db import models

from catalog.listings.cards import CardList
from catalog.models import Category, Product
from catalog.products.keywords import search_words
from catalog.store.cache import UNSET, ISSUED, cached, changes_at, listing_scope, product_scope, versions, words_scope
from core import clock

from .skus import parse_skus

HOME, PAGES, FOOTER = "home", "pages", "footer"

#: The fields of a block kept in the cache (model field names).
BLOCK_FIELDS = ("id", "kind", "position", "published", "starts_at", "ends_at", "heading", "text", "link_url",
                "link_label", "image", "source", "category_slug", "search_query", "skus", "limit", "updated_at")


def never_written(scope):
    """Whether the content scope ``scope`` was never bumped (its version document missing):
    then nothing of it was ever saved, and a request reads nothing of it (so a shop with no
    content costs no round trip more, cold or warm). False outside a request."""
    found = versions((scope,))
    return found is not None and found[0] == UNSET


class HomeBlockManager(models.Manager):
    """``HomeBlock.objects``: the home page's blocks as the storefront shows them."""

    def scheduled(self):
        """Every published block, live now or not (a list of ``HomeBlock``, by position):
        one read of ``home_blocks`` when cold, cached under ``home``. The caller keeps those
        live at its clock (``live``), so a schedule's start or end shows at the first request
        after it, without any write. None ever saved (``never_written``): no read."""
        if never_written(HOME):
            return []
        rows = cached("home-blocks", "published", lambda: list(self.filter(published=True).values(*BLOCK_FIELDS)),
                      (HOME,))
        return [self.model(**row) for row in rows]

    def live(self, when=None):
        """The blocks shown at ``when`` (aware UTC; default ``clock.now()``): published and
        within their schedule, by position (see ``scheduled``)."""
        when = when or clock.now()
        scheduled = self.scheduled()
        # A page kept whole (catalog/store/pages.py) is served until the next start or end.
        changes_at(min((moment for block in scheduled for moment in (block.starts_at, block.ends_at)
                        if moment is not None and moment > when), default=None))
        return [block for block in scheduled if block.live_at(when)]

    def preview(self, block_id, when=None):
        """The blocks a staff preview shows: those live at ``when`` and the block ``block_id``
        (its id as a str; a draft or scheduled one too), by position; read without the cache
        (one or two reads). An id that names no block adds nothing."""
        blocks = list(self.filter(published=True))
        when = when or clock.now()
        shown = [b for b in blocks if b.live_at(when)]
        try:
            wanted = self.filter(pk=ObjectId(str(block_id))).first()
        except (InvalidId, TypeError):
            wanted = None
        if wanted is not None and all(b.pk != wanted.pk for b in shown):
            shown.append(wanted)
        return sorted(shown, key=lambda b: (b.position, str(b.pk)))

    def shelves(self, blocks):
        """``{block id: CardList}`` of the collection and new-in ``blocks``: each row's product
        documents from the catalog cache (cold: the category's or search's newest from windows
        of issue dates, ``ListingManager.newest_page``; hand-picked: one read by SKU), then the
        stock of every card of every row in one read (``with_availability``). A collection whose
        category is gone shows nothing."""
        rows = {}
        for block in blocks:
            limit = max(1, min(int(block.limit or 8), 12))
            if block.kind == block.NEW_IN:
                rows[block.pk] = Product.listings.newest_page({}, 0, limit, scope=(ISSUED,), by_sku=True,
                                                             stock=False).documents
            elif block.kind == block.COLLECTION and block.source == block.CATEGORY:
                try:
                    category = Category.objects.get_by_slug(str(block.category_slug))
                except Category.DoesNotExist:
                    rows[block.pk] = []
                    continue
                rows[block.pk] = Product.listings.newest_page(
                    {"listed_in": category.pk}, 0, limit, scope=listing_scope([category.pk]), by_sku=True,
                    stock=False).documents
            elif block.kind == block.COLLECTION and block.source == block.SEARCH:
                words = search_words(block.search_query)
                if not words:
                    rows[block.pk] = []
                    continue
                # Each word an equality on the multikey ``keywords`` index, as the search does.
                match = {"keywords": words[0]} if len(words) == 1 else {"$and": [{"keywords": w} for w in words]}
                rows[block.pk] = Product.listings.newest_page(
                    match, 0, limit, scope=words_scope(words) + (ISSUED,), by_sku=True, stock=False).documents
            elif block.kind == block.COLLECTION and block.source == block.PRODUCTS:
                try:
                    skus = parse_skus(block.skus)[:limit]
                except ValidationError:  # checked by the admin form; a stale value shows nothing
                    skus = []
                rows[block.pk] = Product.listings.cards_by_sku(skus, scope=product_scope(skus))
        documents = [d for row in rows.values() for d in row]
        Product.listings.with_availability(documents)
        return {pk: CardList(row, Product.listings.card_from_document) for pk, row in rows.items()}


class ContentPageManager(models.Manager):
    """``ContentPage.objects``: the published pages shoppers read."""

    def published(self, slug):
        """The published page ``slug`` (a str the URL's slug converter matched) as a dict
        (``slug``, ``title``, ``body_html``, ``updated_at``), or None: one read by the unique
        ``slug`` when cold, cached under ``pages``."""
        def read():
            return self.filter(slug=str(slug), published=True).values(
                "slug", "title", "body_html", "updated_at").first()

        return cached("content-page", str(slug), read, (PAGES,))


class FooterLinkManager(models.Manager):
    """``FooterLink.objects``: the footer menu."""

    def menu(self):
        """The footer's links, in position order: ``[{"label", "href"}]`` (two reads when cold:
        the links and their pages; cached under ``footer``). A link to an unpublished page is
        left out. None ever saved (``never_written``): no read."""
        if never_written(FOOTER):
            return []

        def read():
            links = list(self.select_related("page").order_by("position", "id"))
            return [{"label": link.label, "href": link.href} for link in links
                    if link.page_id is None or link.page.published]

        return cached("footer-menu", "menu", read, (FOOTER,))
