from django.urls import path

from core.throttle import throttled

from . import codes, returns_views, views, webhooks

app_name = "orders"
urlpatterns = [
    path("checkout/", throttled("checkout")(views.checkout), name="checkout"),
    path("checkout/status/", views.checkout_status, name="checkout_status"),
    path("checkout/confirm/", views.checkout_confirm, name="checkout_confirm"),
    # The cart page's discount codes and gift cards (orders/codes.py).
    path("cart/code/", throttled("discount_code")(codes.apply_code), name="apply_code"),
    path("cart/code/remove/", codes.remove_code, name="remove_code"),
    path("cart/gift-card/", throttled("discount_code")(codes.apply_gift_card), name="apply_gift_card"),
    path("cart/gift-card/remove/", codes.remove_gift_card, name="remove_gift_card"),
    path("cart/gift-recipient/", codes.set_gift_recipient, name="set_gift_recipient"),
    path("stripe/webhook/", webhooks.receive, name="stripe_webhook"),
    path("order/<str:number>/", views.order, name="order"),
    path("order/<str:number>/return/", returns_views.request_return, name="request_return"),
    path("order/<str:number>/documents/<str:document>.pdf", views.invoice_pdf, name="invoice_pdf"),
]
