"""The managers of the orders app, one module per collection: ``Order.objects`` (``orders.py``),
``PaymentAttempt.objects`` (``ledger.py``: the payment ledger) and ``PaymentEvent.objects``
(``payment_events.py``: the webhook events applied)."""

from .ledger import PaymentAttemptManager
from .orders import OrderManager
from .payment_events import PaymentEventManager

__all__ = ["OrderManager", "PaymentAttemptManager", "PaymentEventManager"]
