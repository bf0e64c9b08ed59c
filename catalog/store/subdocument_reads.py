"""The managers' reads of a document whole or by path (FoundationDB "Hierarchical Documents" recipe); the queries are built by
``catalog/store/subdocuments.py``."""

from catalog.store.subdocuments import check_steps, path_pipeline, resolve


class SubdocumentMixin:
    """Manager methods reading a document whole or by path (FoundationDB "Hierarchical Documents" recipe); needs ``read_collection``."""

    def read_path(self, match, steps=(), hidden=(), added=None):
        """The value at ``steps`` in the document matching ``match``: one read.

        ``steps`` is a sequence of strings (keys, or list indices as digits).
        No steps is the whole document: one ``find_one``. Otherwise one
        aggregation (``path_pipeline``) returns only the value at the end of
        the path. The document is served without its top-level fields
        ``hidden`` and with the fields of ``added`` (``{name: value}``).
        Returns the value as pymongo decodes it (a dict, list or scalar;
        ``{}`` and ``[]`` as such). Raises ``self.model.DoesNotExist`` when no
        document matches, ``MalformedPath`` or ``PathNotFound`` (see
        ``resolve``).
        """
        steps = check_steps(steps)
        if not steps:
            projection = {name: 0 for name in hidden} or None
            document = self.read_collection.find_one(match, projection)
            if document is None:
                raise self.model.DoesNotExist("No such document.")
            return {**document, **(added or {})}
        cursor = self.read_collection.aggregate(path_pipeline(match, steps, hidden, added))
        answer = next(iter(cursor), None)
        if answer is None:
            raise self.model.DoesNotExist("No such document.")
        return resolve(steps, answer)
