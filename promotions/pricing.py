"""A cart priced with the session's discount codes, for the cart page (reads only)."""

from catalog.models import Product
from orders import pricing


def cart_priced(cart, context):
    """``pricing.Priced`` of ``cart`` (a ``Cart``) at its lines' prices with ``context`` (a
    ``PricingContext``): one read of the SKUs' facts (``Product.objects.checkout_facts``), one
    more of the codes when there are any. Checkout re-reads the prices; this never writes."""
    lines = [{"sku": line.sku, "title": line.details.title, "qty": line.qty, "price": line.details.price}
             for line in cart.items]
    facts = Product.objects.checkout_facts([line["sku"] for line in lines])
    return pricing.price(lines, facts, context)
