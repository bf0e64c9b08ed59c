"""The catalog in the Django admin: categories and products (``products``), the tree's changelist
(``tree``), product types (``types``), their forms, images, variants and imports. Importing the
package registers every admin class (Django's admin autodiscovery imports ``catalog.admin``)."""

from catalog.admin import products, types  # noqa: F401 (registration)
