"""Documents and subdocuments by path (FoundationDB "Hierarchical Documents" recipe), as raw pymongo.

The FoundationDB "Hierarchical Documents" recipe stores a document as the list of its root-to-leaf paths, so that a
document is read whole by its root and a subdocument by a path prefix. In
MongoDB the document already is that tree: a path is a list of *steps*,
each an object key or, on a list, the element's index, and a subdocument is
read by evaluating the path on the server and returning only its value.

This module builds the queries; ``SubdocumentMixin.read_path``
(``catalog/store/subdocument_reads.py``, mixed into the reads of ``Category.objects`` and
``Product.objects``) runs them. It reads the whole document with one ``find_one`` and a
subdocument with one aggregation: a ``$match`` on the
document's key and one ``$project`` whose expression is a chain of nested
``$let``, one per step, each binding the key (``$getField``) or the element
(``$arrayElemAt``) of the previous step's value; the innermost returns the
value at the end of the path together with the BSON type of each step's
value. Only that value and those type names cross the wire; the rest of the
document never leaves the server. The types tell, without a second read,
which step of a path that does not resolve failed and why
(``PathNotFound``, ``MalformedPath``).

One ``$project`` rather than a ``$set`` stage per step: a stage rewrites the
whole document, which on SecantusDB made a track of a 5,000-track album cost
(docs/local-server-differences.md: local-server difference 11)
340 ms against 10 ms for the ``$let`` chain (``bench/api_paths.py``). A key is
tested with ``$objectToArray`` before ``$getField`` takes it, as MongoDB's
``$getField`` of an absent key is missing but some engines answer null.
Each step binds a pair ``{ok, v}`` rather than a value that may be missing:
SecantusDB 0.7.0b3 answers ``"object"`` for the ``$type`` of a computed
missing value (``{"$type": {"$arrayElemAt": [[1], 5]}}``), where MongoDB
answers ``"missing"``; ``ok`` says whether the step resolved, and ``$type``
is only asked of values that exist.
"""

import re

from catalog.exceptions import MalformedPath, PathNotFound

MAX_STEPS = 32
_INDEX = re.compile(r"[0-9]+")
# Past this no list can reach (a document is at most 16 MiB), and $arrayElemAt
# takes a 32-bit index: a larger index reads as "no such element".
_MAX_INDEX = 2**31 - 1
# The $let variable holding the value after step i.
_VARIABLE = "step{}"


def check_steps(steps):
    """Refuse steps that could never be part of a path, before any query.

    ``steps`` is a sequence of strings. Returns them as a tuple. Raises
    ``MalformedPath`` for more than ``MAX_STEPS`` steps, a step that is not a
    string, is empty or starts with ``$`` (it would read as an operator or a
    field path).
    """
    steps = tuple(steps)
    if len(steps) > MAX_STEPS:
        raise MalformedPath(f"A path has at most {MAX_STEPS} steps; this one has {len(steps)}.",
                            steps)
    for number, step in enumerate(steps):
        if not isinstance(step, str) or not step:
            raise MalformedPath(f"Step {number + 1} of the path is empty.", steps, number)
        if step.startswith("$"):
            raise MalformedPath(f"Step {number + 1} of the path ({step!r}) starts with '$'.",
                                steps, number)
    return steps


# What a step that does not resolve binds: no value.
_UNRESOLVED = {"ok": False, "v": None}


def _step_expression(previous, step):
    """The step ``step`` taken from the ``{ok, v}`` pair ``previous`` (a ``$let`` variable).

    Returns an expression for the pair ``{ok: true, v: value}`` when
    ``previous`` resolved and its value is an object with the key ``step`` or
    a list with an element at index ``step``, else ``{ok: false, v: null}``.
    ``step`` is a checked step (never an operator): a plain string is a
    literal in ``$getField`` and ``$in``. Every branch is a ``$cond`` or a
    ``$switch`` case, so no operator sees a value of the wrong type.
    """
    value = f"{previous}.v"
    branches = [{
        "case": {"$cond": [
            {"$eq": [{"$type": value}, "object"]},
            {"$in": [step, {"$map": {"input": {"$objectToArray": value}, "in": "$$this.k"}}]},
            False,
        ]},
        "then": {"ok": True, "v": {"$getField": {"field": step, "input": value}}},
    }]
    if _INDEX.fullmatch(step):
        index = min(int(step), _MAX_INDEX)
        branches.append({
            "case": {"$cond": [{"$isArray": value}, {"$lt": [index, {"$size": value}]}, False]},
            "then": {"ok": True, "v": {"$arrayElemAt": [value, index]}},
        })
    return {"$cond": [f"{previous}.ok",
                      {"$switch": {"branches": branches, "default": _UNRESOLVED}},
                      _UNRESOLVED]}


def path_pipeline(match, steps, hidden=(), added=None):
    """The aggregation that reads the value at ``steps`` (at least one) of the document
    matching ``match``.

    ``match`` is a ``$match`` filter built by the manager from a key (never
    from user input as a dict); ``steps`` are checked steps (``check_steps``);
    the document is taken without its top-level fields ``hidden`` and with the
    fields of ``added`` (``{name: plain value}``). The pipeline yields at most
    one document: ``{"answer": {"types": [the BSON type of each step's value,
    "missing" where it does not resolve], "value": the value}}``.
    """
    added = added or {}
    names = [f"$${_VARIABLE.format(n)}" for n in range(len(steps))]
    expression = {
        "types": [{"$cond": [f"{name}.ok", {"$type": f"{name}.v"}, "missing"]} for name in names],
        "value": f"{names[-1]}.v",
    }
    for number in reversed(range(len(steps))):
        step = steps[number]
        if number == 0 and step in hidden:
            pair = _UNRESOLVED
        elif number == 0 and step in added:
            pair = {"ok": True, "v": {"$literal": added[step]}}
        elif number == 0:
            pair = _step_expression("$$root", step)
        else:
            pair = _step_expression(names[number - 1], step)
        expression = {"$let": {"vars": {_VARIABLE.format(number): pair}, "in": expression}}
    root = {"$let": {"vars": {"root": {"ok": True, "v": "$$ROOT"}}, "in": expression}}
    return [{"$match": match}, {"$limit": 1}, {"$project": {"_id": 0, "answer": root}}]


def resolve(steps, answer):
    """The value of a ``path_pipeline`` answer, or the error naming the first bad step.

    ``answer`` is the pipeline's document. Returns the value. Raises
    ``MalformedPath`` for an index that is not a non-negative integer on a
    list or a key on a value that is neither object nor list, and
    ``PathNotFound`` for the first step that does not resolve.
    """
    answer = answer["answer"]
    types = answer["types"]
    parent = "object"
    for number, step in enumerate(steps):
        where = "/".join(steps[:number]) or "the document"
        if parent == "array":
            if not _INDEX.fullmatch(step):
                raise MalformedPath(
                    f"Step {number + 1} ({step!r}) must be a list index (0, 1, ...): "
                    f"{where} is a list.", steps, number)
        elif parent != "object":
            raise MalformedPath(
                f"Step {number + 1} ({step!r}) names a key of {where}, which is a "
                f"{parent}, not an object or a list.", steps, number)
        if types[number] == "missing":
            raise PathNotFound(f"Step {number + 1} ({step!r}) does not resolve: {where} has no "
                               f"{'element' if parent == 'array' else 'key'} {step!r}.",
                               steps, number)
        parent = types[number]
    return answer["value"]
