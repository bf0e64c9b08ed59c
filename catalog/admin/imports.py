"""The products admin's import (upload, then a confirm page showing the dry run, then import)
and export pages. Thin views over ``catalog.transfer.imports.import_file`` and ``catalog.transfer.exports``.

The uploaded file is kept in Django's default storage under ``imports/`` (an
unguessable name) between the two steps, so the confirm may reach another
process, and deleted once imported. Importing needs the add and change
permissions on products, exporting the view permission.
"""

import os
import re
import secrets
import shutil
import tempfile
from contextlib import contextmanager

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.core.files.storage import default_storage
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse

from catalog.transfer.exports import write_products
from catalog.transfer.imports import FileError, import_file
from catalog.transfer.imports.parse import guess_format
from catalog.transfer.imports.types import all_types
from catalog.models import Category

_TOKEN = re.compile(r"^[0-9a-f]{32}$")
_FORMATS = {"csv": ".csv", "jsonl": ".jsonl"}


class ImportForm(forms.Form):
    file = forms.FileField(help_text="CSV or JSON Lines (.jsonl), one row per product or variant: its columns are in docs/commands.md (import_products).")


class ExportForm(forms.Form):
    category = forms.ChoiceField(required=False, help_text="Its products and those of every category below it.")
    type_name = forms.ChoiceField(label="Product type", required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.paths = {str(i): p for p, i in sorted(Category.objects.ids_by_path().items())}
        self.fields["category"].choices = [("", "(any)"), *self.paths.items()]
        self.fields["type_name"].choices = [("", "(any)"), *((t.name, t.name) for t in all_types())]

    def clean(self):
        data = super().clean()
        if not data.get("category") and not data.get("type_name"):
            raise forms.ValidationError("Choose a category or a product type.")
        return data


def _stored_name(token, file_format):
    return f"imports/{token}{_FORMATS[file_format]}"


@contextmanager
def local_path(name):
    """A local file path holding the stored file ``name`` (the storage's own path when it has
    one, else a temporary copy, deleted afterwards)."""
    try:
        yield default_storage.path(name)
        return
    except NotImplementedError:
        pass
    handle, copy = tempfile.mkstemp(suffix=os.path.splitext(name)[1])
    try:
        with os.fdopen(handle, "wb") as out, default_storage.open(name, "rb") as source:
            shutil.copyfileobj(source, out)
        yield copy
    finally:
        os.unlink(copy)


class ProductImportExportMixin:
    """Adds ``import/``, ``import/<token>/<format>/`` and ``export/`` to a products ModelAdmin."""

    change_list_template = "admin/catalog/product/change_list.html"

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("import/", view(self.import_view), name="catalog_product_import"),
            path("import/<str:token>/<str:file_format>/", view(self.import_confirm_view),
                 name="catalog_product_import_confirm"),
            path("export/", view(self.export_view), name="catalog_product_export"),
            *super().get_urls(),
        ]

    def _may_import(self, request):
        if not (self.has_add_permission(request) and self.has_change_permission(request)):
            raise PermissionDenied

    def _page(self, request, template, **context):
        return TemplateResponse(request, template, {**self.admin_site.each_context(request),
                                                    "opts": self.model._meta, **context})

    def import_view(self, request):
        """Upload a file; answer with its dry run and a confirm button."""
        self._may_import(request)
        form = ImportForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            upload = form.cleaned_data["file"]
            file_format = guess_format(upload.name)
            token = secrets.token_hex(16)
            name = default_storage.save(_stored_name(token, file_format), upload)
            if name != _stored_name(token, file_format):  # the storage chose another name: never expected
                default_storage.delete(name)
                raise Http404
            return self._confirm_page(request, token, file_format)
        return self._page(request, "admin/catalog/product/import.html", form=form, title="Import products")

    def _confirm_page(self, request, token, file_format, report=None):
        if report is None:
            try:
                with local_path(_stored_name(token, file_format)) as local:
                    report = import_file(local, file_format, dry_run=True)
            except FileError as error:
                default_storage.delete(_stored_name(token, file_format))
                messages.error(request, f"Cannot import this file: {error}.")
                return redirect("admin:catalog_product_import")
        return self._page(request, "admin/catalog/product/import_confirm.html", report=report,
                          title="Import products: check and confirm",
                          action=reverse("admin:catalog_product_import_confirm", args=[token, file_format]))

    def import_confirm_view(self, request, token, file_format):
        """Import the uploaded file (POST), then back to the list with the summary."""
        self._may_import(request)
        if not _TOKEN.match(token) or file_format not in _FORMATS:
            raise Http404
        name = _stored_name(token, file_format)
        if not default_storage.exists(name):
            raise Http404
        if request.method != "POST":
            return self._confirm_page(request, token, file_format)
        good_rows_only = bool(request.POST.get("good_rows_only"))
        with local_path(name) as local:
            report = import_file(local, file_format, good_rows_only=good_rows_only)
        if report.refused and not good_rows_only:
            messages.error(request, report.summary())
            return self._confirm_page(request, token, file_format, report)
        default_storage.delete(name)
        messages.success(request, f"Imported. {report.summary()}")
        return redirect("admin:catalog_product_changelist")

    def export_view(self, request):
        """Choose a category or a type; the products' CSV comes back."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        form = ExportForm(request.GET if request.GET else None)
        if form.is_bound and form.is_valid():
            category_id = form.cleaned_data["category"]
            category = Category.objects.get(pk=Category.objects.ids_by_path()[form.paths[category_id]]) \
                if category_id else None
            response = HttpResponse(content_type="text/csv; charset=utf-8")
            response["Content-Disposition"] = 'attachment; filename="products.csv"'
            write_products(response, category, form.cleaned_data["type_name"] or None)
            return response
        return self._page(request, "admin/catalog/product/export.html", form=form, title="Export products")
