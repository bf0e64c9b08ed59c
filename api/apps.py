from django.apps import AppConfig


class ApiConfig(AppConfig):
    """The read-only JSON catalog API under ``/api/v1/`` (django-ninja): documents and
    subdocuments by path (seed 002), categories and their product listings."""

    name = "api"
    verbose_name = "Catalog API"
