"""The automatic offers' labels in the storefront's templates (``promotions.labels``).

    {% load offer_labels %}{% offers_key as offers_key %}
    {% catalog_fragment "cards" ... offers_key scope=... %}
      ... {% for label in product|offer_labels %}<span class="offer">{{ label }}</span>{% endfor %}

``offers_key`` reads nothing (the ``offers`` version token, read with the page's versions);
``offer_labels`` reads the active offers only when some are active (once per process per
change), and decides in Python which of them cover a product.
"""

from django import template

from .. import labels

register = template.Library()


@register.simple_tag
def offers_key():
    """What a kept fragment showing labels is keyed with (``labels.key``)."""
    return labels.key()


@register.filter
def offer_labels(product):
    """The names of the offers in effect now that cover ``product`` (a ``Product`` or document)."""
    return labels.labels_for(product, labels.live())
