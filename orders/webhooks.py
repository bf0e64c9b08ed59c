"""Stripe's webhook: ``/stripe/webhook/``, one endpoint for the events the shop acts on.

Every request's ``Stripe-Signature`` is verified with the library's
``stripe.Webhook.construct_event`` and the webhook secret
(``webhook_secret()``): a bad or missing signature is a 400 and changes
nothing. Then, for an event about *this* shop's payments (the metadata names
the shop, ``payments.shop_id()``; another shop's event is a 200 that changes
nothing):

* ``payment_intent.succeeded``: the attempt is settled from the intent as
  Stripe reports it (``reconcile.settle_attempt``): the order is placed if
  the shopper's browser never came back (or refunded, never both);
* ``payment_intent.payment_failed``: the attempt is released (the intent
  cancelled so it can never succeed later, the cart back to the shopper);
* ``charge.refunded``: each refund of the charge not yet on its order is
  recorded there (a refund made in Stripe's dashboard).

Any other type is a 200 and changes nothing. Each event is applied at most
once: its id is stored in ``payment_events`` (``_id``, unique) before it is
applied, and removed again if applying it fails (Stripe then sends it again).
"""

import json
import logging

from django.conf import settings
from django.http import HttpResponse, HttpResponseBadRequest
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from .models import PaymentAttempt, PaymentEvent
from .payments import get_provider, shop_id
from .reconcile import settle_attempt
from .refunds import record_provider_refund

logger = logging.getLogger(__name__)

def webhook_secret():
    """The secret (str) events must be signed with: ``STRIPE_WEBHOOK_SECRET``; or, on the local
    Stripe, the one made at random for its state directory (``LocalStripe.webhook_secret``),
    never a constant a forged event could be signed with; "" with a real key and no secret."""
    if settings.STRIPE_WEBHOOK_SECRET or settings.STRIPE_SECRET_KEY:
        return settings.STRIPE_WEBHOOK_SECRET
    from .stripelocal import LocalStripe

    return LocalStripe().webhook_secret()


@csrf_exempt
@require_POST
def receive(request):
    """Verify, de-duplicate and apply one event (see the module docstring). 200, or 400 for a
    bad signature or body; 503 when applying failed (Stripe retries)."""
    import stripe

    secret = webhook_secret()
    try:
        event = stripe.Webhook.construct_event(request.body, request.headers.get("Stripe-Signature", ""), secret)
    except (ValueError, stripe.SignatureVerificationError):
        return HttpResponseBadRequest("Bad or missing Stripe-Signature.", content_type="text/plain")
    event = json.loads(request.body)  # plain dicts from here on
    handler = HANDLERS.get(event.get("type"))
    obj = (event.get("data") or {}).get("object") or {}
    if handler is None or (obj.get("metadata") or {}).get("shop") != shop_id():
        return HttpResponse("Ignored.", content_type="text/plain")
    if not PaymentEvent.objects.record(event["id"], event["type"]):
        return HttpResponse("Already applied.", content_type="text/plain")
    try:
        handler(obj)
    except Exception:
        PaymentEvent.objects.forget(event["id"])
        logger.exception("Stripe event %s (%s) not applied; Stripe will send it again.", event["id"], event["type"])
        return HttpResponse("Not applied; send it again.", status=503, content_type="text/plain")
    return HttpResponse("Applied.", content_type="text/plain")


def _settle(obj):
    """Settle the attempt named in the intent's metadata, asking Stripe (never the event)."""
    key = (obj.get("metadata") or {}).get("attempt")
    attempt = PaymentAttempt.objects.get_raw(key) if key else None
    if attempt is None or attempt.get("intent_id") != obj.get("id"):
        return
    settle_attempt(key, get_provider(), wait_for_action=False)


def _refunded(obj):
    """Record on the order each refund of this charge not yet recorded (one write each)."""
    intent_id = obj.get("payment_intent")
    for refund in ((obj.get("refunds") or {}).get("data") or []):
        record_provider_refund(intent_id, refund["id"], int(refund["amount"]), refund.get("reason") or "")


HANDLERS = {
    "payment_intent.succeeded": _settle,
    "payment_intent.payment_failed": _settle,
    "charge.refunded": _refunded,
}
