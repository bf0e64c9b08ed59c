from django.apps import AppConfig


class ApiConfig(AppConfig):
    """The read-only JSON catalog API under ``/api/v1/`` (django-ninja): documents and
    subdocuments by path (FoundationDB "Hierarchical Documents" recipe), categories and their product listings."""

    name = "api"
    verbose_name = "Catalog API"
