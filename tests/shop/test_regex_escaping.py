"""No user text reaches the database as a regular expression.

Every command the ORM sends is seen through pymongo's command monitoring (the
backend's ``CommandCounter``, a ``pymongo.monitoring.CommandListener``); each
``$regex`` and ``$regexMatch`` pattern in it is checked to be the user's text
escaped (``re.escape``), anchored at most. SecantusDB evaluates ``$regex``
with Python's ``re`` and no time limit, so an unescaped ``a.*.*.*!@x.co``
held the whole server for seconds to hours (``core.mongo.base``).
"""

import re

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client

from core.mongo.counter import count_operations

HOSTILE = "a" + ".*" * 12 + "!@x.co"
METACHARACTERS = r"a.*+?^$()[]{}|\b%_x"


def patterns(ops):
    """Every regular expression (str) in the commands of ``ops``: ``$regex`` values and
    ``$regexMatch``'s ``regex``, wherever they sit in the command documents."""
    found = []

    def walk(value):
        if isinstance(value, dict):
            for key, item in value.items():
                if key == "$regex":
                    found.append(item.pattern if hasattr(item, "pattern") else item)
                elif key == "$regexMatch" and isinstance(item, dict):
                    found.append(item.get("regex"))
                    walk(item.get("input"))
                else:
                    walk(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item)

    for command in ops.commands:
        walk(command)
    return found


def assert_escaped(found, text):
    """Each pattern in ``found`` is ``re.escape(text)``, optionally between ``^`` and ``$``."""
    assert found, "no pattern was sent"
    for pattern in found:
        assert isinstance(pattern, str), pattern
        body = pattern.removeprefix("^").removesuffix("$")
        assert body == re.escape(text), f"unescaped pattern sent: {pattern!r}"


@pytest.mark.parametrize("lookup", ["iexact", "contains", "icontains", "startswith", "istartswith",
                                    "endswith", "iendswith"])
def test_every_pattern_lookup_sends_the_text_escaped(lookup):
    User = get_user_model()
    User.objects.create_user("meta", email=METACHARACTERS)
    User.objects.create_user("other", email="aXXXbcdx@x.co")
    with count_operations() as ops:
        found = list(User.objects.filter(**{f"email__{lookup}": METACHARACTERS}))
    assert_escaped(patterns(ops), METACHARACTERS)
    # Escaped, it still means the text itself: the account is found, the other one is not.
    assert [u.username for u in found] == ["meta"]


def test_iexact_is_still_case_insensitive():
    User = get_user_model()
    User.objects.create_user("ada", email="ada@example.com")
    assert User.objects.filter(email__iexact="ADA@Example.COM").count() == 1
    assert User.objects.filter(email__iexact="ada@example.co").count() == 0


def test_the_password_reset_form_sends_no_pattern(client):
    get_user_model().objects.create_user("ada", email="ada@example.com", password="x-Long-pass-1")
    with count_operations() as ops:
        answer = client.post("/account/password/reset/", {"email": HOSTILE})
    assert answer.status_code == 302
    assert patterns(ops) == []


def test_addresses_are_stored_lower_case():
    user = get_user_model().objects.create_user("boss", email=" Boss@Example.COM ")
    user.refresh_from_db()
    assert user.email == "boss@example.com"


@pytest.fixture
def superuser_client():
    user = get_user_model().objects.create_superuser("root", "root@example.com", "pw-Long-enough-1")
    client = Client()
    client.force_login(user)
    return client


def changelist_urls():
    """``(url, model admin)`` of every registered ModelAdmin's change list that has a search box."""
    return [(f"/admin/{model._meta.app_label}/{model._meta.model_name}/", model_admin)
            for model, model_admin in admin.site._registry.items() if model_admin.search_fields]


def test_every_admin_search_box_sends_its_text_escaped(superuser_client):
    urls = changelist_urls()
    assert len(urls) >= 6
    for url, model_admin in urls:
        with count_operations() as ops:
            answer = superuser_client.get(url, {"q": HOSTILE})
        assert answer.status_code == 200, url
        for pattern in patterns(ops):
            assert pattern.removeprefix("^").removesuffix("$") == re.escape(HOSTILE), (url, pattern)


@pytest.mark.parametrize("lookup", ["regex", "iregex"])
def test_the_admin_refuses_pattern_lookups_in_its_urls(superuser_client, lookup):
    with count_operations() as ops:
        answer = superuser_client.get("/admin/auth/user/", {f"email__{lookup}": HOSTILE})
    assert answer.status_code == 400
    assert patterns(ops) == []


def test_the_admin_escapes_other_lookups_in_its_urls(superuser_client):
    with count_operations() as ops:
        answer = superuser_client.get("/admin/auth/user/", {"email__iexact": HOSTILE})
    assert answer.status_code == 200
    assert_escaped(patterns(ops), HOSTILE)


def test_overlong_pattern_text_is_refused_or_finds_nothing(superuser_client):
    """Over 200 characters: escaped, it would pass SecantusDB's cap of 1,000 a pattern (a 500)."""
    long_text = "." * 2000
    assert superuser_client.get("/admin/auth/user/", {"email__icontains": long_text}).status_code == 400
    with count_operations() as ops:
        answer = superuser_client.get("/admin/auth/user/", {"q": long_text})
    assert answer.status_code == 200 and patterns(ops) == []
