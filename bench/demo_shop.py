"""The demo shop as shoppers get it in production, for ``bench/screenshots.py`` and ``bench/lighthouse.py``.

    from bench.demo_shop import DemoShop, PAGES

    with DemoShop(workdir) as shop:               # gunicorn, the demo catalog, /healthz 200
        cookie = shop.cart_cookie(CART_SKUS)      # "sessionid=..." of a guest cart of those SKUs

gunicorn with ``gunicorn.conf.py`` and the production settings (DEBUG off, a random
secret key, WhiteNoise serving the compressed, hashed files ``collectstatic`` wrote), on
plain http on 127.0.0.1 (no https redirect: browsers treat 127.0.0.1 as a secure origin,
so ``Secure`` cookies still work; Django serves the uploaded images in ``workdir/media``,
which production leaves to the web server), on a local database of its own in ``workdir/db``,
loaded with the Chinook demo at the first start (the catalog, the home page's content,
the sales: a few minutes; a later run on the same ``workdir`` reuses it), and a local
Stripe of its own in ``workdir/stripe`` (``SHOP_PAYMENTS_TEST_MODE=1``: a staging shop;
checkout loads the local Stripe's Stripe.js where production loads js.stripe.com). Both
servers and gunicorn are stopped on leaving the ``with``.
"""

import os
import re
import signal
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
if str(BASE_DIR) not in sys.path:  # run as bench/<script>.py
    sys.path.insert(0, str(BASE_DIR))

from bench.chaos_support import LiveShop  # noqa: E402

#: The storefront pages measured and photographed: (name, path). The product has variants
#: (CD and vinyl); the cart and checkout pages are drawn with a cart of ``CART_SKUS``.
PAGES = [
    ("home", "/"),
    ("category", "/c/rock/"),
    ("product", "/p/CHK-0003/"),
    ("cart", "/cart/"),
    ("checkout", "/checkout/"),
]
#: The cart's two lines: an album's vinyl variant and another album.
CART_SKUS = ["CHK-0003-LP", "CHK-0001"]


class DemoShop(LiveShop):
    """``LiveShop`` with the demo catalog, production cookies and a local Stripe in ``workdir/stripe``.

    ``workdir``: a directory of the caller's (the database, static files, the local Stripe's
    state and gunicorn's log go there); ``workers``: gunicorn workers (default 2).
    """

    def __init__(self, workdir, workers=2):
        stripe_dir = Path(workdir) / "stripe"
        super().__init__(workdir, workers=workers, demo=True, environ={
            "DJANGO_SECURE_COOKIES": "1",  # as in production (LiveShop turns them off)
            "SHOP_LOCAL_STRIPE_DIR": str(stripe_dir),
            # Staff's uploads (the home page's hero image) in the workdir, served by Django:
            # in production the web server in front serves /media/ (docs/production.md).
            "DJANGO_MEDIA_ROOT": str(Path(workdir) / "media"), "SHOP_SERVE_MEDIA": "1",
        })
        self.environ["SHOP_SITE_URL"] = self.base
        self.stripe_dir = stripe_dir

    def start(self, timeout=900):
        """As ``LiveShop.start`` (the first start on an empty ``workdir`` loads the demo: minutes),
        then 20 more units of each of ``CART_SKUS`` (``manage.py restock``)."""
        self.stripe_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        super().start(timeout=timeout)
        for sku in CART_SKUS:  # earlier runs' carts and orders hold units: enough for this one
            restocked = self.manage("restock", sku, "20")
            if restocked.returncode:
                raise RuntimeError(f"restock {sku}: {restocked.stderr.strip()[-300:]}")
        return self

    def stop(self):
        """Stop gunicorn, the local database server and this shop's local Stripe."""
        super().stop()
        from orders.stripelocal import LocalStripe

        pid = LocalStripe(self.stripe_dir).pid()
        if pid:
            os.kill(pid, signal.SIGTERM)

    def cart_cookie(self, skus):
        """A new guest session with one unit of each SKU of ``skus`` in its cart, as a browser
        adds them (the product page's CSRF token, then ``POST /cart/add/``): its ``Cookie``
        header value (str, ``csrftoken=...; sessionid=...``). Raises ``RuntimeError`` when an
        add is refused."""
        cookies, location = {}, ["/"]

        def request(path, data=None):
            headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())}
            if data is not None:
                headers["Referer"] = self.base + path
                data = urllib.parse.urlencode(data).encode()
            opener = urllib.request.build_opener(_NoRedirect)
            try:
                answer = opener.open(urllib.request.Request(self.base + path, data=data, headers=headers),
                                     timeout=60)
            except urllib.error.HTTPError as error:  # the redirect after a POST
                answer = error
            for header in answer.headers.get_all("Set-Cookie") or []:
                name, _, rest = header.partition("=")
                cookies[name.strip()] = rest.split(";", 1)[0]
            location[:] = [urllib.parse.urlsplit(answer.headers.get("Location") or path).path]
            return answer.status, answer.read().decode(errors="replace")

        for sku in skus:
            product = sku.rsplit("-", 1)[0] if sku.count("-") > 1 else sku
            status, page = request(f"/p/{product}/")
            token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
            if status != 200 or not token:
                raise RuntimeError(f"/p/{product}/ answered {status} without an add-to-cart form")
            status, _ = request("/cart/add/", {"csrfmiddlewaretoken": token.group(1), "sku": sku, "qty": 1})
            if status not in (302, 303):
                raise RuntimeError(f"adding {sku} to the cart answered {status}")
            request(location[0])  # the page after the add shows (and clears) its message
        return "; ".join(f"{k}={v}" for k, v in cookies.items())


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None

