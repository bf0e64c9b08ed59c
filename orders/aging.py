"""A database aged like a year of trade, in the shop's own schema (``populatedb --age``).

For the soak benchmark (``bench/soak.py``): what a shop holds after months
of trade, written in bulk (``insert_many`` in batches, a few hundred round
trips for the whole), never through the shoppers' write paths (which would
take hours):

- ``skus`` inventory documents (SKUs ``AGE-000000`` ...), each with
  ``AGED_STOCK`` units available and ``stocked`` = available + sold, so the
  stock invariant holds (``check_inventory`` passes);
- ``orders`` orders placed over the past year (1 to 3 lines of those SKUs;
  90 % delivered, 5 % shipped, 3 % paid, 2 % refunded with their units back),
  each with its payment attempt (``payment_attempts``, ``completed``) and
  its cart (``complete``); the order counter moves past them;
- ``carts - orders`` more carts, finished the other ways: 90 % ``expired``
  (their units back long ago), 10 % ``merged``.

Every document has the fields the shop's code writes. The same ``seed``
makes the same history. Refuses (``ValueError``) a database that already
has carts or orders, and ``orders`` above ``carts``.
"""

import datetime
import random

from bson import ObjectId

from inventory.models import Cart, Inventory
from core import clock

from . import numbers
from .managers.orders import COUNTERS, ORDER_COUNTER
from .models import Order, PaymentAttempt

#: Units still available of each aged SKU.
AGED_STOCK = 1000
#: Documents per insert_many.
BATCH = 5000
STATUSES = [("delivered", 90), ("shipped", 5), ("paid", 3), ("refunded", 2)]
CHAINS = {"paid": ["placed", "paid"], "shipped": ["placed", "paid", "shipped"],
          "delivered": ["placed", "paid", "shipped", "delivered"],
          "refunded": ["placed", "paid", "cancelled", "refunded"]}
ADDRESS = {"name": "Aged Shopper", "line1": "1 Old Street", "line2": "", "city": "London",
           "postcode": "EC1V 9NR", "country": "GB"}


def _insert(collection, documents, progress):
    for start in range(0, len(documents), BATCH):
        batch = documents[start:start + BATCH]
        collection.insert_many(batch, ordered=False)
        if progress is not None:
            progress(len(batch))


def age(carts=300_000, orders=100_000, skus=100_000, seed=7, progress=None):
    """Write a year of trade (see the module docstring): ``carts`` carts, ``orders`` orders with
    their payment attempts, ``skus`` inventory documents. ``progress(n)`` is called after each
    batch with its number of documents. Returns ``{'carts', 'orders', 'skus'}`` (counts written)."""
    if orders > carts:
        raise ValueError("There cannot be more orders than carts: each order is a cart checked out.")
    if Cart.objects.collection.find_one({}, {"_id": 1}) or Order.objects.collection.find_one({}, {"_id": 1}):
        raise ValueError("The database already has carts or orders: age an empty one.")
    rng = random.Random(seed)
    now = clock.now()
    sku_ids = [f"AGE-{number:06d}" for number in range(skus)]
    sold = {}
    cart_documents, order_documents, attempts = [], [], []
    start_number = (Order.objects.get_collection(COUNTERS).find_one({"_id": ORDER_COUNTER}) or {}).get("seq", 0)
    statuses = [status for status, weight in STATUSES for _ in range(weight)]
    for number in range(carts):
        cart_id = f"aged-{number:07d}-{rng.getrandbits(64):016x}"
        moment = now - datetime.timedelta(seconds=rng.randrange(365 * 24 * 3600))
        lines = [{"sku": rng.choice(sku_ids), "qty": rng.randint(1, 2),
                  "details": {"title": f"Aged album {rng.randrange(10_000)}", "price": rng.randrange(799, 1500)}}
                 for _ in range(rng.randint(1, 3))] if sku_ids else []
        cart = {"_id": cart_id, "status": "expired", "last_modified": moment, "items": lines, "user_id": ""}
        if number < orders:
            key = str(ObjectId.from_datetime(moment.replace(tzinfo=None)))[:8] + f"{number:016x}"
            status = rng.choice(statuses)
            order_lines = [{"sku": line["sku"], "title": line["details"]["title"], "qty": line["qty"],
                            "price": line["details"]["price"], "weight": 0} for line in lines]
            subtotal = sum(line["qty"] * line["price"] for line in order_lines)
            tax = subtotal * 20 // 100
            order_number = numbers.format_number(start_number + number + 1)
            charge_id = f"ch_aged_{number}"
            priced = {"user_id": "", "name": "Aged Shopper", "email": f"shopper{number}@example.com",
                      "lines": order_lines, "address": ADDRESS, "subtotal": subtotal, "shipping": 0,
                      "tax": tax, "total": subtotal + tax, "card": {"brand": "Visa", "last4": "4242"},
                      "session_key": ""}
            order_documents.append({
                "_id": ObjectId(key), "number": order_number, "status": status, "placed_at": moment,
                "cart_id": cart_id, **{field: priced[field] for field in (
                    "user_id", "name", "email", "lines", "address", "subtotal", "shipping", "tax", "total")},
                "payment": {"reference": charge_id, "brand": "Visa", "last4": "4242"},
                "history": [{"status": step, "at": moment, "note": ""} for step in CHAINS[status]],
                "restocked": status == "refunded",
            })
            attempts.append({
                "_id": key, "cart_id": cart_id, "amount": subtotal + tax, "status": "completed",
                "charge_id": charge_id, "order_number": order_number, "created_at": moment,
                "updated_at": moment, "recovered": False, "note": "", "order": priced,
            })
            cart.update(status="complete", payment_key=key, customer_name="Aged Shopper",
                        customer_email=priced["email"], payment_reference=charge_id)
            if status != "refunded":
                for line in order_lines:
                    sold[line["sku"]] = sold.get(line["sku"], 0) + line["qty"]
        elif rng.random() < 0.1:
            cart.update(status="merged", merged_into=f"aged-merged-into-{number}")
        cart_documents.append(cart)
    _insert(Inventory.objects.collection,
            [{"_id": sku, "qty": AGED_STOCK, "stocked": AGED_STOCK + sold.get(sku, 0), "carted": []}
             for sku in sku_ids], progress)
    _insert(Cart.objects.collection, cart_documents, progress)
    _insert(Order.objects.collection, order_documents, progress)
    _insert(PaymentAttempt.objects.collection, attempts, progress)
    if orders:
        Order.objects.get_collection(COUNTERS).update_one(
            {"_id": ORDER_COUNTER}, {"$max": {"seq": start_number + orders}}, upsert=True)
    return {"carts": carts, "orders": orders, "skus": skus}
