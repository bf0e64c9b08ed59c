"""Shopper forms of the cart: add to cart, change a line, remove a line (checkout's: ``orders.forms``)."""

from django import forms
from django.conf import settings


class LineForm(forms.Form):
    """A SKU and a quantity: 1..``settings.CART_MAX_LINE_QTY`` (0 allowed with ``allow_zero``)."""

    sku = forms.CharField(max_length=64)
    qty = forms.IntegerField(label="Quantity", initial=1)

    def __init__(self, *args, allow_zero=False, **kwargs):
        super().__init__(*args, **kwargs)
        # Built here, not at import, so that the bounds follow the setting.
        self.fields["qty"] = forms.IntegerField(
            label="Quantity", initial=1, min_value=0 if allow_zero else 1,
            max_value=settings.CART_MAX_LINE_QTY,
        )


class RemoveForm(forms.Form):
    """The SKU of the line to remove."""

    sku = forms.CharField(max_length=64)
