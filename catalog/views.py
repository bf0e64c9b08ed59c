"""Storefront pages: home, category, product. Thin: parse, call a manager, render."""

from django.conf import settings
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import render

from analytics.tracking import record_product_view

from .breadcrumbs import breadcrumb_list_json_ld, category_crumbs
from .managers import DEFAULT_SORT, SORT_LABELS, SORTS
from .models import Category, Product


def home(request):
    """``/``: the top categories with their subcategories, and the newest products (2 reads)."""
    tree = Category.objects.tree(max_depth=1)
    top = [c for c in tree if c.parent_id is None]
    for category in top:
        category.subcategories = [c for c in tree if c.parent_id == category.pk]
    return render(request, "catalog/home.html", {
        "top_categories": top,
        "newest": Product.objects.newest(limit=8),
    })


def _page_number(request):
    """The ``page`` parameter as an int (1 for anything else; Paginator clamps the rest)."""
    try:
        return max(int(request.GET.get("page", 1)), 1)
    except (TypeError, ValueError):
        return 1


def category(request, slug):
    """``/c/<slug>/``: breadcrumbs, subcategories, and the products of the category and its
    descendants, sorted (``?sort=``) and paginated (``?page=``). Three reads.
    """
    try:
        node = Category.objects.get_by_slug(slug)
    except Category.DoesNotExist:
        raise Http404("No such category.") from None
    descendants, top = Category.objects.subtree_and_top_level(node)
    sort = request.GET.get("sort", DEFAULT_SORT)
    if sort not in SORTS:
        sort = DEFAULT_SORT
    number = _page_number(request)
    per_page = settings.CATALOG_PAGE_SIZE
    listing = Product.objects.listing(
        [node.pk, *(d.pk for d in descendants)], sort=sort, page=number, per_page=per_page
    )
    page = Paginator(listing, per_page).get_page(number)
    crumbs = category_crumbs(node)
    return render(request, "catalog/category.html", {
        "category": node,
        "crumbs": crumbs,
        "breadcrumbs_json_ld": breadcrumb_list_json_ld(request, crumbs),
        "subcategories": [d for d in descendants if d.parent_id == node.pk],
        "page": page,
        "sort": sort,
        "sort_labels": SORT_LABELS,
        "top_categories": top,
    })


def product(request, sku):
    """``/p/<sku>/``: the product with the breadcrumbs of its first category.

    Two reads, and one write: the product view event (analytics).
    """
    try:
        item = Product.objects.get_by_sku(sku)
    except Product.DoesNotExist:
        raise Http404("No such product.") from None
    record_product_view(request, item.sku)
    categories, top = Category.objects.with_top_level(item.categories)
    crumbs = category_crumbs(categories[0]) if categories else []
    return render(request, "catalog/product.html", {
        "product": item,
        "categories": categories,
        "crumbs": crumbs,
        "breadcrumbs_json_ld": breadcrumb_list_json_ld(request, crumbs) if crumbs else "",
        "top_categories": top,
    })
