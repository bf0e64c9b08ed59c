"""The shop's admin site: Django's, with the pages an app serves itself listed under its heading.

An app whose staff pages are views of its own rather than ModelAdmins (the
sales dashboard and reports of ``analytics``) names them on its AppConfig::

    admin_pages = [("Sales dashboard", "analytics:dashboard"), ...]

and the admin index (and the admin's navigation sidebar) lists them first in
that app's box, each with a "View" link; the box is shown to every staff
member (the pages are ``admin_view``s: any staff may open them), even one
who may see none of the app's models. Installed through
``MongoAdminConfig.default_site`` (Django's documented way to replace the
default site), so ``admin.site`` is this site.
"""

from django.apps import apps
from django.contrib import admin
from django.urls import reverse


class ShopAdminSite(admin.AdminSite):
    """``admin.site``: adds each app's ``admin_pages`` to its entry in the app list."""

    def get_app_list(self, request, app_label=None):
        """Django's app list (only the apps the user may see), each app's own pages first.

        Returns Django's list of app dicts; a page is a model-like dict
        ``{name, object_name, admin_url, add_url: None, view_only: True}``.
        """
        app_list = super().get_app_list(request, app_label)
        listed = {app["app_label"]: app for app in app_list}
        for config in apps.get_app_configs():
            pages = getattr(config, "admin_pages", ())
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
