"""Storefront pages: home, category, product, the "Product Catalog" use case queries (genre, deals,
artist, actor) and search. Thin: parse, call a manager, render."""

from django.conf import settings
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render

from catalog.tree.breadcrumbs import breadcrumb_list_json_ld, category_crumbs
from catalog.store.cache import TREE, category_page_scope, category_scope, facets_scope, listing_scope, product_scope
from catalog.listings.facets import facet_panel
from catalog.storefront.filters import DealsForm, PriceRangeForm, SearchForm, SuggestForm
from catalog.storefront.pages import kept_page, render_page
from catalog.store.pages import understood
from catalog.listings.query import DEFAULT_SORT, SORT_LABELS, SORTS
from catalog.models import Category, Product, ProductType
from catalog.listings.paginators import page_number, paginate
from catalog.listings.search import DEFAULT_SEARCH_SORT, SEARCH_SORT_LABELS, SEARCH_SORTS
from catalog.signals import product_viewed
from catalog.products.variants import chosen_cover, chosen_variant, variant_url


def home(request):
    """``/``: the top categories with their subcategories, and the newest products (2 reads).
    Rendered with ``render_page`` (kept whole without a query when ``content.views.home``,
    which calls it, is served through ``kept_page``)."""
    tree = Category.objects.tree(max_depth=1)
    top = [c for c in tree if c.parent_id is None]
    for category in top:
        category.subcategories = [c for c in tree if c.parent_id == category.pk]
    return render_page(request, "catalog/home.html", {
        "top_categories": top,
        "newest": Product.listings.newest(limit=8),
    }, keep=not request.GET)


@kept_page
def category(request, slug):
    """``/c/<slug>/``: breadcrumbs, subcategories, and the products of the category and its
    descendants, sorted (``?sort=``), filtered by retail price (``?min_price=&max_price=``
    in dollars; 400 with the form's errors and no filter when invalid), narrowed by facets
    (``?genre=Rock&price=5-10&in_stock=1``: ``catalog.listings.facets``; narrowed by a variant
    attribute, ``?format=Vinyl``, each card shows its matching variant) and paginated
    (``?page=``). Kept whole (``kept_page``) for a query of those parameters only, each as the
    page spells it, "in stock" not chosen: then one read warm (the versions; the stock
    when its kept figures lapsed). Rendered, three reads warm; cold, the facet counts add an
    aggregation or two.
    """
    try:
        node = Category.objects.get_by_slug(slug)
    except Category.DoesNotExist:
        raise Http404("No such category.") from None
    subcategories, top = Category.objects.children_and_top_level(node)
    sort = request.GET.get("sort", DEFAULT_SORT)
    if sort not in SORTS:
        sort = DEFAULT_SORT
    number = page_number(request)
    per_page = settings.CATALOG_PAGE_SIZE
    price_form = PriceRangeForm(request.GET)
    min_cents, max_cents = price_form.cents() if price_form.is_valid() else (None, None)
    if price_form.is_valid():
        # Shown (and cached, keyed by the cents) in one form whatever the URL spelled: "5", "05.0".
        price_form = PriceRangeForm.normalized(min_cents, max_cents)
    # The counts without a price range change only with what they count (``faceted:``).
    facets, refined = facet_panel(
        request.GET, Product.listings.listing_stages([node.pk], min_cents, max_cents), Product.facets,
        scope=facets_scope([node.pk]) if min_cents is None and max_cents is None else listing_scope([node.pk]))
    listing = Product.listings.listing(
        [node.pk], sort=sort, page=number, per_page=per_page,
        min_cents=min_cents, max_cents=max_cents, refined=refined if facets.chosen else None,
        variant_options=facets.variant_options,
    )
    page = paginate(listing, number, per_page)
    crumbs = category_crumbs(node)
    # Kept whole for a query the page would spell itself (its sort, its page, its price range
    # as normalized, the facets chosen, "in stock": served while the sold-out SKUs it left out
    # are kept unchanged, ``FacetManager.sold_out_skus``); never an invalid range (a 400).
    keep = price_form.is_valid() and understood(request.GET, {
        ("sort", sort), ("page", str(page.number)), *facets.params, *price_form.data.items()})
    return render_page(request, "catalog/category.html", {
        "category": node,
        "crumbs": crumbs,
        "breadcrumbs_json_ld": breadcrumb_list_json_ld(request, crumbs),
        "subcategories": subcategories,
        "page": page,
        "sort": sort,
        "sort_labels": SORT_LABELS,
        "top_categories": top,
        "price_form": price_form,
        "price_key": (min_cents, max_cents) if price_form.is_valid() else None,
        "cache_scope": category_page_scope(node),
        # The card grid's HTML is keyed by what its cards show: an edit of another product
        # of the category re-reads the page's cards but does not render them again.
        "grid_scope": category_scope([node.pk]),
        "facets": facets,
    }, status=200 if price_form.is_valid() else 400, keep=keep)


