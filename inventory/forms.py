"""Shopper forms: add to cart, change a line, checkout (with card validation)."""

import datetime
import re

from django import forms
from django.conf import settings
from django.utils import timezone
from stdnum import luhn

from .payments import Card


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


_EXPIRY = re.compile(r"^\s*(\d{1,2})\s*/\s*(\d{2}|\d{4})\s*$")


class CheckoutForm(forms.Form):
    """Name, e-mail and card details; ``card()`` gives the ``payments.Card`` once valid.

    The card number is checked with python-stdnum's Luhn check (``luhn``)
    after spaces and dashes are dropped; expiry is ``MM/YY`` (or ``MM/YYYY``)
    and not past; the CVC is 3 or 4 digits.
    """

    name = forms.CharField(max_length=200)
    email = forms.EmailField()
    card_number = forms.CharField(max_length=30, widget=forms.TextInput(attrs={"autocomplete": "cc-number", "inputmode": "numeric"}))
    expiry = forms.CharField(max_length=7, help_text="MM/YY", widget=forms.TextInput(attrs={"autocomplete": "cc-exp", "placeholder": "MM/YY"}))
    cvc = forms.CharField(label="CVC", max_length=4, widget=forms.TextInput(attrs={"autocomplete": "cc-csc", "inputmode": "numeric"}))

    def clean_card_number(self):
        number = re.sub(r"[\s-]", "", self.cleaned_data["card_number"])
        if not number.isdigit() or not 12 <= len(number) <= 19 or not luhn.is_valid(number):
            raise forms.ValidationError("Enter a valid card number.")
        return number

    def clean_expiry(self):
        match = _EXPIRY.match(self.cleaned_data["expiry"])
        if not match:
            raise forms.ValidationError("Enter the expiry as MM/YY.")
        month, year = int(match.group(1)), int(match.group(2))
        if year < 100:
            year += 2000
        if not 1 <= month <= 12:
            raise forms.ValidationError("Enter a month from 01 to 12.")
        today = timezone.now().date()
        if (year, month) < (today.year, today.month):
            raise forms.ValidationError("This card has expired.")
        if year > today.year + 20:
            raise forms.ValidationError("Enter a valid expiry year.")
        return datetime.date(year, month, 1)

    def clean_cvc(self):
        cvc = self.cleaned_data["cvc"].strip()
        if not re.fullmatch(r"\d{3,4}", cvc):
            raise forms.ValidationError("Enter the 3 or 4 digits on the back of the card.")
        return cvc

    def card(self):
        """The validated card as a ``payments.Card``."""
        data = self.cleaned_data
        return Card(number=data["card_number"], exp_month=data["expiry"].month,
                    exp_year=data["expiry"].year, cvc=data["cvc"], name=data["name"])
