from django.urls import path

from core.throttle import throttled

from . import views

app_name = "orders"
urlpatterns = [
    path("checkout/", throttled("checkout")(views.checkout), name="checkout"),
    path("checkout/status/", views.checkout_status, name="checkout_status"),
    path("order/<str:number>/", views.order, name="order"),
]
