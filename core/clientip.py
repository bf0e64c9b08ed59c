"""The client's address behind the shop's reverse proxies, for django-axes.

``settings.AXES_CLIENT_IP_CALLABLE`` names ``client_ip``. Behind the
documented set-up every request reaches gunicorn from the proxy
(REMOTE_ADDR 127.0.0.1), and the proxy appends the address it received the
request from to X-Forwarded-For; a client may put any addresses in front
of that. So the client is the ``SHOP_PROXY_COUNT``-th entry from the right,
the one the outermost trusted proxy wrote. python-ipware parses the header
(ports, IPv6 brackets, junk). Not django-ipware's ``get_client_ip`` (what
django-axes uses by default): it validates the chain strictly, so a client
that sends its own X-Forwarded-For (as many office proxies do) fell back
to REMOTE_ADDR, and all such clients shared the proxy's address again.
"""

from django.conf import settings
from python_ipware import IpWare


def client_ip(request):
    """The client's address (str) for the login rate limit, or None when there is none.

    With ``settings.SHOP_PROXY_COUNT`` n > 0: the n-th address from the right of
    X-Forwarded-For; REMOTE_ADDR when the header is missing or holds fewer than
    n addresses. With 0 (no proxy): REMOTE_ADDR, the header ignored. Never raises.
    """
    count = settings.SHOP_PROXY_COUNT
    if count > 0:
        # python-ipware counts the proxies listed in the header; the last proxy is not
        # listed (it is the peer, REMOTE_ADDR), hence count - 1.
        finder = IpWare(precedence=("HTTP_X_FORWARDED_FOR",), proxy_count=count - 1)
        address, _trusted = finder.get_client_ip(request.META, strict=False)
        if address is not None:
            return str(address)
    return request.META.get("REMOTE_ADDR")
