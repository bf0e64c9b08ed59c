"""The cart page's code form."""

from django import forms


class CodeForm(forms.Form):
    """One discount code as typed (up to 64 characters)."""

    code = forms.CharField(max_length=64, strip=True)
