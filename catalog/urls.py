from django.urls import path

from . import views

app_name = "catalog"
urlpatterns = [
    path("", views.home, name="home"),
    path("c/<slug:slug>/", views.category, name="category"),
    path("p/<str:sku>/", views.product, name="product"),
]
