"""Parsing the ``<path>`` of an API URL into the steps of a FoundationDB "Hierarchical Documents" recipe path.

``details/tracks/3/name`` is the steps ``("details", "tracks", "3", "name")``:
``/`` between the steps, list elements named by their index. Whether a step
is an object key or a list index is only known against the document, which
``SubdocumentMixin.read_path`` decides on the server; here the path is
refused before any query when it could never be one (``MalformedPath``).
"""

from catalog.exceptions import MalformedPath
from catalog.store.subdocuments import MAX_STEPS, check_steps

# A path longer than this many characters is refused before it is split.
MAX_PATH_LENGTH = 4096


def parse_path(text):
    """The steps of ``text`` (the URL's path after the SKU or slug, already URL-decoded).

    Returns a tuple of strings (empty for an empty ``text``: the whole
    document). Raises ``MalformedPath`` for an empty step (``a//b``, a
    trailing ``/``), a step starting with ``$``, more than ``MAX_STEPS``
    steps or more than ``MAX_PATH_LENGTH`` characters.
    """
    if not text:
        return ()
    if len(text) > MAX_PATH_LENGTH:
        raise MalformedPath(f"A path has at most {MAX_PATH_LENGTH} characters.")
    if text.count("/") >= MAX_STEPS:
        raise MalformedPath(f"A path has at most {MAX_STEPS} steps; this one has "
                            f"{text.count('/') + 1}.")
    return check_steps(text.split("/"))
