"""Shoppers' query parameters as forms: the search box, the price range of a
category page, the saving threshold of the deals page.

Each form validates a GET query string; a view answers 400 with the form's
errors when it is invalid, and passes the cleaned values to a manager.
"""

from django import forms

from core import money

from catalog.listings.search import MAX_SUGGEST_PREFIX


class SearchForm(forms.Form):
    """``?q=``: the words to search for (any text; see ``SearchManager.search``)."""

    q = forms.CharField(label="Search", max_length=200, required=False, strip=True)


class SuggestForm(forms.Form):
    """``?q=``: the start of a title (search-as-you-type)."""

    q = forms.CharField(max_length=MAX_SUGGEST_PREFIX, required=False, strip=False)


class PriceRangeForm(forms.Form):
    """``?min_price=&max_price=``: a retail price range in dollars, both bounds optional.

    ``cents()`` gives ``(min_cents, max_cents)``, None for a missing bound.
    """

    min_price = forms.DecimalField(label="From $", min_value=0, max_digits=9, decimal_places=2,
                                   required=False)
    max_price = forms.DecimalField(label="to $", min_value=0, max_digits=9, decimal_places=2,
                                   required=False)

    def clean(self):
        cleaned = super().clean()
        low, high = cleaned.get("min_price"), cleaned.get("max_price")
        if low is not None and high is not None and low > high:
            raise forms.ValidationError("The lowest price must not be above the highest.")
        return cleaned

    @classmethod
    def normalized(cls, min_cents, max_cents):
        """A valid bound form of the range ``min_cents``..``max_cents`` (ints or None), its values
        spelled one way (``"5.00"``)."""
        form = cls({name: "" if value is None else str(money.dollars(value))
                    for name, value in (("min_price", min_cents), ("max_price", max_cents))})
        form.is_valid()
        return form

    def cents(self):
        """``(min_cents, max_cents)`` of a valid form (ints or None)."""
        return tuple(
            None if value is None else money.cents(value)
            for value in (self.cleaned_data.get("min_price"), self.cleaned_data.get("max_price"))
        )


class DealsForm(forms.Form):
    """``?min=``: the saving, in whole percent, that a deal must exceed (default 15)."""

    DEFAULT = 15

    min = forms.IntegerField(label="Saving more than (%)", min_value=0, max_value=99,
                             required=False)

    def threshold(self):
        """The cleaned threshold in percent (``DEFAULT`` when not given)."""
        value = self.cleaned_data.get("min")
        return self.DEFAULT if value is None else value