@kept_page
def product(request, sku):
    """``/p/<sku>/``: the product with its availability, cover and the breadcrumbs of its
    first category; a product with variants offers them (each with its price and stock) in
    its add-to-cart form, ``?variant=<SKU>`` choosing one (else the first still in stock), and
    the page's price, was-price, SKU and stock line are the chosen variant's, and its cover
    the chosen variant's own image when it has one (``static/shop/variants.js`` changes them
    with the choice). A variant's SKU redirects to
    its product's page with it chosen.

    Kept whole (``kept_page``) without a query or with ``?variant=`` one of its variants'
    SKUs: then one read warm (the versions; the stock when its kept figures lapsed). Cold, the
    product, its stock, its categories with the top ones. Always one write: the product view
    event (analytics, unacknowledged).
    """
    try:
        item = Product.objects.get_with_availability(sku)
    except Product.DoesNotExist:
        return _variant_page(sku)
    product_viewed.send(sender=Product, sku=item.sku, request=request)
    chosen_sku = chosen_variant(item.variants, request.GET.get("variant"))
    categories, top = Category.objects.with_top_level(item.categories)
    crumbs = category_crumbs(categories[0]) if categories else []
    keep = understood(request.GET, {("variant", v.sku) for v in item.variants or ()})
    return render_page(request, "catalog/product.html", {
        "product": item,
        "categories": categories,
        "crumbs": crumbs,
        "breadcrumbs_json_ld": breadcrumb_list_json_ld(request, crumbs) if crumbs else "",
        "top_categories": top,
        "chosen_sku": chosen_sku,
        # The chosen variant's own picture, shown as the cover (its SKU; "" for the product's).
        "chosen_cover": chosen_cover(item.variants, chosen_sku),
        # What the price, SKU and stock line show: the chosen variant, else the product.
        "shown": next((v for v in item.variants or () if v.sku == chosen_sku), item),
        "cache_scope": (*product_scope([item.sku]), TREE),
    }, keep=keep, viewed=item.sku)


def _variant_page(sku):
    """``/p/<variant SKU>/``: a redirect to its product's page with the variant chosen
    (``?variant=``; one more read, on the ``skus`` index); 404 for a SKU of no product."""
    try:
        owner = Product.objects.get_by_sku(sku)
    except Product.DoesNotExist:
        raise Http404("No such product.") from None
    if owner.sku == sku:  # the page itself was just not found (deleted in between)
        raise Http404("No such product.")
    return redirect(variant_url(owner, sku))


# -- storefront queries and search ("Product Catalog" use case "Operations") ----------------


def _product_list(request, query, context, status=200, not_found_if_empty=False, accepted=frozenset()):
    """Render ``catalog/product_list.html``: a page of ``query`` (a ``ProductQuery`` or
    ``ProductListing``), kept whole (``kept_page``) when the request's query holds only the
    page number shown and pairs of ``accepted`` (``catalog.store.pages.understood``).

    Costs the query's 2 round trips (count, page) plus the header's top
    categories. Raises Http404 when ``not_found_if_empty`` and nothing matches.
    """
    number = page_number(request)
    page = paginate(query, number, settings.CATALOG_PAGE_SIZE)
    if not_found_if_empty and page.paginator.count == 0:
        raise Http404("Nothing to show.")
    # The cards' HTML is cold exactly when one of the products shown changes.
    shown = getattr(page.object_list, "documents", None)
    skus = [d.get("sku") for d in shown] if shown is not None else [p.sku for p in page.object_list]
    keep = understood(request.GET, {*accepted, ("page", str(page.number))})
    return render_page(request, "catalog/product_list.html",
                       {"page": page, "cache_scope": product_scope(skus), **context}, status=status, keep=keep)


