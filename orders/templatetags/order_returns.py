"""``{% return_section %}``: the order page's returns section (``orders/_returns_section.html``),
from ``orders.returns_views.section``. A form posted back with errors (``return_form`` in the
page's context) is shown instead of a fresh one."""

from django import template
from orders.returns_views import section

register = template.Library()


@register.inclusion_tag("orders/_returns_section.html", takes_context=True)
def return_section(context):
    """The returns of ``context["order"]`` and, when some units may be returned now, the form."""

    data = section(context["order"], context.get("return_form"))
    data["csrf_token"] = context.get("csrf_token")
    return data
