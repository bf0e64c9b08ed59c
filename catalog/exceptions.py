"""The catalog's exceptions: refused changes to the category tree, malformed taxonomy
files, and paths into a document that cannot be answered.

Every one is a ``ValueError`` whose message says why, for a shopper, staff
or an operator.
"""


class CatalogError(ValueError):
    """A catalog change that is refused; the message says why, for a shopper or staff."""


class InvalidMove(CatalogError):
    """A move under the category itself or one of its descendants (it would make a cycle)."""


class CategoryNotEmpty(CatalogError):
    """A delete of a category that still has subcategories or products."""


class SlugTaken(CatalogError):
    """A slug that another category already has."""


class TaxonomyError(ValueError):
    """A malformed taxonomy file: ``line`` is the 1-based line number at fault."""

    def __init__(self, line, message):
        super().__init__(f"line {line}: {message}")
        self.line = line


class PathError(ValueError):
    """A path that cannot be answered (FoundationDB "Hierarchical Documents" recipe). ``step`` is the 0-based index of the step
    at fault (None for the path as a whole) and ``steps`` the path."""

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
