"""The admin form of a product type: its name, slug and attributes (embedded in its document).

The attributes are edited with django-mongodb-backend's own form field for an
``EmbeddedModelArrayField`` (a formset: one row per attribute, a "Delete"
box, a nested formset for the fields of a ``records`` attribute); this form
adds the checks a type needs and the renames of choices:

* codes are unique in the type (and in a records attribute's fields);
* a choice or multiple choice has choices; only a records attribute has fields;
* a choice written ``old => new`` renames the choice: the products storing
  ``old`` get ``new`` when the type is saved (``ProductType.objects.save_type``);
* a choice removed while stored products still hold it is refused (a form
  error naming how many products hold it), so no stored value becomes invalid
  behind staff's back.
"""

from django import forms
from django.core.exceptions import ValidationError

from catalog.models import ProductType
from catalog.tree.slugs import slug_for

#: Written in a choice, renames it: ``CD => Compact Disc``.
RENAME = "=>"


def _unique_codes(items, where):
    seen, errors = set(), []
    for item in items:
        if item.code in seen:
            errors.append(f"The code {item.code!r} is used twice{where}.")
        seen.add(item.code)
    return errors


class ProductTypeAdminForm(forms.ModelForm):
    """A product type's name, slug and attributes; ``renamed_choices`` after ``is_valid()``:
    ``{code: {old: new}}``, for ``ProductType.objects.save_type``."""

    slug = forms.SlugField(max_length=60, required=False,
                           help_text="Leave empty to make it from the name.")

    class Meta:
        model = ProductType
        fields = ["name", "slug", "attributes"]
        help_texts = {
            "name": "What products store in their type, e.g. T-shirt. Renaming a type renames it "
                    "on all its products.",
            "attributes": "One row per attribute, in display order. Rename a choice by writing "
                          "old => new in the choices; a choice products still hold cannot be removed.",
        }

    def clean_slug(self):
        value = self.cleaned_data.get("slug") or slug_for(self.cleaned_data.get("name") or "")
        if not value:
            raise ValidationError("Use letters or digits in the slug or the name.")
        return value

    def clean(self):
        cleaned = super().clean()
        self.renamed_choices = {}
        attributes = cleaned.get("attributes")
        if attributes is None:
            return cleaned
        errors = _unique_codes(attributes, "")
        previous = {a.code: a for a in (self.instance.attributes or [])} if self.instance.pk else {}
        for attribute in attributes:
            errors += self._check(attribute)
            for field in attribute.fields or []:
                errors += [f"{attribute.code}: {e}" for e in self._check(field, in_records=True)]
            errors += _unique_codes(attribute.fields or [], f" in the fields of {attribute.code}")
            errors += self._renames(attribute, previous.get(attribute.code))
        if errors:
            self.add_error("attributes", errors)
        return cleaned

    def _check(self, attribute, in_records=False):
        errors = []
        choice = attribute.kind in ("choice", "multichoice")
        if choice and not attribute.choices:
            errors.append(f"{attribute.code}: a {attribute.get_kind_display()} needs choices.")
        if not choice and attribute.choices:
            errors.append(f"{attribute.code}: only a choice or multiple choice has choices.")
        if not in_records:
            if attribute.kind == "records" and not attribute.fields:
                errors.append(f"{attribute.code}: a list of records needs fields.")
            if attribute.kind != "records" and attribute.fields:
                errors.append(f"{attribute.code}: only a list of records has fields.")
        if attribute.many and attribute.kind != "text":
            errors.append(f"{attribute.code}: only text may have many values.")
        return errors

    def _renames(self, attribute, before):
        """Apply ``old => new`` choices of ``attribute`` (noting them in ``renamed_choices``);
        the errors for choices removed that stored products hold."""
        choices, renames = [], {}
        for choice in attribute.choices or []:
            if RENAME in choice:
                old, new = (part.strip() for part in choice.split(RENAME, 1))
                if old and new:
                    renames[old] = new
                    choices.append(new)
                    continue
            choices.append(choice.strip())
        attribute.choices = list(dict.fromkeys(c for c in choices if c))
        if renames:
            self.renamed_choices[attribute.code] = renames
        if before is None or before.kind not in ("choice", "multichoice"):
            return []
        errors = []
        for gone in set(before.choices or []) - set(attribute.choices) - set(renames):
            used = ProductType.objects.products_using(self.instance, attribute.code, gone)
            if used:
                errors.append(f"{attribute.code}: {used} product(s) hold the choice {gone!r}; "
                              f"rename it ({gone} {RENAME} new) or change those products first.")
        return errors
