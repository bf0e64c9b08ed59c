"""``import_taxonomy``: Google product taxonomy files into the category tree."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from catalog.models import Category
from catalog.exceptions import TaxonomyError
from catalog.tree.taxonomy import parse_taxonomy
from core.mongo.counter import count_operations

DATA = Path(__file__).parent / "data"
V1, V2 = DATA / "taxonomy_v1.txt", DATA / "taxonomy_v2.txt"


def run(path, **options):
    out, err = StringIO(), StringIO()
    call_command("import_taxonomy", str(path), stdout=out, stderr=err, **options)
    return out.getvalue(), err.getvalue()


def by_taxonomy_id():
    return {c.taxonomy_id: c for c in Category.objects.all()}


def path_names(category):
    return [a.name for a in category.ancestors] + [category.name]


def assert_tree_consistent():
    """Every category's ancestors are its parent's ancestors plus its parent."""
    categories = {c.pk: c for c in Category.objects.all()}
    for category in categories.values():
        if category.parent_id is None:
            assert category.ancestors == []
            continue
        parent = categories[category.parent_id]
        expected = [(a.pk, a.slug, a.name) for a in parent.ancestors] + [
            (parent.pk, parent.slug, parent.name)]
        assert [(a.pk, a.slug, a.name) for a in category.ancestors] == expected


def test_import_creates_the_tree_root_first():
    out, err = run(V1)
    assert "9 created" in out
    assert "Importing" in err  # the progress bar
    tree = by_taxonomy_id()
    assert len(tree) == 9
    assert path_names(tree[5]) == ["Media", "Music & Sound Recordings", "Jazz", "Bop", "Modal Jazz"]
    assert tree[5].parent_id == tree[4].pk
    assert tree[1].parent_id is None
    # Two "Accessories": two slugs.
    assert tree[8].slug != tree[9].slug
    assert_tree_consistent()


def test_reimport_changes_nothing():
    run(V1)
    before = {c.pk: (c.name, c.slug, c.parent_id, [a.pk for a in c.ancestors])
              for c in Category.objects.all()}
    with count_operations() as ops:
        out, _ = run(V1)
    assert "0 created, 0 renamed, 0 moved, 9 unchanged" in out
    assert ops.writes == 0
    after = {c.pk: (c.name, c.slug, c.parent_id, [a.pk for a in c.ancestors])
             for c in Category.objects.all()}
    assert after == before


def test_newer_file_renames_moves_and_adds():
    run(V1)
    old = by_taxonomy_id()
    out, _ = run(V2)
    assert "1 created, 2 renamed, 1 moved, 6 unchanged; 1 no longer in the file left alone." in out
    tree = by_taxonomy_id()
    assert len(tree) == 10  # nothing duplicated; 8 stays
    assert all(tree[t].pk == old[t].pk for t in old)  # same documents
    assert tree[2].name == "Music"
    assert tree[4].name == "BeBop" and tree[4].parent_id == tree[6].pk
    assert path_names(tree[5]) == ["Media", "Music", "Swing", "BeBop", "Modal Jazz"]
    assert path_names(tree[10]) == ["Media", "Music", "Swing", "BeBop", "Hard Bop"]
    assert tree[4].slug == old[4].slug  # renaming keeps the slug (links keep working)
    assert_tree_consistent()
    # And the newer file again changes nothing.
    out, _ = run(V2)
    assert "0 created, 0 renamed, 0 moved, 9 unchanged" in out


def test_a_parent_and_child_can_swap_places(tmp_path):
    (tmp_path / "a.txt").write_text("1 - A\n2 - A > B\n3 - A > B > C\n")
    (tmp_path / "b.txt").write_text("2 - B\n1 - B > A\n3 - B > A > C\n")
    run(tmp_path / "a.txt")
    run(tmp_path / "b.txt")
    tree = by_taxonomy_id()
    assert path_names(tree[3]) == ["B", "A", "C"]
    assert_tree_consistent()


def test_existing_categories_are_kept(make_tree):
    make_tree({"Media": {}})
    run(V1)
    assert Category.objects.filter(name="Media").count() == 2
    assert by_taxonomy_id()[1].slug == "media-2"


@pytest.mark.parametrize("text, line, message", [
    ("# header\n1 - Media\nMedia > Music\n", 3, "expected 'ID - Top > Middle > Leaf'"),
    ("1 - Media\n2 - Media >  > Music\n", 2, "empty category name"),
    ("1 - Media\n1 - Other\n", 2, "ID 1 is already on line 1"),
    ("1 - Media\n2 - Media\n", 2, "'Media' is already on line 1"),
    ("1 - Media\n3 - Media > Music > Jazz\n", 2, "its parent 'Media > Music' has no line"),
    ("x1 - Media\n", 1, "expected"),
    ("# only a header\n", 1, "no category lines"),
])
def test_malformed_file_is_rejected_whole(tmp_path, text, line, message):
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(CommandError) as error:
        run(path)
    assert f"line {line}: " in str(error.value) and message in str(error.value)
    assert "nothing imported" in str(error.value)
    assert Category.objects.count() == 0


def test_malformed_newer_file_changes_nothing(tmp_path):
    run(V1)
    before = sorted((c.name, c.parent_id) for c in Category.objects.all())
    bad = tmp_path / "bad.txt"
    bad.write_text(V2.read_text() + "11 - Media > Nowhere > Thing\n")
    with pytest.raises(CommandError, match="line 12: "):
        run(bad)
    assert sorted((c.name, c.parent_id) for c in Category.objects.all()) == before


def test_missing_or_binary_file(tmp_path):
    with pytest.raises(CommandError, match="Cannot read"):
        run(tmp_path / "nope.txt")
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"\xff\xfe\x00\x81")
    with pytest.raises(CommandError, match="not UTF-8"):
        run(binary)


def test_parse_orders_parents_first():
    entries = parse_taxonomy(["3 - A > B > C", "1 - A", "2 - A > B"])
    assert [e.taxonomy_id for e in entries] == [1, 2, 3]
    assert entries[2].name == "C" and entries[2].parent_path == ("A", "B")
    with pytest.raises(TaxonomyError) as error:
        parse_taxonomy(["1 - A", "nonsense"])
    assert error.value.line == 2


def test_large_import_costs_a_few_round_trips_per_batch(tmp_path):
    lines = ["1 - Top"] + [f"{i} - Top > Node {i}" for i in range(2, 1202)]
    (tmp_path / "big.txt").write_text("\n".join(lines) + "\n")
    with count_operations() as ops:
        out, _ = run(tmp_path / "big.txt", verbosity=0)
    assert "1201 created" in out
    # One read of the tree; per batch of 500: the slugs, the parents from earlier batches
    # (none for the first), one insert_many, the catalog version's bump. (A server's getMore
    # for big reads not counted.)
    assert len([op for op in ops.operations if op[1] != "getMore"]) == 1 + 3 + 4 + 4


def test_a_category_can_move_under_a_new_one(tmp_path):
    (tmp_path / "a.txt").write_text("1 - Music\n2 - Music > Jazz\n3 - Music > Jazz > Bop\n")
    (tmp_path / "b.txt").write_text(
        "1 - Music\n4 - Music > Genres\n2 - Music > Genres > Jazz\n3 - Music > Genres > Jazz > Bop\n"
    )
    run(tmp_path / "a.txt")
    out, _ = run(tmp_path / "b.txt")
    assert "1 created, 0 renamed, 1 moved, 2 unchanged" in out
    tree = by_taxonomy_id()
    assert path_names(tree[3]) == ["Music", "Genres", "Jazz", "Bop"]
    assert_tree_consistent()
