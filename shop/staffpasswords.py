"""No staff account with a common password in production: the start refuses.

With DEBUG off, ``check_staff_passwords()`` (run by ``shop.wsgi`` in every
serving process, and by gunicorn's master before it forks) raises
``WeakStaffPassword`` while an active staff account accepts a password on
Django's common password list (``CommonPasswordValidator``: 20,000 of them,
``admin`` among them); the message is one line naming the account and how
to set a password.

Trying 20,000 passwords against a hash is out of the question (one check
of Django's PBKDF2 hash costs about a second), so each password is judged
when it is set: a ``post_save`` receiver of the user model sees the raw
password ``set_password`` kept (``user._password``: ``changepassword``, the
admin's forms, the password reset, ``SHOP_ADMIN_PASSWORD`` at start-up all
go through it) and records the verdict with the hash it belongs to, in the
``staff_password_audit`` collection::

    {_id: str(user pk), password: <the hash judged>, common: bool}

A staff account whose current hash has no verdict (its password set before
this check existed, or by ``create_user``/``create_superuser``, which hash
without ``set_password``: ``createsuperuser --noinput`` with
``DJANGO_SUPERUSER_PASSWORD``, a shell) is tried at the start against its own
username, ``admin`` and the ``TRIED_AT_START`` most common passwords, and
that verdict is recorded too (the cost, a hash check each, is paid once).
"""

import gzip

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import check_password
from django.contrib.auth.password_validation import CommonPasswordValidator
from django.core.exceptions import ValidationError

from core.mongo import get_collection

COLLECTION = "staff_password_audit"
#: How many of the most common passwords an unjudged staff password is tried against at start.
TRIED_AT_START = 10


class WeakStaffPassword(Exception):
    """A staff account accepts a common password (the message: one line, what to do)."""


def is_common(password):
    """True when ``password`` (str) is on Django's common password list (case-insensitive)."""
    try:
        CommonPasswordValidator().validate(password)
    except ValidationError:
        return True
    return False


def _record(user, common):
    get_collection(COLLECTION).replace_one({"_id": str(user.pk)},
                                           {"_id": str(user.pk), "password": user.password, "common": common},
                                           upsert=True)


def record_password(sender, instance, **kwargs):
    """``post_save`` receiver of the user model: the verdict on a password just set (raw in
    ``instance._password``), with its hash. Does nothing when no password was set."""
    raw = getattr(instance, "_password", None)
    if raw is not None and instance.pk is not None:
        _record(instance, is_common(raw))


def most_common(count):
    """The ``count`` most common passwords of Django's list (list of str, most common first)."""
    with gzip.open(CommonPasswordValidator().DEFAULT_PASSWORD_LIST_PATH, "rt", encoding="utf-8") as lines:
        return [line.strip() for _, line in zip(range(count), lines)]


def _accepts_common_password(user):
    document = get_collection(COLLECTION).find_one({"_id": str(user.pk)})
    if document is not None and document.get("password") == user.password:
        return document["common"]
    candidates = dict.fromkeys([user.get_username(), "admin", *most_common(TRIED_AT_START)])
    # check_password() of the hashers module, not the user's: a match must not rewrite the hash.
    common = any(check_password(candidate, user.password) for candidate in candidates)
    _record(user, common)
    return common


def weak_staff_accounts():
    """Usernames (list of str) of the active staff accounts that accept a common password."""
    staff = get_user_model()._default_manager.filter(is_staff=True, is_active=True)
    return [user.get_username() for user in staff
            if user.has_usable_password() and _accepts_common_password(user)]


def check_staff_passwords():
    """With DEBUG off, raise ``WeakStaffPassword`` (one line) when a staff account accepts a
    common password; with DEBUG on, do nothing. One read, plus a verdict per unjudged account."""
    if settings.DEBUG:
        return
    weak = weak_staff_accounts()
    if weak:
        name = weak[0]
        raise WeakStaffPassword(
            f"staff account {name!r} has a common password; set another with "
            f"`python manage.py changepassword {name}` (or SHOP_ADMIN_PASSWORD for "
            f"SHOP_ADMIN_USERNAME), then start again.")
