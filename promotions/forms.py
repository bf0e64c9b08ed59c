"""The cart page's code form."""

from django import forms


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
