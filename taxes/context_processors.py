"""What the storefront says beside a price: "incl. VAT" or "plus tax" (``SHOP_PRICES_INCLUDE_TAX``)."""

from django.conf import settings


def tax_display(request):
    """``{"price_tax_note": "incl. VAT" | "plus tax", "prices_include_tax": bool}`` for every
    template: prices entered with tax included are shown as paid; without, tax is added at checkout."""
    included = bool(settings.SHOP_PRICES_INCLUDE_TAX)
    return {"prices_include_tax": included, "price_tax_note": "incl. VAT" if included else "plus tax"}
