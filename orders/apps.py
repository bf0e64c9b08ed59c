from django.apps import AppConfig


class OrdersConfig(AppConfig):
    """Orders: numbers, checkout pricing (shipping, tax), statuses, e-mails, the staff's orders desk."""

    name = "orders"
    default_auto_field = "django_mongodb_backend.fields.ObjectIdAutoField"

    def ready(self):
        from .emails import send_order_confirmation
        from .gift_cards_sold import issue_gift_cards
        from .signals import order_placed

        order_placed.connect(send_order_confirmation, dispatch_uid="orders.send_order_confirmation")
        # Gift cards sold (promotions): issued once and e-mailed when their order is placed (paid).
        order_placed.connect(issue_gift_cards, dispatch_uid="orders.issue_gift_cards")

        from .invoices import credit_note_after_refund
        from .signals import order_refunded

        order_refunded.connect(credit_note_after_refund, dispatch_uid="orders.credit_note_after_refund")

        # A campaign's report in the vouchers' admin reads its codes' orders through the
        # reader orders hands over (promotions/reports.py): promotions imports no orders module.
        from promotions import reports

        from .models import Order

        reports.register(orders_by_carts=Order.objects.by_carts)
