"""The home page staff run and the content pages. Thin: read through the managers, render."""

from django.http import Http404
from django.utils.cache import add_never_cache_headers

from catalog.storefront import views as catalog_views
from catalog.storefront.pages import kept_page, render_page
from catalog.store.cache import prefetch
from catalog.models import Category

from .managers import HOME, PAGES
from .models import HomeBlock, ContentPage


@kept_page
def home(request):
    """``/``: the blocks live now (``HomeBlock.objects.live``: hero, collections, new in, in
    position order), then the departments; with none live, today's home page
    (``catalog.storefront.views.home``). Staff with ``?preview=<block id>`` see that block too, draft or
    scheduled (read without the cache, never cached by the browser). Kept whole without a
    query (``kept_page``, until a block's start or end): warm, the versions (and the stock of
    the cards when its kept figures lapsed)."""
    prefetch((HOME,))
    preview = request.GET.get("preview") if request.user.is_authenticated and request.user.is_staff else None
    blocks = HomeBlock.objects.preview(preview) if preview else HomeBlock.objects.live()
    if not blocks:
        response = catalog_views.home(request)
        if preview:
            add_never_cache_headers(response)
        return response
    shelves = HomeBlock.objects.shelves([b for b in blocks if b.kind != HomeBlock.HERO])
    tree = Category.objects.tree(max_depth=1)
    top = [c for c in tree if c.parent_id is None]
    for category in top:
        category.subcategories = [c for c in tree if c.parent_id == category.pk]
    rows = [{"block": b, "cards": shelves.get(b.pk)} for b in blocks]
    response = render_page(request, "content/home.html", {
        "rows": rows,
        "top_categories": top,
        "preview": bool(preview),
        "cache_scope": (HOME,),
    }, keep=not request.GET)
    if preview:
        add_never_cache_headers(response)
    return response


@kept_page
def page(request, slug):
    """``/pages/<slug>/``: a published content page (``slug`` matched by the URL's slug
    converter); 404 in the shop's look for an unknown or unpublished one. Kept whole without
    a query (``kept_page``)."""
    prefetch((PAGES,))
    found = ContentPage.objects.published(slug)
    if found is None:
        raise Http404("No such page.")
    return render_page(request, "content/page.html", {"page": found}, keep=not request.GET)
