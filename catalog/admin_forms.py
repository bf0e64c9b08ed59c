"""Forms of the catalog's admin: categories chosen from the tree, products with prices in dollars.

* ``CategoryChoiceField`` / ``CategoryMultipleChoiceField``: categories
  chosen from the whole tree (one read), shown indented in tree order,
  cleaned to Category instances / ObjectIds.
* ``CategoryAdminForm``: a category's name, slug and parent. Its ``clean()``
  asks the category manager whether a move is allowed ("Category Hierarchy" use case refuses a
  move under the category itself or a descendant), so a refusal is a form
  error and nothing is written. Saving is the admin's job, through the
  manager (``catalog/admin.py``).
* ``CategoryMoveForm``: a drop in the admin's tree (node, target, where).
* ``AlbumDetailsForm``, ``FilmDetailsForm``, ``SeasonDetailsForm``: one form
  per known product type ("Product Catalog" use case's ``details``).
* ``ProductAdminForm``: a product's common fields, pricing shown in dollars
  and stored in cents, shipping, and the details of its type.
"""

import copy

from django import forms

from core.money import cents, dollars

from .admin_variants import VariantsFormMixin

from .exceptions import InvalidMove
from .ids import as_object_id
from .models import (
    AlbumDetails,
    Category,
    Dimensions,
    FilmDetails,
    Pricing,
    Product,
    SeasonDetails,
    Shipping,
)
from .slugs import slug_for
from .tree import MOVE_PLACES


def tree_label(category):
    """``"— — Metal"``: the category's name indented by its depth, for a select option."""
    return "— " * category.depth + category.name


#: The largest weight (grams) and side (millimetres) staff may give a product.
MAX_WEIGHT_GRAMS = 1_000_000
MAX_SIDE_MM = 10_000


class CategoryChoiceField(forms.ChoiceField):
    """One category of the tree, or none (a top category); cleans to a Category or None.

    Call ``set_tree(categories)`` with ``Category.objects.tree()`` before use;
    the options follow it, indented.
    """

    def __init__(self, *, empty_label="(none: a top category)", **kwargs):
        self.empty_label = empty_label
        self.by_id = {}
        super().__init__(choices=[], **kwargs)

    def set_tree(self, categories):
        self.by_id = {str(c.pk): c for c in categories}
        self.choices = [("", self.empty_label), *((str(c.pk), tree_label(c)) for c in categories)]

    def prepare_value(self, value):
        return str(value.pk) if isinstance(value, Category) else value

    def to_python(self, value):
        if value in self.empty_values:
            return None
        return self.by_id.get(str(value), value)

    def validate(self, value):
        if value is None:
            if self.required:
                raise forms.ValidationError(self.error_messages["required"], code="required")
            return
        if not isinstance(value, Category):
            raise forms.ValidationError(
                self.error_messages["invalid_choice"], code="invalid_choice", params={"value": value}
            )

    def has_changed(self, initial, data):
        initial = "" if initial is None else str(initial.pk if isinstance(initial, Category) else initial)
        return initial != ("" if data is None else str(data))


class CategoryMultipleChoiceField(forms.MultipleChoiceField):
    """Any number of categories of the tree; cleans to a list of ObjectIds (``Product.categories``).

    Call ``set_tree(categories)`` with ``Category.objects.tree()`` before use.
    """

    widget = forms.SelectMultiple(attrs={"size": 12})

    def set_tree(self, categories):
        self.choices = [(str(c.pk), tree_label(c)) for c in categories]

    def prepare_value(self, value):
        return [str(v) for v in value] if isinstance(value, (list, tuple)) else value

    def clean(self, value):
        chosen = super().clean(value)
        return [as_object_id(v) for v in chosen]

    def has_changed(self, initial, data):
        return sorted(map(str, initial or [])) != sorted(map(str, data or []))


