"""The checkout's forms: the card (``CheckoutForm``) and the shipping address (``AddressForm``).

Card: the number passes python-stdnum's Luhn check, the expiry is not past.
Address: required fields, a country list, postcode checks. Countries come from django-countries (ISO 3166-1, sorted by name). The
postcode is checked with django-localflavor's form field for the countries
it covers (``POSTCODE_FIELDS``) and normalized as that field does (``sw1a
1aa`` -> ``SW1A 1AA``); elsewhere it is free text. Angle brackets are refused
in every field: an address is printed on parcels and e-mails, never markup.
"""

import datetime
import re

from django import forms
from django.utils import timezone
from django.utils.module_loading import import_string
from django_countries import countries
from stdnum import luhn

from .payments import Card

# Country code -> django-localflavor postcode form field (dotted path).
POSTCODE_FIELDS = {
    "AT": "localflavor.at.forms.ATZipCodeField",
    "AU": "localflavor.au.forms.AUPostCodeField",
    "BE": "localflavor.be.forms.BEPostalCodeField",
    "BR": "localflavor.br.forms.BRZipCodeField",
    "CA": "localflavor.ca.forms.CAPostalCodeField",
    "CH": "localflavor.ch.forms.CHZipCodeField",
    "CZ": "localflavor.cz.forms.CZPostalCodeField",
    "DE": "localflavor.de.forms.DEZipCodeField",
    "DK": "localflavor.dk.forms.DKPostalCodeField",
    "ES": "localflavor.es.forms.ESPostalCodeField",
    "FI": "localflavor.fi.forms.FIZipCodeField",
    "FR": "localflavor.fr.forms.FRZipCodeField",
    "GB": "localflavor.gb.forms.GBPostcodeField",
    "IN": "localflavor.in_.forms.INZipCodeField",
    "IT": "localflavor.it.forms.ITZipCodeField",
    "JP": "localflavor.jp.forms.JPPostalCodeField",
    "MX": "localflavor.mx.forms.MXZipCodeField",
    "NL": "localflavor.nl.forms.NLZipCodeField",
    "NO": "localflavor.no.forms.NOZipCodeField",
    "NZ": "localflavor.nz.forms.NZPostCodeField",
    "PL": "localflavor.pl.forms.PLPostalCodeField",
    "PT": "localflavor.pt.forms.PTZipCodeField",
    "SE": "localflavor.se.forms.SEPostalCodeField",
    "US": "localflavor.us.forms.USZipCodeField",
}


def country_choices():
    """``[("", "Choose a country"), (code, name), ...]`` sorted by name."""
    return [("", "Choose a country"), *((code, name) for code, name in countries)]


class AddressForm(forms.Form):
    """Where the parcel goes; ``cleaned_data`` matches ``orders.models.Address``'s fields."""

    prefix = "ship"

    name = forms.CharField(label="Full name", max_length=200,
                           widget=forms.TextInput(attrs={"autocomplete": "shipping name"}))
    line1 = forms.CharField(label="Address", max_length=200,
                            widget=forms.TextInput(attrs={"autocomplete": "shipping address-line1"}))
    line2 = forms.CharField(label="Address (line 2)", max_length=200, required=False,
                            widget=forms.TextInput(attrs={"autocomplete": "shipping address-line2"}))
    city = forms.CharField(label="Town or city", max_length=100,
                           widget=forms.TextInput(attrs={"autocomplete": "shipping address-level2"}))
    postcode = forms.CharField(label="Postcode", max_length=20, required=False,
                               widget=forms.TextInput(attrs={"autocomplete": "shipping postal-code"}))
    country = forms.ChoiceField(label="Country", choices=country_choices,
                                widget=forms.Select(attrs={"autocomplete": "shipping country"}))

    def clean(self):
        data = super().clean()
        for name, value in list(data.items()):
            if isinstance(value, str) and ("<" in value or ">" in value):
                self.add_error(name, "Remove the < and > characters.")
        country, postcode = data.get("country"), (data.get("postcode") or "").strip()
        if country and "postcode" not in self.errors:
            if country in POSTCODE_FIELDS:
                field = import_string(POSTCODE_FIELDS[country])(required=True)
                try:
                    data["postcode"] = field.clean(postcode)
                except forms.ValidationError as error:
                    self.add_error("postcode", f"Enter a valid postcode for {countries.name(country)}. "
                                               + " ".join(error.messages))
            else:
                data["postcode"] = postcode
        return data

    def address(self):
        """The validated address as a dict of ``Address``'s fields."""
        return {name: self.cleaned_data.get(name) or "" for name in
                ("name", "line1", "line2", "city", "postcode", "country")}


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


class PriceConfirmationForm(forms.Form):
    """The total (cents) the checkout page showed when the shopper pressed Pay: a hidden field
    the page renders from its own figures (``orders/_price_check.html``).

    ``confirmed_total()`` is the value once valid, or None (absent or not a
    whole number of cents: checkout then holds the cart's own prices as shown).
    """

    confirmed_total = forms.IntegerField(min_value=0, required=False, widget=forms.HiddenInput)

    def confirmed(self):
        """The confirmed total in cents, or None."""
        return self.cleaned_data.get("confirmed_total") if self.is_valid() else None
