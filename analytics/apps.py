from django.apps import AppConfig


class AnalyticsConfig(AppConfig):
    """Sales analytics (MongoDB's "Hierarchical Aggregation" use case): events, rollups, the staff dashboard."""

    name = "analytics"
    default_auto_field = "django_mongodb_backend.fields.ObjectIdAutoField"
    #: Listed first under "Analytics" on the admin index (``shop.admin_site``), to staff with
    #: the permission named (``analytics.urls`` requires it).
    admin_pages = [("Sales dashboard", "analytics:dashboard", "analytics.view_rollupprogress"),
                   ("Sales reports", "analytics:reports", "analytics.view_rollupprogress")]

    def ready(self):
        # The storefront, the cart and checkout send signals; analytics records their events.
        from catalog.signals import product_viewed
        from inventory.signals import line_added
        from orders.signals import order_placed, order_refunded

        from . import receivers

        product_viewed.connect(receivers.record_product_view, dispatch_uid="analytics.record_product_view")
        line_added.connect(receivers.record_line_added, dispatch_uid="analytics.record_line_added")
        order_placed.connect(receivers.record_completed_order, dispatch_uid="analytics.record_completed_order")
        order_refunded.connect(receivers.record_refund, dispatch_uid="analytics.record_refund")
