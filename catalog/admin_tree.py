"""The category tree of the admin's changelist, and its drag-and-drop move endpoint.

What staff of django-mptt's ``DraggableMPTTAdmin`` expect, on seed 000's
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
  sends when a row is dropped. It moves through ``Category.objects.move``
  (cycle-safe), needs the change permission, is CSRF-protected by the admin
  site, and is recorded in the admin's history (LogEntry). Answers JSON:
  200 ``{"message"}``, 400 ``{"error"}`` (refused, nothing changed), 403,
  404 or 405.

The indentation, the toggles and the drag handles are styled by
``static/shop/admin/category_tree.css`` and driven by
``static/shop/admin/category_tree.js``: no inline style or script (CSP).
"""

from django.contrib import messages
from django.contrib.admin.views.main import ChangeList
from django.http import HttpResponseNotAllowed, JsonResponse

from .admin_forms import CategoryMoveForm
from .managers import CatalogError
from .models import Category, Product

#: The whole tree fits on one page up to this many categories (the Google taxonomy has 5,582).
TREE_PAGE_SIZE = 20_000


def product_counts(categories, category_lists):
    """``(own, subtree)``: two ``{category_id: number of products}`` dicts.

    ``categories`` carry their ancestors; ``category_lists`` is
    ``Product.objects.count_by_category_list()``. ``own`` counts the products
    listed in the category itself, ``subtree`` those listed in it or any
    descendant, each product once (as the storefront's category page counts
    them). No database access.
    """
    ancestors = {c.pk: [a.pk for a in c.ancestors] for c in categories}
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
        keep.update(a.pk for a in category.ancestors)
    return [c for c in nodes if c.pk in keep]


class CategoryChangeList(ChangeList):
    """The category changelist: the whole tree from one read, product counts from one aggregation.

    Search (``?q=``, case-insensitive, in names and slugs) runs over the
    tree in memory and keeps the path to each match (the matches get
    ``tree_match``); the rows keep tree order. Sets on each row
    ``product_count``, ``subtree_count``, ``has_children`` and ``tree_match``.
    """

    def get_results(self, request):
        nodes = Category.objects.tree()
        own, subtree = product_counts(nodes, Product.objects.count_by_category_list())
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
        Category.objects.move(node, target, where)
    except (CatalogError, Category.DoesNotExist) as error:
        return JsonResponse({"error": f"Nothing was moved: {error}"}, status=400)
    placed = {"inside": "into", "before": "before", "after": "after"}[where]
    message = f"Moved {node.name} {placed} {target.name}."
    model_admin.log_change(request, node, [{"changed": {"fields": ["parent", "position"]}}])
    messages.success(request, message)
    return JsonResponse({"message": message})
