"""The automatic offers' labels in the storefront's templates (``promotions.labels``).

    {% load offer_labels %}{% live_offers as offers %}
    {% catalog_fragment "cards" ... offers|offers_key scope=... %}
      ... {% for label in product|offer_labels:offers %}<span class="offer">{{ label }}</span>{% endfor %}

``live_offers`` reads nothing while the kept list is warm (``Offer.objects.live``);
``offers_key`` is the digest a kept fragment is keyed with, so its labels change with the
offers; ``offer_labels`` decides in Python which offers cover a product.
"""

from django import template

from .. import labels

register = template.Library()


@register.simple_tag
def live_offers():
    """The offers in effect now (raw documents, highest priority first)."""
    return labels.live()


@register.filter
def offers_key(offers):
    """The digest (str) of ``offers`` that keys a kept fragment showing their labels."""
    return labels.key(offers if isinstance(offers, list) else labels.live())


@register.filter
def offer_labels(product, offers=None):
    """The names of the offers (``offers``, else those in effect now) covering ``product``."""
    return labels.labels_for(product, offers if isinstance(offers, list) else labels.live())
