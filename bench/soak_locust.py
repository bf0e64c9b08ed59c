"""Locust shoppers for the soak load run (``python bench/soak.py load``; Locust runs this file).

Each shopper keeps its cookies (its session and cart) and, in a loop with
1 to 3 seconds of thought between requests: opens the home page, a category
page, product pages and searches, adds to its cart, and now and then checks
out paying with Stripe's test card 4242 4242 4242 4242, turned into a token by the
Stripe the page loads (the local Stripe: the shopper's browser would do the same
through Stripe.js), so only the token reaches the shop. The products are those
``bench/soak.py`` generates for the run (``GEN-000000`` ... ``GEN-000299``,
categories ``top-0`` ... ``top-9``). Requests are named by kind, so
Locust's figures read per page. Every request is also written to the CSV file
``SOAK_REQUEST_LOG`` names (start time, name, response time, the ``Server-Timing``
wait on Stripe, failed), from which ``bench/soak.py`` reports the shop's own
time minute by minute. Not imported by the shop (Locust is no
dependency of it): run with Locust's own virtualenv.
"""

import csv
import os
import random
import re

from locust import HttpUser, between, events, task

PRODUCTS = [f"GEN-{number:06d}" for number in range(300)]
CATEGORIES = [f"top-{number}" for number in range(10)]
# The generated titles' made-up words (catalog/transfer/generate.py builds them the same way).
WORDS = sorted({a + b + c for a in ("ba", "ke", "ti", "ro", "mu") for b in ("ka", "do", "ri") for c in ("do", "ru", "an")})
CHECKOUT = {"name": "Soak Shopper", "email": "soak@example.com", "ship-name": "Soak Shopper",
            "ship-line1": "1 Load Street", "ship-city": "London", "ship-postcode": "EC1V 9NR",
            "ship-country": "GB"}
CARD = {"card[number]": "4242424242424242", "card[exp_month]": "12", "card[exp_year]": "2039",
        "card[cvc]": "123"}
TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
STRIPE_JS = re.compile(r'<script src="([^"]+)/js\.stripe\.com/v3/?"')
STRIPE_KEY = re.compile(r'data-key="([^"]+)"')
CONFIRMED_TOTAL = re.compile(r'name="confirmed_total" value="(\d+)"')
STRIPE_WAIT = re.compile(r"stripe;dur=([\d.]+)")
#: The name of the request Stripe.js makes: to Stripe, not to the shop.
STRIPE_JS_REQUEST = "stripe token (Stripe.js)"
_log = None


@events.test_start.add_listener
def open_log(environment, **kwargs):
    global _log
    path = os.environ.get("SOAK_REQUEST_LOG")
    if path:
        handle = open(path, "w", newline="")
        _log = (handle, csv.writer(handle))
        _log[1].writerow(["start", "name", "ms", "stripe_ms", "failed"])


@events.request.add_listener
def log_request(name, response_time, response=None, exception=None, start_time=None, **kwargs):
    """One row per request: when it started (epoch seconds), its name, its response time and
    the part of it the shop spent waiting on Stripe (its Server-Timing header), in ms."""
    if _log is None:
        return
    timing = response.headers.get("Server-Timing", "") if response is not None else ""
    waited = STRIPE_WAIT.search(timing)
    _log[1].writerow([f"{start_time or 0:.3f}", name, f"{response_time:.1f}",
                      waited.group(1) if waited else "0", int(exception is not None)])


@events.test_stop.add_listener
def close_log(environment, **kwargs):
    if _log is not None:
        _log[0].close()


class Shopper(HttpUser):
    wait_time = between(1, 3)

    def token(self, page):
        found = TOKEN.search(page.text or "")
        return found.group(1) if found else self.client.cookies.get("csrftoken", "")

    @task(3)
    def home(self):
        self.client.get("/", name="home")

    @task(4)
    def category(self):
        self.client.get(f"/c/{random.choice(CATEGORIES)}/", name="category")

    @task(6)
    def product(self):
        self.client.get(f"/p/{random.choice(PRODUCTS)}/", name="product")

    @task(3)
    def search(self):
        self.client.get(f"/search/?q={random.choice(WORDS)}", name="search")

    @task(3)
    def add_to_cart(self):
        sku = random.choice(PRODUCTS)
        page = self.client.get(f"/p/{sku}/", name="product")
        self.client.post("/cart/add/", {"sku": sku, "qty": 1, "csrfmiddlewaretoken": self.token(page)},
                         name="cart add")

    @task(1)
    def checkout(self):
        page = self.client.get("/checkout/", name="checkout form")
        text = page.text or ""
        stripe, key = STRIPE_JS.search(text), STRIPE_KEY.search(text)
        if "stripe_token" not in text or stripe is None or key is None:
            return  # an empty cart: nothing to check out
        # What Stripe.js does in the shopper's browser: the card to Stripe, a token back.
        made = self.client.post(f"{stripe.group(1)}/v1/tokens", {**CARD, "key": key.group(1)},
                                name=STRIPE_JS_REQUEST)
        total = CONFIRMED_TOTAL.search(text)
        form = {**CHECKOUT, "csrfmiddlewaretoken": self.token(page), "stripe_token": made.json().get("id", ""),
                "confirmed_total": total.group(1) if total else ""}
        with self.client.post("/checkout/", form, name="checkout", catch_response=True) as answer:
            if answer.status_code >= 400:
                answer.failure(f"checkout answered {answer.status_code}")
