"""Breadcrumbs for pages: links root first, and schema.org BreadcrumbList JSON-LD."""

import json

from django.urls import reverse
from django.utils.safestring import mark_safe

_JSON_ESCAPES = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026"}


def category_crumbs(category):
    """``[{'name', 'url'}, ...]`` from the root down to ``category`` (itself last).

    Uses the ancestors stored in the category: no query.
    """
    nodes = [*category.ancestors, category]
    return [{"name": n.name, "url": reverse("catalog:category", args=[n.slug])} for n in nodes]


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
    return mark_safe(json.dumps(data, ensure_ascii=False).translate(_JSON_ESCAPES))
