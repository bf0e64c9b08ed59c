"""/account/addresses/...: the address book (``addresses.views``)."""

from django.urls import path

from . import views

app_name = "addresses"
urlpatterns = [
    path("add/", views.add, name="add"),
    path("<str:pk>/", views.edit, name="edit"),
    path("<str:pk>/delete/", views.delete, name="delete"),
    path("<str:pk>/default/<str:kind>/", views.make_default, name="make_default"),
]
