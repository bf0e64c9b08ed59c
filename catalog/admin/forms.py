"""Forms of the catalog's admin: categories chosen from the tree, products with prices in dollars.

* ``CategoryChoiceField`` / ``CategoryMultipleChoiceField``: categories
  chosen from the whole tree (one read), shown indented in tree order,
  cleaned to Category instances / ObjectIds.
* ``CategoryAdminForm``: a category's name, slug and parent. Its ``clean()``
  asks the category manager whether a move is allowed ("Category Hierarchy" use case refuses a
  move under the category itself or a descendant), so a refusal is a form
  error and nothing is written. Saving is the admin's job, through the
  manager (``catalog/admin/products.py``).
* ``CategoryMoveForm``: a drop in the admin's tree (node, target, where).
* ``ProductAdminForm`` and ``product_form_for(product_type)``: a product's
  common fields, pricing shown in dollars and stored in cents, shipping, and
  one field per attribute of its type (``catalog/admin/attribute_fields.py``), checked
  with ``clean_details`` ("Product Catalog" use case's ``details``).
* The product types' forms are in ``catalog/admin/type_forms.py``.
"""

from django import forms
from django.core.exceptions import ValidationError

from core.money import cents, dollars

from catalog.admin.attribute_fields import details_from_form, field_name, form_field, initial_value
from catalog.products.attributes import clean_details
from catalog.admin.variants import VariantsFormMixin
from catalog.exceptions import InvalidMove
from catalog.store.ids import as_object_id
from catalog.models import Category, Dimensions, Pricing, Product, ProductType, Shipping
from catalog.tree.slugs import slug_for
from catalog.tree.nodes import MOVE_PLACES


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
                Category.writes.check_move(self.instance, parent)
            except InvalidMove as error:
                self.add_error("parent", str(error))
            except Category.DoesNotExist:
                self.add_error("parent", "That category no longer exists.")
        return cleaned


class CategoryMoveForm(forms.Form):
    """A drop in the admin tree: move ``node`` ``where`` (inside, before, after) ``target``.

    ``node`` and ``target`` are category ids, cleaned to Category instances
    (one read for both); an unknown or malformed id is a form error. Whether
    the move makes a cycle is ``Category.writes.move``'s to say.
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

class ProductAdminForm(VariantsFormMixin, forms.ModelForm):
    """A product: SKU, type, title, description, categories, pricing, shipping and details.

    Prices are entered in dollars and stored in cents (``Pricing.from_prices``
    derives the savings). Categories are chosen from the tree. The details
    fields are those of the product's type (``product_form_for`` adds one per
    attribute); their values are checked with ``clean_details``, whose errors
    are the fields' errors, so nothing is saved when one does not fit. Values
    stored under codes the type no longer has are not shown and are left out
    at this save. A duplicate SKU is refused by the model's unique check.
    """

    #: The ProductType whose attributes the form shows (set by ``product_form_for``).
    product_type = None

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
        if "type" in self.fields:
            names = ProductType.objects.names()
            self.fields["type"] = forms.ChoiceField(
                choices=[(n, n) for n in names], label="Type",
                help_text="Chosen when the product is added; its attributes are the details below.")
            if self.product_type is not None:
                self.fields["type"].initial = self.product_type.name
                self.fields["type"].disabled = True
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
        stored = product.details or {}
        for attribute in self.attributes:
            if attribute.code in stored:
                self.initial.setdefault(field_name(attribute), initial_value(attribute, stored[attribute.code]))

    @property
    def attributes(self):
        """The attributes of the form's type (none without a type)."""
        return list(self.product_type.attributes or []) if self.product_type is not None else []

    def clean(self):
        cleaned = super().clean()
        list_price, retail_price = cleaned.get("list_price"), cleaned.get("retail_price")
        if list_price is not None and retail_price is not None and retail_price > list_price:
            self.add_error("retail_price", "The retail price cannot be above the list price.")
        self.details = None
        if self.product_type is None:
            self.add_error(None, "Choose the product's type first.")
            return cleaned
        details, problems = details_from_form(self.attributes, cleaned)
        for code, message in problems.items():
            self.add_error(field_name(self.product_type.attribute(code)), message)
        if problems:
            return cleaned
        try:
            self.details = clean_details(self.product_type, details)
        except ValidationError as error:
            for code, messages in error.message_dict.items():
                attribute = self.product_type.attribute(code)
                self.add_error(field_name(attribute) if attribute is not None else None, messages)
        return cleaned

    def save(self, commit=True):
        """Set pricing (cents), shipping and details on the product; save it when ``commit``."""
        product = super().save(commit=False)
        data = self.cleaned_data
        product.type = self.product_type.name
        product.pricing = Pricing.from_prices(cents(data["list_price"]), cents(data["retail_price"]))
        product.shipping = Shipping(
            weight=data.get("weight") or 0,
            dimensions=Dimensions(**{n: data.get(n) or 0 for n in ("width", "height", "depth")}),
        )
        product.details = self.details
        if commit:
            product.save()
        return product


def product_form_for(product_type, base=ProductAdminForm):
    """A ProductAdminForm class for products of ``product_type`` (a ProductType, or None for
    a form that only asks for the type): ``base`` with one field per attribute, named
    ``details_<code>`` (``catalog.admin.attribute_fields.form_field``)."""
    attributes = {}
    if product_type is not None:
        attributes = {field_name(a): form_field(a) for a in product_type.attributes or []}
    return type(f"{base.__name__}For", (base,), {
        "__module__": __name__, "product_type": product_type, **attributes,
    })
