"""Receivers of auth signals: the cart merge at log-in; e-mail addresses stored lower case."""

from django.conf import settings
from django.contrib import messages

from inventory.merge import merge_guest_cart
from inventory.session import CART_COUNT, CART_ID

from .forms import normalize_email


def merge_cart_at_login(sender, request, user, **kwargs):
    """``user_logged_in`` receiver: the session's guest cart becomes the account's (``merge_guest_cart``).

    The session then names the account's cart, and the shopper is told what
    was combined or cut. Staff (who sign in at the admin) are left alone.
    """
    session = getattr(request, "session", None)
    if user.is_staff or session is None:
        return
    result = merge_guest_cart(session.get(CART_ID), user.pk, settings.CART_MAX_LINE_QTY)
    if result.cart_id:
        session[CART_ID] = result.cart_id
    else:
        session.pop(CART_ID, None)
    session[CART_COUNT] = result.count
    if result.message():
        messages.info(request, result.message(), fail_silently=True)


def normalize_user_email(sender, instance, **kwargs):
    """``pre_save`` receiver of the user model: its e-mail stored stripped and lower case, so
    that look-ups by address compare exactly (``accounts.forms.normalize_email``)."""
    if instance.email:
        instance.email = normalize_email(instance.email)
