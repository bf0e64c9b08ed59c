"""The ``money`` template filter: ``{% load money %}``, then ``{{ cents|money }}``."""

from django import template

from core.money import display

register = template.Library()


@register.filter
def money(cents):
    """Format an integer amount of cents as dollars: ``1299`` -> ``$12.99`` (``core.money.display``)."""
    return display(cents)
