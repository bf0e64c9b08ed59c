"""URLs of the content app: the home page (before the catalog's, which it falls back to) and
``/pages/<slug>/`` (the slug converter: letters, digits, ``-`` and ``_`` only)."""

from django.urls import path

from . import views

app_name = "content"

urlpatterns = [
    path("", views.home, name="home"),
    path("pages/<slug:slug>/", views.page, name="page"),
]
