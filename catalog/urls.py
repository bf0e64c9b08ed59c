from django.urls import path

from catalog.storefront import views

app_name = "catalog"
urlpatterns = [
    path("", views.home, name="home"),
    path("c/<slug:slug>/", views.category, name="category"),
    path("p/<str:sku>/", views.product, name="product"),
    path("genre/<path:genre>/", views.genre, name="genre"),
    path("deals/", views.deals, name="deals"),
    path("artist/<path:name>/", views.artist, name="artist"),
    path("actor/<path:name>/", views.actor, name="actor"),
    path("search/", views.search, name="search"),
    path("search/suggest/", views.suggest, name="suggest"),
]
