"""The shop's admin site: Django's, with the pages an app serves itself listed under its heading.

An app whose staff pages are views of its own rather than ModelAdmins (the
sales dashboard and reports of ``analytics``) names them on its AppConfig,
each with the permission it needs::

    admin_pages = [("Sales dashboard", "analytics:dashboard", "analytics.view_rollupprogress"), ...]

and the admin index (and the admin's navigation sidebar) lists them first in
that app's box, each with a "View" link, to staff with that permission, even
one who may see none of the app's models. Installed through
``MongoAdminConfig.default_site`` (Django's documented way to replace the
default site), so ``admin.site`` is this site.

Every ModelAdmin registered on it (the shop's, Django's users and groups,
django-axes') refuses regular-expression lookups from the change list's URL
(``?email__regex=...``): Django's admin allows any lookup on a listed
filter's field, and a pattern the staff member writes would run on the
database server with no time limit. Such a URL answers 400 (Django's
``DisallowedModelAdminLookup``), and so does a pattern lookup with a value over
``MAX_PATTERN_TEXT`` characters; a longer search finds nothing. Other lookups' values are escaped by the
backend (``core.mongo.base.DatabaseOperations``).
"""

from django.db.models.constants import LOOKUP_SEP

from django.apps import apps
from django.contrib import admin
from django.urls import reverse


#: Lookups whose value is a pattern, not a value: never taken from a URL.
PATTERN_LOOKUPS = frozenset({"regex", "iregex"})
#: Lookups the backend turns into an (escaped) regular expression.
ESCAPED_LOOKUPS = frozenset({"iexact", "contains", "icontains", "startswith", "istartswith",
                             "endswith", "iendswith"})
#: The longest text searched or looked up by pattern: escaped, it stays under SecantusDB's
#: (docs/local-server-differences.md: local-server difference 16)
#: cap of 1,000 characters a pattern (a longer one was a 500); MongoDB's cap is 32,764.
MAX_PATTERN_TEXT = 200


class NoPatternLookups:
    """ModelAdmin mixin: no ``regex``/``iregex`` lookup from a URL, and no search or pattern
    lookup longer than ``MAX_PATTERN_TEXT`` characters."""

    def lookup_allowed(self, lookup, value, request=None):
        """False when the last part of ``lookup`` (``"email__regex"``) is a pattern lookup, or an
        escaped one with a value over ``MAX_PATTERN_TEXT`` characters; else Django's answer."""
        last = lookup.split(LOOKUP_SEP)[-1]
        if last in PATTERN_LOOKUPS or (last in ESCAPED_LOOKUPS and len(str(value)) > MAX_PATTERN_TEXT):
            return False
        return super().lookup_allowed(lookup, value, request)

    def get_search_results(self, request, queryset, search_term):
        """The admin's search; a term over ``MAX_PATTERN_TEXT`` characters finds nothing."""
        if len(search_term) > MAX_PATTERN_TEXT:
            return queryset.none(), False
        return super().get_search_results(request, queryset, search_term)


class ShopAdminSite(admin.AdminSite):
    """``admin.site``: adds each app's ``admin_pages`` to its entry in the app list; every
    ModelAdmin registered on it refuses pattern lookups from URLs (``NoPatternLookups``)."""

    def register(self, model_or_iterable, admin_class=None, **options):
        """Django's ``register``, with ``admin_class`` (default ``ModelAdmin``) under
        ``NoPatternLookups``."""
        admin_class = admin_class or admin.ModelAdmin
        if not issubclass(admin_class, NoPatternLookups):
            admin_class = type(admin_class.__name__, (NoPatternLookups, admin_class),
                               {"__module__": admin_class.__module__, "__doc__": admin_class.__doc__})
        return super().register(model_or_iterable, admin_class, **options)

    def get_app_list(self, request, app_label=None):
        """Django's app list (only the apps the user may see), each app's own pages first.

        Returns Django's list of app dicts; a page is a model-like dict
        ``{name, object_name, admin_url, add_url: None, view_only: True}``.
        """
        app_list = super().get_app_list(request, app_label)
        listed = {app["app_label"]: app for app in app_list}
        for config in apps.get_app_configs():
            pages = [(name, url_name) for name, url_name, permission in getattr(config, "admin_pages", ())
                     if request.user.has_perm(permission)]
            if not pages or app_label not in (None, config.label):
                continue
            app = listed.get(config.label)
            if app is None:
                app = {"name": config.verbose_name, "app_label": config.label, "has_module_perms": True,
                       "app_url": reverse("admin:app_list", kwargs={"app_label": config.label},
                                          current_app=self.name),
                       "models": []}
                app_list.append(app)
            app["models"] = [
                {"name": name, "object_name": url_name.rsplit(":", 1)[-1], "admin_url": reverse(url_name),
                 "add_url": None, "view_only": True, "perms": {"view": True}}
                for name, url_name in pages
            ] + app["models"]
        app_list.sort(key=lambda app: app["name"].lower())
        return app_list
