from django.urls import path

from core.throttle import throttled

from . import views

app_name = "inventory"
urlpatterns = [
    path("cart/", views.cart, name="cart"),
    path("cart/add/", throttled("cart_add")(views.add_to_cart), name="add"),
    path("cart/update/", views.update_line, name="update"),
    path("cart/remove/", views.remove_line, name="remove"),
]
