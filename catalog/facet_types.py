"""PLACEHOLDER until the product types branch is merged: the facet attributes of product types.

The shared contract names ``ProductType.objects.facet_attributes(type_names)``
(the ``facet=True`` attributes of those types, deduplicated by code, in
display order, each ``{code, label, kind, unit, choices, required, facet,
variant, fields}``). Until ``ProductType`` exists, ``facet_attributes`` here
returns the Chinook types' facets as that manager will once the migration
creates them as data: ``genre`` (multiple choice: the array ``details.genre``)
and ``artist`` (text: ``details.artist``, albums and TV seasons only). The
product type itself is not an attribute: the listing's facets offer it
(``catalog.facets.TYPE_FACET``, the top-level ``type`` field).

At the merge, ``facet_attributes`` becomes a call of
``ProductType.objects.facet_attributes`` (and ``all_type_names`` of the
types' names) and this module goes.
"""

_GENRE = {"code": "genre", "label": "Genre", "kind": "multichoice", "unit": "", "choices": [],
          "required": False, "facet": True, "variant": False, "fields": []}
_ARTIST = {"code": "artist", "label": "Artist", "kind": "text", "unit": "", "choices": [],
           "required": False, "facet": True, "variant": False, "fields": []}
_FACETS = {"Audio Album": [_GENRE, _ARTIST], "Film": [_GENRE], "TV Season": [_GENRE, _ARTIST]}


def all_type_names():
    """The names of every product type (a list of str)."""
    return list(_FACETS)


def facet_attributes(type_names):
    """The facet attributes of the types ``type_names`` (an iterable of type names; unknown
    ones have none), deduplicated by code, in display order: a list of attribute dicts."""
    seen, attributes = set(), []
    for name in type_names:
        for attribute in _FACETS.get(name, ()):
            if attribute["code"] not in seen:
                seen.add(attribute["code"])
                attributes.append(dict(attribute))
    return attributes
