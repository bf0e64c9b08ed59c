from django.apps import AppConfig


class AnalyticsConfig(AppConfig):
    """Sales analytics (seed 001's hierarchical aggregation): events, rollups, the staff dashboard."""

    name = "analytics"
    default_auto_field = "django_mongodb_backend.fields.ObjectIdAutoField"
    #: Listed first under "Analytics" on the admin index (``shop.admin_site``).
    admin_pages = [("Sales dashboard", "analytics:dashboard"), ("Sales reports", "analytics:reports")]

    def ready(self):
        # Sales come from placed orders (orders.signals.order_placed): one sale event per sold line.
        from orders.signals import order_placed

        from .receivers import record_completed_order

        order_placed.connect(record_completed_order, dispatch_uid="analytics.record_completed_order")
