"""Category slugs: the one way a name or a staff-typed slug becomes a slug, and the one
allocator of a free slug (``rock``, ``rock-2``, ``rock-3``...).

Used by ``Category.objects`` when it adds or renames categories ("Category Hierarchy" use case),
by the admin's category form and by ``load_catalog`` to find a category by
the slug its name gets.
"""

from slugify import slugify

#: The longest slug made (``Category.slug`` holds 200 characters: room for ``-N``).
MAX_SLUG_LENGTH = 180


def slug_for(text):
    """The slug of ``text`` (a name or a slug typed by staff): lower-case ASCII words joined
    by ``-``, at most ``MAX_SLUG_LENGTH`` characters. ``""`` when ``text`` has no letter or
    digit (the caller refuses it or falls back)."""
    return slugify(text or "", max_length=MAX_SLUG_LENGTH)


def free_slugs(base, taken):
    """The slugs like ``base`` that are not in ``taken`` (a set of slugs), in order:
    ``base``, ``base-2``, ``base-3``... without end (a generator; no database access)."""
    if base not in taken:
        yield base
    number = 2
    while True:
        if f"{base}-{number}" not in taken:
            yield f"{base}-{number}"
        number += 1
