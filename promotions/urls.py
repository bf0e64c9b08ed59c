from django.urls import path

from core.throttle import throttled

from . import views

app_name = "promotions"
urlpatterns = [
    path("cart/code/", throttled("discount_code")(views.apply_code), name="apply_code"),
    path("cart/code/remove/", views.remove_code, name="remove_code"),
    path("cart/gift-card/", throttled("discount_code")(views.apply_gift_card), name="apply_gift_card"),
    path("cart/gift-card/remove/", views.remove_gift_card, name="remove_gift_card"),
    path("cart/gift-recipient/", views.set_gift_recipient, name="set_gift_recipient"),
]
