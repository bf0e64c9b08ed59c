"""Template filters of the shop."""

from django import template

register = template.Library()


@register.filter
def money(cents):
    """Format an integer amount of cents as dollars: ``1299`` -> ``$12.99``."""
    if cents in (None, ""):
        return ""
    cents = int(cents)
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) // 100:,}.{abs(cents) % 100:02d}"
