"""The category tree of the admin's changelist, and its drag-and-drop move endpoint.

What staff of django-mptt's ``DraggableMPTTAdmin`` expect, on the "Category Hierarchy" use case's
ancestors arrays:

* ``CategoryChangeList``: the whole tree on one page, in tree order (siblings
  by ``position``), each row knowing its depth, parent and whether it has
  children, with the number of products listed in the category itself and
  in its whole subtree (each product once). A search keeps the matches
  *and the path to each*, so they show where they sit. Constant round trips
  whatever the size of the tree: the tree (one read) and the product counts
  (one aggregation).
* ``move_view``: ``POST <changelist>/move/`` with ``node``, ``target`` and
  ``where`` (``inside``, ``before``, ``after``), what the tree's script
  sends when a row is dropped. It moves through ``Category.writes.move``
  (cycle-safe), needs the change permission, is CSRF-protected by the admin
  site, and is recorded in the admin's history (LogEntry). Answers JSON:
  200 ``{"message"}``; 400 ``{"error"}`` for an unknown category, a bad
  ``where`` or a refused move (nothing changed); 403 ``{"error"}`` without
  the change permission; 405 for anything but POST. (A missing CSRF token
  gets the shop's 403 page.)

The indentation, the toggles and the drag handles are styled by
``static/shop/admin/category_tree.css`` and driven by
``static/shop/admin/category_tree.js``: no inline style or script (CSP).
"""

from django.contrib import messages
from django.contrib.admin.views.main import ChangeList
from django.http import HttpResponseNotAllowed, JsonResponse
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import mark_safe

from catalog.admin.forms import CategoryMoveForm
from catalog.exceptions import CatalogError
from catalog.models import Category, Product

#: The whole tree fits on one page up to this many categories (the Google taxonomy has 5,582).
TREE_PAGE_SIZE = 20_000

#: The tree's columns: (CSS name, heading).
TREE_COLUMNS = [("tree_name", "Category"), ("slug", "Slug"), ("product_count", "Products here"),
                ("subtree_count", "With subcategories")]

_ROW = (
    '<tr><td class="field-tree_name"><span class="tree-node tree-depth-{depth}{match}" '
    'data-node="{pk}" data-parent="{parent}" data-depth="{depth}">{toggle}'
    '<span class="tree-handle" title="Drag to move">&#x2807;</span>'
    '<a class="tree-label" href="{change}">{name}</a></span></td>'
    '<td class="field-slug">{slug}</td><td class="field-product_count">{own}</td>'
    '<td class="field-subtree_count"><a href="{products}?category={pk}">{subtree}</a></td></tr>'
)
_TOGGLE = '<button type="button" class="tree-toggle" aria-expanded="true" title="Collapse or expand {}"></button>'
_NO_TOGGLE = '<span class="tree-toggle-space"></span>'


def tree_rows(categories):
    """The ``<tr>`` rows of the tree table for ``categories`` (as CategoryChangeList sets them
    up), as one safe string: the tree cell (toggle, drag handle, linked name; the row's place
    in the tree as data attributes for ``category_tree.js``, its depth as a class the
    stylesheet indents), the slug, and the two product counts (the subtree one linked to the
    product list filtered by the category). Every name is escaped. One ``reverse()`` per
    page, not per row."""
    change = reverse("admin:catalog_category_change", args=["0" * 24])
    products = reverse("admin:catalog_product_changelist")
    rows = []
    for category in categories:
        name = escape(category.name)
        rows.append(_ROW.format(
            depth=min(category.depth, 12), match=" tree-match" if category.tree_match else "",
            pk=category.pk, parent=category.parent_id or "",
            toggle=_TOGGLE.format(name) if category.has_children else _NO_TOGGLE,
            change=change.replace("0" * 24, str(category.pk)), name=name,
            slug=escape(category.slug), own=category.product_count, products=products,
            subtree=category.subtree_count,
        ))
    # mark_safe: every value above is escaped or ours (bandit B308/B703 reviewed).
    return mark_safe("".join(rows))  # noqa: S308  # nosec


