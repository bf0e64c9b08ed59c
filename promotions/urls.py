from django.urls import path

from core.throttle import throttled

from . import views

app_name = "promotions"
urlpatterns = [
    path("cart/code/", throttled("discount_code")(views.apply_code), name="apply_code"),
    path("cart/code/remove/", views.remove_code, name="remove_code"),
]
