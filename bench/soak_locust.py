"""Locust shoppers for the soak load run (``python bench/soak.py load``; Locust runs this file).

Each shopper keeps its cookies (its session and cart) and, in a loop with
1 to 3 seconds of thought between requests: opens the home page, a category
page, product pages and searches, adds to its cart, and now and then checks
out paying with Stripe's test card 4242 4242 4242 4242, turned into a token by the
Stripe the page loads (the local Stripe: the shopper's browser would do the same
through Stripe.js), so only the token reaches the shop. The products are those
``bench/soak.py`` generates for the run (``GEN-000000`` ... ``GEN-000299``,
categories ``top-0`` ... ``top-9``). Requests are named by kind, so
Locust's figures read per page. Not imported by the shop (Locust is no
dependency of it): run with Locust's own virtualenv.
"""

import random
import re

from locust import HttpUser, between, task

PRODUCTS = [f"GEN-{number:06d}" for number in range(300)]
CATEGORIES = [f"top-{number}" for number in range(10)]
# The generated titles' made-up words (catalog/generate.py builds them the same way).
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
                                name="stripe token (Stripe.js)")
        total = CONFIRMED_TOTAL.search(text)
        form = {**CHECKOUT, "csrfmiddlewaretoken": self.token(page), "stripe_token": made.json().get("id", ""),
                "confirmed_total": total.group(1) if total else ""}
        with self.client.post("/checkout/", form, name="checkout", catch_response=True) as answer:
            if answer.status_code >= 400:
                answer.failure(f"checkout answered {answer.status_code}")
