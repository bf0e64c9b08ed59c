"""``PaymentEvent.objects``: the Stripe webhook events applied, each at most once (``payment_events``)."""

from django.db import models
from pymongo.errors import DuplicateKeyError

from core import clock
from core.mongo.collections import MongoCollectionMixin


class PaymentEventManager(MongoCollectionMixin, models.Manager):
    """The Stripe webhook events applied (``payment_events``, ``_id`` the event's id)."""

    def record(self, event_id, event_type):
        """Record event ``event_id`` before it is applied (one write). True the first time; False
        when it is recorded already (a replay, or Stripe sending it again): apply nothing then."""
        try:
            self.collection.insert_one({"_id": event_id, "type": event_type, "received_at": clock.now()})
        except DuplicateKeyError:
            return False
        return True

    def forget(self, event_id):
        """Drop event ``event_id``: applying it failed, so that Stripe's next try applies it (one write)."""
        self.collection.delete_one({"_id": event_id})
