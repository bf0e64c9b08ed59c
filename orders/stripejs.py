"""Pages that load Stripe.js: the script's address, the publishable key, and the page's CSP.

Only these pages (checkout and its 3-D Secure step) load Stripe.js, and only
they widen the Content-Security-Policy (django-csp's per-response update):
with Stripe, the origins Stripe's security guide lists
(``settings.STRIPE_CSP_PRODUCTION``); with the local fake, its one origin
(its script, and its API which the fake script calls).
"""

from urllib.parse import urlsplit

from django.conf import settings
from django.shortcuts import render


def csp_for(provider):
    """The CSP directives (dict of lists) a page loading ``provider``'s Stripe.js adds."""
    config = provider.client_config()
    if config["js_url"].startswith("https://js.stripe.com/"):
        return {name: list(sources) for name, sources in settings.STRIPE_CSP_PRODUCTION.items()}
    parts = urlsplit(config["js_url"])
    origin = f"{parts.scheme}://{parts.netloc}"
    return {"script-src": [origin], "connect-src": [origin]}


def stripe_page(request, provider, template, context):
    """Render ``template`` with ``stripe`` (``{publishable_key, js_url}``) in ``context`` and the
    page's CSP widened for Stripe.js (``csp_for``)."""
    response = render(request, template, {**context, "stripe": provider.client_config()})
    response._csp_update = csp_for(provider)
    return response
