"""A check for tests: every category's stored ancestors match its chain of parents."""

from catalog.models import Category


def wrong_ancestors():
    """``{slug: (stored, expected)}`` for every category whose ancestors do not follow its parents.

    Expected ancestors are rebuilt from the ``parent`` links, root first,
    as ``(slug, name)`` pairs; an empty dict means the whole tree is right.
    """
    nodes = {c.pk: c for c in Category.objects.all()}
    wrong = {}
    for node in nodes.values():
        expected, parent_id = [], node.parent_id
        while parent_id is not None:
            parent = nodes[parent_id]
            expected.insert(0, (parent.pk, parent.slug, parent.name))
            parent_id = parent.parent_id
        stored = [(a.pk, a.slug, a.name) for a in node.ancestors]
        if stored != expected:
            wrong[node.slug] = (stored, expected)
    return wrong
