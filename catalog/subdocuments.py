"""Documents and subdocuments by path (seed 002, "Hierarchical Documents"), as raw pymongo.

Seed 002 stores a document as the list of its root-to-leaf paths, so that a
document is read whole by its root and a subdocument by a path prefix. In
MongoDB the document already is that tree: a path is a list of *steps*,
each an object key or, on a list, the element's index, and a subdocument is
read by evaluating the path on the server and returning only its value.

``SubdocumentMixin.read_path`` (mixed into ``CategoryManager`` and
``ProductManager``) does that in one aggregation: a ``$match`` on the
document's key, then one ``$set`` per step taking the key (``$getField``) or
the element (``$arrayElemAt``) of the previous step's value, and a final
``$project`` that returns the value at the end of the path together with the
BSON type of each step's value. Only that value and those type names cross
the wire; the rest of the document never leaves the server. The types tell,
without a second read, which step of a path that does not resolve failed
and why (``PathNotFound``, ``MalformedPath``).
"""

import re

MAX_STEPS = 32
_INDEX = re.compile(r"[0-9]+")
# Past this no list can reach (a document is at most 16 MiB), and $arrayElemAt
# takes a 32-bit index: a larger index reads as "no such element".
_MAX_INDEX = 2**31 - 1
# The working fields of the pipeline: the value after step i is in "_seed002_<i>".
_SLOT = "_seed002_{}"


class PathError(ValueError):
    """A path that cannot be answered. ``step`` is the 0-based index of the step at fault
    (None for the path as a whole) and ``steps`` the path."""

    def __init__(self, message, steps=(), step=None):
        super().__init__(message)
        self.steps = tuple(steps)
        self.step = step


class MalformedPath(PathError):
    """A path that is not well formed: an empty step, a step starting with ``$``, more than
    ``MAX_STEPS`` steps, an index that is not a non-negative integer on a list, or a key on
    a value that is neither an object nor a list. (An HTTP 400.)"""


class PathNotFound(PathError):
    """A well-formed path whose step ``step`` does not resolve: a key the object lacks or an
    index past the end of the list. (An HTTP 404.)"""


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


def _step_expression(previous, step):
    """The value of ``step`` applied to the expression ``previous``: its key ``step`` when it
    is an object, its element ``step`` when it is a list and ``step`` is an index, missing
    otherwise. ``step`` is a checked step: never an operator."""
    branches = [{
        "case": {"$eq": [{"$type": previous}, "object"]},
        "then": {"$cond": [
            {"$in": [step, {"$map": {"input": {"$objectToArray": previous}, "in": "$$this.k"}}]},
            {"$getField": {"field": step, "input": previous}},
            "$$REMOVE",
        ]},
    }]
    if _INDEX.fullmatch(step):
        branches.append({
            "case": {"$isArray": previous},
            "then": {"$arrayElemAt": [previous, min(int(step), _MAX_INDEX)]},
        })
    return {"$switch": {"branches": branches, "default": "$$REMOVE"}}


def path_pipeline(match, steps, prepare=()):
    """The aggregation that reads the value at ``steps`` of the document matching ``match``.

    ``match`` is a ``$match`` filter built by the manager from a key (never
    from user input as a dict); ``prepare`` are stages applied to the
    document first (the fields the API adds or hides); ``steps`` are checked
    steps (``check_steps``). The pipeline yields at most one document:
    ``{"types": [type of each step's value], "value": value}`` (``value``
    absent when the path does not resolve), or ``{"value": document}`` for
    no steps.
    """
    pipeline = [{"$match": match}, {"$limit": 1}, *prepare]
    if not steps:
        return [*pipeline, {"$project": {"_id": 0, "value": "$$ROOT"}}]
    previous = "$$ROOT"
    for number, step in enumerate(steps):
        slot = _SLOT.format(number)
        pipeline.append({"$set": {slot: _step_expression(previous, step)}})
        previous = f"${slot}"
    pipeline.append({"$project": {
        "_id": 0,
        "types": [{"$type": f"${_SLOT.format(n)}"} for n in range(len(steps))],
        "value": previous,
    }})
    return pipeline


def resolve(steps, answer):
    """The value of a ``path_pipeline`` answer, or the error naming the first bad step.

    ``answer`` is the pipeline's document. Returns the value. Raises
    ``MalformedPath`` for an index that is not a non-negative integer on a
    list or a key on a value that is neither object nor list, and
    ``PathNotFound`` for the first step that does not resolve.
    """
    types = answer.get("types", [])
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


class SubdocumentMixin:
    """Manager methods reading a document whole or by path (seed 002); needs ``read_collection``."""

    def read_path(self, match, steps=(), prepare=()):
        """The value at ``steps`` in the document matching ``match``: one aggregation.

        ``steps`` is a sequence of strings (keys, or list indices as digits);
        no steps is the whole document. ``prepare`` are stages applied to the
        document before the path is taken. Returns the value as pymongo
        decodes it (a dict, list or scalar; ``{}`` and ``[]`` as such).
        Raises ``self.model.DoesNotExist`` when no document matches,
        ``MalformedPath`` or ``PathNotFound`` (see ``resolve``).
        """
        steps = check_steps(steps)
        cursor = self.read_collection.aggregate(path_pipeline(match, steps, prepare))
        answer = next(iter(cursor), None)
        if answer is None:
            raise self.model.DoesNotExist("No such document.")
        return resolve(steps, answer)
