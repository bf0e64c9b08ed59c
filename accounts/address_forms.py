"""The address book's form: checkout's ``AddressForm`` (the same checks: required fields,
postcode format and regions per country) with a label and without the VAT number."""

from django import forms

from orders.forms import AddressForm


class SavedAddressForm(AddressForm):
    """An address of the address book; ``address()`` gives its fields, ``label()`` its label."""

    prefix = None
    vat_number = None
    label = forms.CharField(label="Label (optional)", max_length=40, required=False,
                            help_text='e.g. "Home" or "Work"')

    field_order = ["label", "name", "line1", "line2", "city", "postcode", "country", "region"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for field in self.fields.values():  # the account page: no "shipping" section token
            autocomplete = field.widget.attrs.get("autocomplete", "")
            if autocomplete.startswith("shipping "):
                field.widget.attrs["autocomplete"] = autocomplete.removeprefix("shipping ")

    def _clean_tax_fields(self, data):
        data.setdefault("vat_number", "")
        super()._clean_tax_fields(data)
        data.pop("vat_number", None)

    def label_text(self):
        """The label typed ("" for none)."""
        return self.cleaned_data.get("label") or ""
