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

import ipaddress

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


def client_key(request):
    """The client as the shop's limits count it (str), or None when there is no address:
    ``client_ip``, except that an IPv6 address stands for its ``SHOP_IPV6_PREFIX`` network
    (default /64, what one home router hands out), written as that network's first address
    (``2001:db8:1:2::``), so that one household's 2^64 addresses are one client. IPv4
    addresses (and IPv4-mapped IPv6 ones) count as themselves. Never raises."""
    address = client_ip(request)
    if not address:
        return address
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if parsed.version == 6:
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        network = ipaddress.ip_network(f"{parsed}/{settings.SHOP_IPV6_PREFIX}", strict=False)
        return str(network.network_address)
    return address