@kept_page
def genre(request, genre):
    """``/genre/<genre>/``: the albums of a genre, newest first (``?type=`` another product
    type: ``Film``, ``TV Season``). 404 when the genre has none; 400 for an unknown type."""
    product_type = request.GET.get("type", settings.CATALOG_GENRE_TYPE)
    if product_type != settings.CATALOG_GENRE_TYPE and ProductType.objects.by_name(product_type) is None:
        return render(request, "400.html", status=400)
    return _product_list(request, Product.listings.by_genre(genre, product_type), {
        "heading": genre, "subheading": f"{product_type}s, newest first",
    }, not_found_if_empty=True, accepted={("type", product_type)})


@kept_page
def deals(request):
    """``/deals/?min=15``: products saving more than ``min`` percent, biggest saving first."""
    form = DealsForm(request.GET)
    if not form.is_valid():
        return render(request, "catalog/product_list.html",
                      {"heading": "Deals", "form": form, "page": None, "is_deals": True},
                      status=400)
    threshold = form.threshold()
    return _product_list(request, Product.listings.deals(threshold), {
        "heading": "Deals", "subheading": f"Saving more than {threshold}%, biggest saving first",
        "form": form, "is_deals": True,
    }, accepted={("min", str(threshold))})


@kept_page
def artist(request, name):
    """``/artist/<name>/``: an artist's albums and TV seasons, newest first (404 for none)."""
    return _product_list(request, Product.listings.by_artist(name), {
        "heading": name, "subheading": "Newest first",
    }, not_found_if_empty=True)


@kept_page
def actor(request, name):
    """``/actor/<name>/``: the films starring an actor, newest first (404 for none)."""
    return _product_list(request, Product.listings.by_actor(name), {
        "heading": name, "subheading": "Films, newest first",
    }, not_found_if_empty=True)


@kept_page
def search(request):
    """``/search/?q=&sort=``: products matching the words of ``q`` (see
    ``SearchManager.search``), best match first (``sort=relevance``) or ``newest``,
    ``price``, ``-price``; each says what matched; narrowed by facets as a category page.

    One round trip for the results (count and page in one aggregation) plus
    the header's top categories; none for a query without words. 400 for a query over 200
    characters.
    """
    form = SearchForm(request.GET)
    if not form.is_valid():
        return render(request, "catalog/product_list.html",
                      {"heading": "Search", "search_form": form, "page": None}, status=400)
    q = form.cleaned_data["q"]
    sort = request.GET.get("sort", DEFAULT_SEARCH_SORT)
    if sort not in SEARCH_SORTS:
        sort = DEFAULT_SEARCH_SORT
    context = {"heading": f"Results for “{q}”" if q else "Search",
               "search_form": form, "search_query": q, "is_search": True,
               "sort": sort, "sort_labels": SEARCH_SORT_LABELS}
    stages = Product.search.search_stages(q)
    refined, variant_options = None, None
    if stages:
        context["facets"], refined = facet_panel(request.GET, stages, Product.facets,
                                                 scope=Product.search.search_scope(q))
        refined = refined if context["facets"].chosen else None
        variant_options = context["facets"].variant_options
    results = Product.search.search(q, page=page_number(request), per_page=settings.CATALOG_PAGE_SIZE,
                                    sort=sort, refined=refined, variant_options=variant_options)
    facets = context.get("facets")
    if facets is not None and facets.in_stock["chosen"]:  # not kept whole (a category page is)
        return _product_list(request, results, context)
    return _product_list(request, results, context, accepted={
        ("q", q), ("sort", sort), *(facets.params if facets is not None else ())})


def suggest(request):
    """``/search/suggest/?q=``: JSON ``{"query", "suggestions": [{"title", "sku", "url"}]}``,
    up to 8 products whose title starts with ``q`` (any case). One round trip. 400 (JSON
    ``{"error"}``) for a prefix over 100 characters."""
    form = SuggestForm(request.GET)
    if not form.is_valid():
        return JsonResponse({"error": form.errors["q"][0]}, status=400)
    q = form.cleaned_data["q"]
    return JsonResponse({"query": q, "suggestions": [
        {"title": p.title, "sku": p.sku, "url": p.get_absolute_url()}
        for p in Product.search.suggest(q)
    ]})
