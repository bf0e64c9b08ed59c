"""``{% catalog_fragment %}``: a piece of a storefront page rendered once per version of what it shows.

    {% load fragments %}
    {% catalog_fragment "cards" page.object_list|card_signature scope=cache_scope %}...{% endcatalog_fragment %}

The block's HTML is kept in the catalog cache (``catalog.store.cache.cached``)
under its name, the values given after it (each resolved in the template's
context; their ``repr`` must be stable) and the versions of its ``scope``
(required: a tuple of scope names, or one name as a string, e.g.
``scope="navigation"``; views give their page's as ``cache_scope``), so a
staff edit shows on the next request as for every other catalog read.
The values must name everything the block shows that is not catalog data
(the live stock of a card: ``card_signature``). Outside a request the block
is rendered every time.

``{% page_hole "name" %}``: what is each request's own in a page kept whole
(``catalog/store/pages.py``: ``"csrf"``, ``"cart_count"``, ``"messages"``): a marker
when the view renders with ``page_holes`` (``catalog.storefront.pages.render_page``),
which is filled for each request; the value itself on other pages. Never inside a
``catalog_fragment``.
"""

from django import template
from django.utils.safestring import mark_safe

from catalog.store.cache import cached
from catalog.store.pages import hole, marker

from catalog.templatetags.shop import Availability

register = template.Library()


class CatalogFragmentNode(template.Node):
    def __init__(self, nodelist, name, values, scope):
        self.nodelist, self.name, self.values, self.scope = nodelist, name, values, scope

    def render(self, context):
        key = tuple(value.resolve(context) for value in self.values)
        scope = self.scope.resolve(context)
        scope = (scope,) if isinstance(scope, str) else tuple(scope or ())
        # mark_safe: a fragment its template escaped when it rendered it (bandit B308/B703 reviewed).
        return mark_safe(cached(f"fragment:{self.name}", key,  # nosec
                                lambda: str(self.nodelist.render(context)), scope))


@register.tag
def catalog_fragment(parser, token):
    """``{% catalog_fragment "name" value ... scope=<scope> %}...{% endcatalog_fragment %}`` (see the module)."""
    bits = token.split_contents()
    if len(bits) < 2 or bits[1][0] not in "\"'" or bits[1][-1] != bits[1][0]:
        raise template.TemplateSyntaxError("catalog_fragment needs a quoted name first.")
    scopes = [b for b in bits[2:] if b.startswith("scope=")]
    if len(scopes) != 1:
        raise template.TemplateSyntaxError("catalog_fragment needs one scope=... (catalog/store/cache.py).")
    nodelist = parser.parse(("endcatalog_fragment",))
    parser.delete_first_token()
    return CatalogFragmentNode(nodelist, bits[1][1:-1],
                               [parser.compile_filter(b) for b in bits[2:] if not b.startswith("scope=")],
                               parser.compile_filter(scopes[0][len("scope="):]))


@register.simple_tag(takes_context=True)
def page_hole(context, name):
    """``{% page_hole "name" %}``: the hole ``name`` of ``catalog.store.pages.HOLES``: its marker
    when the context has ``page_holes`` (a page kept whole), else its value for the request."""
    if context.get("page_holes"):
        # mark_safe: an HTML comment of the hole's name and hex digits (bandit B308/B703 reviewed).
        return mark_safe(marker(name))  # nosec
    return hole(name, context.get("request"))  # safe HTML, escaped as it was built


@register.filter
def card_signature(products):
    """What the cards of ``products`` (a ``catalog.listings.cards.CardList``, or Products read with
    their stock) show besides catalog data: ``((sku, availability label, what a search
    matched, ...), ...)``, the key of their ``catalog_fragment``. A ``CardList``'s documents are
    read without turning them into Products, and its key also names what they show of the
    catalog (``CardList.shown``) and the variant each shows in a listing narrowed by a
    variant attribute (its SKU; the label is then its stock's), so the HTML is rendered again
    only when a card changes, whatever cooled the listing (``grid_scope``: a category
    page's), and a filtered page's cards are never an unfiltered page's."""
    if hasattr(products, "signature"):
        return tuple((sku, Availability(available).label, matched, shown, variant)
                     for (sku, available, matched, variant), shown in zip(products.signature(), products.shown()))
    return tuple((p.sku, Availability(getattr(p, "available", None)).label, getattr(p, "matched", None))
                 for p in products)
