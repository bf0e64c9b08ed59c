from django.urls import path

from core.throttle import throttled

from . import returns_views, views, webhooks

app_name = "orders"
urlpatterns = [
    path("checkout/", throttled("checkout")(views.checkout), name="checkout"),
    path("checkout/status/", views.checkout_status, name="checkout_status"),
    path("checkout/confirm/", views.checkout_confirm, name="checkout_confirm"),
    path("stripe/webhook/", webhooks.receive, name="stripe_webhook"),
    path("order/<str:number>/", views.order, name="order"),
    path("order/<str:number>/return/", returns_views.request_return, name="request_return"),
    path("order/<str:number>/documents/<str:document>.pdf", views.invoice_pdf, name="invoice_pdf"),
]
