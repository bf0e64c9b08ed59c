"""Category trees for tests and benchmarks: a check that every category's ancestors match its
chain of parents, and a quick way to store a large tree."""

from bson import ObjectId

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


def insert_tree(roots, children, grandchildren):
    """Insert a tree of roots x children x grandchildren categories with right ancestors.

    Written directly (one insert_many) because adding 5,000 categories one
    by one through the manager costs a round trip each; the shapes
    are those ``create_category`` writes. Returns the number of categories.
    """
    documents = []
    next_position = {}

    def add(name, parent):
        _id = ObjectId()
        parent_id = parent and parent["_id"]
        position = next_position.get(parent_id, 0)
        next_position[parent_id] = position + 1
        ancestors = [*parent["ancestors"], {"_id": parent["_id"], "slug": parent["slug"],
                                            "name": parent["name"]}] if parent else []
        document = {"_id": _id, "name": name, "slug": f"c-{_id}", "parent_id": parent and parent["_id"],
                    "ancestors": ancestors, "taxonomy_id": None, "position": position}
        documents.append(document)
        return document

    for r in range(roots):
        root = add(f"Root {r:02d}", None)
        for c in range(children):
            child = add(f"Child {r:02d}.{c:02d}", root)
            for g in range(grandchildren):
                add(f"Leaf {r:02d}.{c:02d}.{g:02d}", child)
    Category.objects.collection.insert_many(documents)
    return len(documents)