class CategoryAdminForm(forms.ModelForm):
    """A category's name, slug and parent, checked with the category manager before saving.

    The slug is optional when adding (made from the name, as the manager
    does) and normalised the way the manager stores it. A new parent under
    which the category may not move (itself or a descendant) is a form error.
    ``place_before`` (optional) puts the category just before another one,
    under that one's parent: the admin tree's drag and drop without
    JavaScript. It must agree with the parent chosen.
    """

    slug = forms.SlugField(
        max_length=180, required=False,
        help_text="The address of the category page, /c/<slug>/. Leave empty to make it from the name.",
    )
    parent = CategoryChoiceField(required=False, label="Parent category")
    place_before = CategoryChoiceField(
        required=False, label="Place before", empty_label="(last among the parent's subcategories)",
        help_text="Optional: the subcategory of the same parent this one comes just before.",
    )

    class Meta:
        model = Category
        fields = ["name", "slug", "parent"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        tree = None
        for name in ("parent", "place_before"):
            if name in self.fields:
                tree = Category.objects.tree() if tree is None else tree
                self.fields[name].set_tree(tree)
        if self.instance.pk is not None and "slug" in self.fields:
            self.fields["slug"].required = True

    def clean_slug(self):
        value = self.cleaned_data.get("slug") or ""
        if not value:
            return ""
        slug = slug_for(value)
        if not slug:
            raise forms.ValidationError("Use letters or digits in the slug.")
        return slug

    def clean(self):
        cleaned = super().clean()
        before = cleaned.get("place_before")
        if before is not None and "parent" in cleaned:
            parent = cleaned["parent"]
            if before.parent_id != (parent.pk if parent else None):
                self.add_error("place_before", f"{before.name} is not a subcategory of the parent chosen.")
            elif self.instance.pk == before.pk:
                self.add_error("place_before", "A category cannot be placed before itself.")
        if self.instance.pk is None or "parent" not in cleaned:
            return cleaned
        parent = cleaned["parent"]
        if (parent.pk if parent else None) != self.instance.parent_id:
            try:
                Category.objects.check_move(self.instance, parent)
            except InvalidMove as error:
                self.add_error("parent", str(error))
            except Category.DoesNotExist:
                self.add_error("parent", "That category no longer exists.")
        return cleaned


class CategoryMoveForm(forms.Form):
    """A drop in the admin tree: move ``node`` ``where`` (inside, before, after) ``target``.

    ``node`` and ``target`` are category ids, cleaned to Category instances
    (one read for both); an unknown or malformed id is a form error. Whether
    the move makes a cycle is ``Category.objects.move``'s to say.
    """

    node = forms.CharField(max_length=24)
    target = forms.CharField(max_length=24)
    where = forms.ChoiceField(choices=[(place, place) for place in MOVE_PLACES])

    def clean(self):
        cleaned = super().clean()
        ids = {name: as_object_id(cleaned.get(name)) for name in ("node", "target")}
        wanted = [i for i in ids.values() if i is not None]
        found = {c.pk: c for c in Category.objects.filter(pk__in=wanted)} if wanted else {}
        for name, category_id in ids.items():
            if name not in cleaned:
                continue
            if category_id not in found:
                self.add_error(name, "No such category.")
            else:
                cleaned[name] = found[category_id]
        return cleaned


# -- products ---------------------------------------------------------------

class AlbumDetailsForm(forms.ModelForm):
    """The details of an ``Audio Album``: artist, genres, issue date (tracks are kept)."""

    class Meta:
        model = AlbumDetails
        fields = ["artist", "genre", "issue_date"]


class FilmDetailsForm(forms.ModelForm):
    """The details of a ``Film``: directors, writers, actors, genres, rating, aspect ratio, issue date."""

    class Meta:
        model = FilmDetails
        fields = ["director", "writer", "actor", "genre", "rating", "aspect_ratio", "issue_date"]


class SeasonDetailsForm(forms.ModelForm):
    """The details of a ``TV Season``: studio or creator, genres, issue date (episodes are kept)."""

    class Meta:
        model = SeasonDetails
        fields = ["artist", "genre", "issue_date"]


#: The form of each known product type, and the prefix of its fields in ProductAdminForm.
DETAILS_FORMS = {
    Product.AUDIO_ALBUM: (AlbumDetailsForm, "album"),
    Product.FILM: (FilmDetailsForm, "film"),
    Product.TV_SEASON: (SeasonDetailsForm, "season"),
}


def details_field_names(product_type):
    """The names ProductAdminForm gives the details fields of ``product_type``: ``album-artist``, ..."""
    form_class, prefix = DETAILS_FORMS[product_type]
    return [f"{prefix}-{name}" for name in form_class.base_fields]


def _details_fields():
    """Optional copies of every type's details fields, named as its prefixed form names them.

    ProductAdminForm shows them all (one fieldset per type); ``clean()``
    validates the chosen type's form alone, so only its required fields are
    required.
    """
    fields = {}
    for form_class, prefix in DETAILS_FORMS.values():
        for name, field in form_class.base_fields.items():
            field = copy.deepcopy(field)
            field.required = False
            fields[f"{prefix}-{name}"] = field
    return fields


# A Form class declaring the details fields, so that the admin's fieldsets may name them.
_DetailsFields = type("_DetailsFields", (forms.Form,), {"__module__": __name__, **_details_fields()})


class ProductAdminForm(VariantsFormMixin, forms.ModelForm, _DetailsFields):
    """A product: SKU, type, title, description, categories, pricing, shipping and details.

    Prices are entered in dollars and stored in cents (``Pricing.from_prices``
    derives the savings). Categories are chosen from the tree. The details
    are validated with the form of the chosen type (``DETAILS_FORMS``); an
    album's or a season's tracks are kept when the type does not change.
    A duplicate SKU is refused by the model's unique check.
    """

    categories = CategoryMultipleChoiceField(required=False)
    list_price = forms.DecimalField(
        label="List price ($)", max_digits=9, decimal_places=2, min_value=0,
        help_text="In dollars, e.g. 12.99 (stored in cents).",
    )
    retail_price = forms.DecimalField(
        label="Retail price ($)", max_digits=9, decimal_places=2, min_value=0,
        help_text="What the shopper pays, in dollars; not above the list price.",
    )
    # Bounded (a form error beyond): MongoDB's integers are 64-bit, a larger one was a 500.
    weight = forms.IntegerField(label="Weight (g)", min_value=0, max_value=MAX_WEIGHT_GRAMS, required=False)
    width = forms.IntegerField(label="Width (mm)", min_value=0, max_value=MAX_SIDE_MM, required=False)
    height = forms.IntegerField(label="Height (mm)", min_value=0, max_value=MAX_SIDE_MM, required=False)
    depth = forms.IntegerField(label="Depth (mm)", min_value=0, max_value=MAX_SIDE_MM, required=False)

    class Meta:
        model = Product
        fields = ["sku", "type", "title", "description", "categories", "image"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "categories" in self.fields:
            self.fields["categories"].set_tree(Category.objects.tree())
        product = self.instance
        if product.pk is None:
            return
        if product.pricing is not None:
            self.initial.setdefault("list_price", dollars(product.pricing.list))
            self.initial.setdefault("retail_price", dollars(product.pricing.retail))
        if product.shipping is not None:
            self.initial.setdefault("weight", product.shipping.weight)
            dimensions = product.shipping.dimensions
            if dimensions is not None:
                for name in ("width", "height", "depth"):
                    self.initial.setdefault(name, getattr(dimensions, name))
        if product.type in DETAILS_FORMS and product.details is not None:
            form_class, prefix = DETAILS_FORMS[product.type]
            if isinstance(product.details, form_class._meta.model):
                details_form = form_class(instance=product.details)
                for name in form_class.base_fields:
                    self.initial.setdefault(f"{prefix}-{name}", details_form.initial.get(name))

    def clean(self):
        cleaned = super().clean()
        list_price, retail_price = cleaned.get("list_price"), cleaned.get("retail_price")
        if list_price is not None and retail_price is not None and retail_price > list_price:
            self.add_error("retail_price", "The retail price cannot be above the list price.")
        product_type = cleaned.get("type")
        self.details = None
        if product_type in DETAILS_FORMS:
            self.details = self._clean_details(product_type)
        return cleaned

    def _clean_details(self, product_type):
        """Validate the submitted details with the form of ``product_type``; its errors become ours."""
        form_class, prefix = DETAILS_FORMS[product_type]
        details_form = form_class(self.data, prefix=prefix)
        if not details_form.is_valid():
            for name, errors in details_form.errors.items():
                self.add_error(f"{prefix}-{name}" if name in form_class.base_fields else None, errors)
            return None
        details = details_form.save(commit=False)
        previous = self.instance.details
        if hasattr(details, "tracks"):
            keep = isinstance(previous, type(details)) and self.instance.type == product_type
            details.tracks = list(previous.tracks) if keep else []
        return details

    def save(self, commit=True):
        """Set pricing (cents), shipping and details on the product; save it when ``commit``."""
        product = super().save(commit=False)
        data = self.cleaned_data
        product.pricing = Pricing.from_prices(cents(data["list_price"]), cents(data["retail_price"]))
        product.shipping = Shipping(
            weight=data.get("weight") or 0,
            dimensions=Dimensions(**{n: data.get(n) or 0 for n in ("width", "height", "depth")}),
        )
        product.details = self.details
        if commit:
            product.save()
        return product