def product_counts(categories, category_lists):
    """``(own, subtree)``: two ``{category_id: number of products}`` dicts.

    ``categories`` are ``TreeNode``s (their ``ancestor_ids``); ``category_lists`` is
    ``Product.reports.count_by_category_list()``. ``own`` counts the products
    listed in the category itself, ``subtree`` those listed in it or any
    descendant, each product once (as the storefront's category page counts
    them). No database access.
    """
    ancestors = {c.pk: c.ancestor_ids for c in categories}
    own, subtree = {}, {}
    for ids, number in category_lists:
        reached = set()
        for category_id in set(ids):
            own[category_id] = own.get(category_id, 0) + number
            reached.add(category_id)
            reached.update(ancestors.get(category_id, ()))
        for category_id in reached:
            subtree[category_id] = subtree.get(category_id, 0) + number
    return own, subtree


def with_paths(nodes, matches):
    """``matches`` and every ancestor of each, in the tree order of ``nodes``."""
    keep = set()
    for category in matches:
        keep.add(category.pk)
        keep.update(category.ancestor_ids)
    return [c for c in nodes if c.pk in keep]


class CategoryChangeList(ChangeList):
    """The category changelist: the whole tree from one read, product counts from one aggregation.

    Search (``?q=``, case-insensitive, in names and slugs) runs over the
    tree in memory and keeps the path to each match (the matches get
    ``tree_match``); the rows keep tree order. Sets on each row
    ``product_count``, ``subtree_count``, ``has_children`` and ``tree_match``.
    """

    def get_results(self, request):
        nodes = Category.objects.tree_nodes()
        own, subtree = product_counts(nodes, Product.reports.count_by_category_list())
        parents = {c.parent_id for c in nodes}
        full_count = len(nodes)
        matches = nodes
        if self.query:
            term = self.query.casefold()
            matches = [c for c in nodes if term in c.name.casefold() or term in c.slug.casefold()]
            nodes = with_paths(nodes, matches)
        matched = {c.pk for c in matches}
        paginator = self.model_admin.get_paginator(request, nodes, self.list_per_page)
        multi_page = paginator.count > self.list_per_page
        result_list = paginator.get_page(self.page_num).object_list if multi_page else nodes
        for category in result_list:
            category.product_count = own.get(category.pk, 0)
            category.subtree_count = subtree.get(category.pk, 0)
            category.has_children = category.pk in parents
            category.tree_match = bool(self.query) and category.pk in matched
        self.result_count = len(matches)
        self.show_full_result_count = True
        self.full_result_count = full_count
        self.show_admin_actions = bool(full_count)
        self.result_list = result_list
        self.can_show_all = paginator.count <= self.list_max_show_all
        self.multi_page = multi_page
        self.paginator = paginator
        self.tree_columns = TREE_COLUMNS
        self.tree_rows = tree_rows(result_list)


def move_view(model_admin, request):
    """Move a category where it was dropped (see the module docstring for the protocol).

    ``model_admin`` is the CategoryAdmin; the admin site's ``admin_view``
    wraps this view (staff only, CSRF-protected, never cached).
    """
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    if not model_admin.has_change_permission(request):
        return JsonResponse({"error": "You may not change categories."}, status=403)
    form = CategoryMoveForm(request.POST)
    if not form.is_valid():
        reasons = "; ".join(e for errors in form.errors.values() for e in errors)
        return JsonResponse({"error": f"Nothing was moved: {reasons}"}, status=400)
    node, target, where = form.cleaned_data["node"], form.cleaned_data["target"], form.cleaned_data["where"]
    try:
        Category.writes.move(node, target, where)
    except (CatalogError, Category.DoesNotExist) as error:
        return JsonResponse({"error": f"Nothing was moved: {error}"}, status=400)
    placed = {"inside": "into", "before": "before", "after": "after"}[where]
    message = f"Moved {node.name} {placed} {target.name}."
    model_admin.log_change(request, node, [{"changed": {"fields": ["parent", "position"]}}])
    messages.success(request, message)
    return JsonResponse({"message": message})
