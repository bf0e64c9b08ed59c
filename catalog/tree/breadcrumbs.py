"""Breadcrumbs: the one trail from the root down to a category, as links for pages, and
schema.org BreadcrumbList JSON-LD."""

import json

from django.urls import reverse
from django.utils.safestring import mark_safe

_JSON_ESCAPES = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026"}


def crumb_trail(category):
    """``[{'name', 'slug'}, ...]`` from the root down to ``category`` (itself last).

    ``category`` is a Category (its stored ancestors, the "Category Hierarchy" use case): no query.
    """
    return [{"name": node.name, "slug": node.slug} for node in (*category.ancestors, category)]


def category_crumbs(category):
    """``[{'name', 'url'}, ...]``: ``crumb_trail(category)`` with each category page's URL."""
    return [{"name": crumb["name"], "url": reverse("catalog:category", args=[crumb["slug"]])}
            for crumb in crumb_trail(category)]


def breadcrumb_list_json_ld(request, crumbs):
    """A ``<script type="application/ld+json">`` body: schema.org BreadcrumbList of ``crumbs``.

    The JSON is escaped for an HTML script element (``<``, ``>``, ``&``).
    """
    data = {
        "@context": "https://schema.org",
        "@type": "BreadcrumbList",
        "itemListElement": [
            {"@type": "ListItem", "position": i, "name": crumb["name"],
             "item": request.build_absolute_uri(crumb["url"])}
            for i, crumb in enumerate(crumbs, start=1)
        ],
    }
    # mark_safe: JSON with <, >, & and the line separators escaped (_JSON_ESCAPES; bandit B308/B703 reviewed).
    return mark_safe(json.dumps(data, ensure_ascii=False).translate(_JSON_ESCAPES))  # nosec
