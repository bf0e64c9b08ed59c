"""Security: headers, escaping of product text, staff-only admin, login rate limit, error pages."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from catalog.models import Pricing, Product

SCRIPT = "<script>alert('owned')</script>"


# --- headers ----------------------------------------------------------------

@pytest.mark.parametrize("path", ["/", "/c/rock/", "/p/CHK-0001/", "/admin/login/", "/p/NOPE/"])
def test_pages_carry_the_security_headers(client, chinook, path):
    answer = client.get(path)
    csp = {d.split()[0]: d.split()[1:] for d in answer["Content-Security-Policy"].split("; ")}
    assert csp["default-src"] == ["'self'"]
    assert csp["script-src"] == ["'self'"]
    assert csp["style-src"] == ["'self'"]
    assert csp["object-src"] == ["'none'"]
    assert csp["frame-ancestors"] == ["'none'"]
    assert "unsafe-inline" not in answer["Content-Security-Policy"]
    assert answer["X-Content-Type-Options"] == "nosniff"
    assert answer["Referrer-Policy"] == "same-origin"
    assert answer["X-Frame-Options"] == "DENY"


def test_https_requests_get_hsts(client, settings):
    answer = client.get("/", secure=True)
    assert answer["Strict-Transport-Security"].startswith("max-age=31536000")


# --- escaping ---------------------------------------------------------------

def test_a_script_tag_in_product_text_is_shown_as_text(client, make_tree):
    tree = make_tree({f"Music {SCRIPT}": {}})
    category = tree[f"Music {SCRIPT}"]
    Product.objects.create(
        sku="XSS-1", type="Audio Album", title=SCRIPT, description=f"Liner notes {SCRIPT}",
        categories=[category.pk], pricing=Pricing(list=999, retail=999),
    )
    for path in ("/p/XSS-1/", category.get_absolute_url(), "/"):
        page = client.get(path).content.decode()
        assert "<script>alert" not in page, path
        assert "&lt;script&gt;alert(&#x27;owned&#x27;)&lt;/script&gt;" in page, path
    # The category name also sits in the JSON-LD breadcrumbs, escaped for a script element.
    page = client.get(category.get_absolute_url()).content.decode()
    assert "\\u003cscript\\u003ealert('owned')\\u003c/script\\u003e" in page


# --- the admin --------------------------------------------------------------

@pytest.fixture
def users():
    User = get_user_model()
    User.objects.create_user("shopper", password="shopper-password-1")
    User.objects.create_user("clerk", password="clerk-password-1", is_staff=True)


def test_the_admin_is_for_staff_only(client, users):
    assert client.get("/admin/").status_code == 302
    client.login(username="shopper", password="shopper-password-1")
    answer = client.get("/admin/")
    assert answer.status_code == 302 and answer.url.startswith("/admin/login/")
    client.login(username="clerk", password="clerk-password-1")
    assert client.get("/admin/").status_code == 200


def admin_login(client, username, password):
    return client.post("/admin/login/?next=/admin/", {"username": username, "password": password})


def test_admin_login_is_locked_after_five_failures(client, users, settings):
    settings.AXES_ENABLED = True  # off in shop/test_settings.py for the test client's login()
    assert settings.AXES_FAILURE_LIMIT == 5
    for _ in range(4):
        assert admin_login(client, "clerk", "wrong").status_code == 200  # the form again
    assert admin_login(client, "clerk", "clerk-password-1").status_code == 302  # resets
    for _ in range(5):
        admin_login(client, "clerk", "wrong")
    locked = admin_login(Client(), "clerk", "clerk-password-1")
    assert locked.status_code == 429
    assert "Too many failed log-ins" in locked.content.decode()
    assert "_auth_user_id" not in locked.client.session
    # Only that username from that address: another address still logs in.
    elsewhere = Client(REMOTE_ADDR="192.0.2.7")
    assert admin_login(elsewhere, "clerk", "clerk-password-1").status_code == 302


def test_admin_login_is_not_locked_when_the_rate_limit_is_off(client, users):
    for _ in range(6):
        admin_login(client, "clerk", "wrong")
    assert admin_login(client, "clerk", "clerk-password-1").status_code == 302


# --- error pages --------------------------------------------------------------

def test_not_found_page_reveals_nothing_internal(client):
    answer = client.get("/p/NO-SUCH/")
    assert answer.status_code == 404
    page = answer.content.decode()
    assert "There is no such page in the shop." in page
    assert "No such product." not in page  # the view's internal message
    assert "urlpatterns" not in page and "Traceback" not in page


def test_csrf_failure_page_is_the_shops(users):
    client = Client(enforce_csrf_checks=True)
    answer = admin_login(client, "clerk", "clerk-password-1")
    assert answer.status_code == 403
    page = answer.content.decode()
    assert "Chinook Records" in page
    assert "CSRF" not in page and "DEBUG" not in page


def test_permission_denied_page_is_the_shops(rf):
    from django.core.exceptions import PermissionDenied
    from django.views.defaults import permission_denied

    answer = permission_denied(rf.get("/"), PermissionDenied("internal reason 17"))
    assert answer.status_code == 403
    page = answer.content.decode()
    assert "This page is not open to you." in page
    assert "internal reason 17" not in page


def test_bad_request_page_reveals_nothing_internal(client):
    answer = client.get("/", headers={"host": "evil.example.com"})
    assert answer.status_code == 400
    page = answer.content.decode()
    assert "The shop could not understand that request." in page
    assert "ALLOWED_HOSTS" not in page and "evil.example.com" not in page


@pytest.mark.parametrize("path", ["/admin/analytics/", "/admin/analytics/reports/"])
def test_staff_chart_pages_allow_inline_styles_only(client, path):
    from tests.support.sales import analyst

    client.force_login(analyst())
    answer = client.get(path)
    assert answer.status_code == 200
    csp = {d.split()[0]: d.split()[1:] for d in answer["Content-Security-Policy"].split("; ")}
    assert csp["style-src"] == ["'self'", "'unsafe-inline'"]
    assert csp["script-src"] == ["'self'"]
    assert csp["default-src"] == ["'self'"]
