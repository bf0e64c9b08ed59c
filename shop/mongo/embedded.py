"""The embedded engine: mongomock-ng behind one process-wide lock.

With no ``MONGODB_URI`` the shop runs on mongomock-ng, an in-process engine
with the pymongo API. This module makes it safe and faithful enough for the
shop:

* ``ENGINE_LOCK`` is held around every operation (and around the first read
  of a cursor, which is when mongomock evaluates a query). mongomock alone
  is not atomic: 8 threads doing conditional decrements sold 2,003 units of
  a stock of 2,000. Under the lock a conditional ``update_one`` is atomic as
  on a real server.
* ``apply_compatibility_fixes()`` patches mongomock-ng 7.11.1 where it
  differs from a server: ``$getField`` with an expression input and
  ``$type`` of an ObjectId (which broke every ORM count), and
  ``find_one_and_update`` updating the wrong array element; and where it is
  too slow for the shop: ``$in`` by set membership, ``$merge`` and
  ``$lookup`` by key. ``LockedCollection`` filters a leading ``$match``
  before mongomock copies the collection and checks unique indexes once per
  ``insert_many`` batch. Each names the upstream code it works around and is
  tested (``tests/test_engine.py``, ``test_inventory_engine.py``,
  ``test_embedded_merge.py``).
* ``EmbeddedClient`` answers what the backend asks a client
  (``server_info()``, ``list_search_indexes()``); data lives in one
  process-wide store, so closing and reopening the client (as Django's test
  runner does) keeps it, like a server would.

Nothing here survives a restart: the shop reloads its demo catalog at start.
"""

import copy
import datetime
import threading

import mongomock_ng
from bson import Decimal128, ObjectId
from mongomock_ng import aggregate as mongomock_aggregate
from mongomock_ng import filtering as mongomock_filtering
from mongomock_ng import helpers as mongomock_helpers
from mongomock_ng.collection import Collection as MockCollection
from mongomock_ng.collection import Cursor as MockCursor
from mongomock_ng.store import ServerStore
from pymongo.errors import OperationFailure

from . import counter

#: The one lock every operation on the embedded engine runs under.
ENGINE_LOCK = threading.RLock()

_STORE = ServerStore()

# Methods that do not touch data (no lock, not counted).
_PLAIN_ATTRIBUTES = frozenset(
    {"name", "full_name", "database", "codec_options", "read_preference", "write_concern",
     "read_concern", "with_options", "client"}
)


class LockedCursor:
    """A mongomock cursor whose evaluation runs under ``ENGINE_LOCK``.

    mongomock computes a query's whole result on the first ``next()``; that
    first read happens under the lock, so it sees one consistent state.
    """

    def __init__(self, cursor):
        self._cursor = cursor

    def __iter__(self):
        return self

    def __next__(self):
        with ENGINE_LOCK:
            return next(self._cursor)

    next = __next__

    def __getattr__(self, name):
        attr = getattr(self._cursor, name)
        if not callable(attr):
            return attr

        def call(*args, **kwargs):
            with ENGINE_LOCK:
                result = attr(*args, **kwargs)
            # sort(), skip(), limit() ... return the cursor itself: keep it wrapped.
            return self if result is self._cursor else result

        return call

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        pass


def _is_inclusion(projection):
    """True for a projection that only includes paths (``{"a": 1, "b.c": 1}``)."""
    return all(value in (1, True) and not key.startswith("$") for key, value in projection.items())


def _batch_keeps_unique_indexes(collection, documents):
    """True when ``documents`` clash on no unique index, with the store or each other.

    False when they might (or a key is unhashable): the caller then lets
    mongomock check document by document.
    """
    store = collection._store
    for index in store.indexes.values():
        if not index.get("unique"):
            continue
        key, sparse = index.get("key"), index.get("sparse")
        partial = index.get("partialFilterExpression")

        def entries_of(document):
            # A partial index covers only the documents its filter matches.
            if partial is not None and not mongomock_filtering.filter_applies(partial, document):
                return ()
            return collection._compute_index_entries(document, key, sparse) or ()

        try:
            taken = set()
            for document in store.documents:
                taken.update(entries_of(document))
            for document in documents:
                entries = entries_of(document)
                if any(entry in taken for entry in entries):
                    return False
                taken.update(entries)
        except TypeError:
            return False
    return True


class LockedCollection:
    """A mongomock collection whose every operation runs under ``ENGINE_LOCK``.

    Each call is counted as one database round trip by ``counter``.
    """

    def __init__(self, collection):
        self._collection = collection

    @property
    def name(self):
        return self._collection.name

    @property
    def full_name(self):
        return self._collection.full_name

    @property
    def database(self):
        return LockedDatabase(self._collection.database)

    def list_search_indexes(self, *args, **kwargs):
        """Atlas Search is not available on the embedded engine (nor on a plain server)."""
        raise OperationFailure("$listSearchIndexes stage is only allowed on MongoDB Atlas")

    def with_options(self, **kwargs):
        # Read preferences and concerns mean nothing in one process.
        return self

    def aggregate(self, pipeline, *args, **kwargs):
        """mongomock's aggregate, filtering first when the pipeline opens with ``$match``.

        Upstream cost (mongomock-ng 7.11.1, collection.py ``aggregate``): the
        whole collection is deep-copied before the first stage runs, so a
        ``$match`` on 180 of 3,500 documents copied all 3,500. Here the
        leading ``$match`` runs as a ``find`` (the same filter code, copying
        only the matches, and only the fields of an inclusion ``$project``
        that follows it) and the rest of the pipeline runs on its result.
        """
        with ENGINE_LOCK:
            counter.record(self._collection.name, "aggregate")
            pipeline = list(pipeline)
            if not pipeline or list(pipeline[0]) != ["$match"]:
                return self._collection.aggregate(pipeline, *args, **kwargs)
            rest, projection = pipeline[1:], None
            if rest and list(rest[0]) == ["$project"] and _is_inclusion(rest[0]["$project"]):
                projection, rest = rest[0]["$project"], rest[1:]
            documents = list(self._collection.find(pipeline[0]["$match"], projection))
            return mongomock_aggregate.process_pipeline(
                documents, self._collection.database, rest, kwargs.get("session")
            )

    def insert_many(self, documents, *args, **kwargs):
        """mongomock's insert_many, checking unique indexes once per batch.

        Upstream cost (mongomock-ng 7.11.1, collection.py ``_ensure_uniques``):
        each inserted document is compared with every stored one for each
        unique index, so loading n documents costs n² comparisons (100,000
        products: hours). When the batch's keys are hashable and clash with
        nothing, they are checked here with sets and the per-document check
        is skipped; otherwise mongomock's own check runs and raises as usual.
        """
        with ENGINE_LOCK:
            counter.record(self._collection.name, "insert_many")
            documents = list(documents)
            collection = self._collection
            if not _batch_keeps_unique_indexes(collection, documents):
                return collection.insert_many(documents, *args, **kwargs)
            collection._ensure_uniques = lambda new_data: None  # this call only
            try:
                return collection.insert_many(documents, *args, **kwargs)
            finally:
                del collection._ensure_uniques

    def __getattr__(self, name):
        attr = getattr(self._collection, name)
        if name in _PLAIN_ATTRIBUTES or not callable(attr):
            return attr

        def call(*args, **kwargs):
            with ENGINE_LOCK:
                counter.record(self._collection.name, name)
                result = attr(*args, **kwargs)
            if isinstance(result, MockCursor):
                return LockedCursor(result)
            return result

        return call

    def __getitem__(self, name):
        return LockedCollection(self._collection[name])

    def __eq__(self, other):
        return isinstance(other, LockedCollection) and other._collection == self._collection

    def __hash__(self):
        return hash(self._collection.full_name)


class LockedDatabase:
    """A mongomock database handing out locked collections."""

    def __init__(self, database):
        self._database = database

    @property
    def name(self):
        return self._database.name

    @property
    def client(self):
        return EmbeddedClient()

    def __getitem__(self, name):
        return LockedCollection(self._database[name])

    def get_collection(self, name, *args, **kwargs):
        return LockedCollection(self._database.get_collection(name))

    def __getattr__(self, name):
        attr = getattr(self._database, name)
        if not callable(attr):
            return attr

        def call(*args, **kwargs):
            with ENGINE_LOCK:
                counter.record("$cmd", name)
                result = attr(*args, **kwargs)
            if isinstance(result, MockCollection):
                return LockedCollection(result)
            return result

        return call


class EmbeddedClient:
    """A mongomock client over the process-wide store, answering as pymongo's does."""

    def __init__(self, *args, **kwargs):
        self._client = mongomock_ng.MongoClient(_store=_STORE)

    def __getitem__(self, name):
        return LockedDatabase(self._client[name])

    def get_database(self, name, *args, **kwargs):
        return self[name]

    @property
    def admin(self):
        return self["admin"]

    def server_info(self):
        return self._client.server_info()

    def list_database_names(self):
        with ENGINE_LOCK:
            return self._client.list_database_names()

    def drop_database(self, name):
        with ENGINE_LOCK:
            self._client.drop_database(name)

    def close(self):
        """Closing keeps the data: the store belongs to the process, as to a server."""


def _get_field(parser, values):
    """``$getField`` whose ``input`` may be any expression.

    Upstream bug (mongomock-ng 7.11.1, aggregate.py ``_handle_field_operator``):
    only a string ``input`` is evaluated; an expression such as
    ``{"$getField": {"field": "x", "input": {"$arrayElemAt": [...]}}}`` is
    used as the document itself, so the field is never found. The backend
    wraps every ORM count() and aggregate() result in such an expression,
    which made them all return 0 or None.
    """
    field_name = parser.parse(values.get("field", ""))
    if not isinstance(field_name, str):
        raise OperationFailure(f"$getField requires field to be a string, got {field_name!r}")
    document = parser.parse(values["input"]) if "input" in values else parser._doc_dict
    if not isinstance(document, dict):
        return None
    return document.get(field_name)


def _type_name(parser, values):
    """``$type`` that knows ObjectId and Decimal128.

    Upstream bug (mongomock-ng 7.11.1, aggregate.py ``_handle_type_operator``):
    ``$type`` raises NotImplementedError for ObjectId and Decimal128 values,
    which the backend's ``isnull`` lookups on related fields evaluate.
    """
    parsed = parser.parse(values)
    if isinstance(parsed, ObjectId):
        return "objectId"
    if isinstance(parsed, Decimal128):
        return "decimal"
    if isinstance(parsed, bytes):
        return "binData"
    return None


def _find_and_modify_keeping_query(original):
    """``find_one_and_update`` whose positional ``$`` resolves against the caller's query.

    Upstream bug (mongomock-ng 7.11.1, collection.py ``_find_and_modify``):
    after finding the document it narrows the query to ``{'_id': ...}``
    before updating, so ``$`` in ``{'$set': {'items.$.qty': n}}`` no longer
    knows which element the query matched and silently updates element 0
    (the seed's ``find_one_and_update({'items.sku': s}, ...)`` changed the
    wrong cart line). The fix keeps the caller's conditions next to the
    ``_id``. (Another limitation stays: mongomock resolves ``$`` again for
    each updated field, after the earlier fields changed; the inventory's
    positional updates match on fields they do not change.)
    """

    def find_and_modify(self, query, *args, **kwargs):
        original_update = self._update

        def update(spec, document, upsert=False, *update_args, **update_kwargs):
            if isinstance(query, dict) and isinstance(spec, dict) and set(spec) == {"_id"}:
                spec = {**query, "_id": spec["_id"]}
            return original_update(spec, document, upsert, *update_args, **update_kwargs)

        # Every call runs under ENGINE_LOCK, so the instance attribute is seen by this call only.
        self._update = update
        try:
            return original(self, query, *args, **kwargs)
        finally:
            del self._update

    return find_and_modify


def _set_based_in(original_in):
    """``$in`` by set membership when the values are all ObjectIds or all strings.

    Upstream cost (mongomock-ng 7.11.1, filtering.py ``_in_op``): every
    document value is compared with every listed value through BSON
    comparison, so a category page's ``{'categories': {'$in': [...]}}`` over
    100,000 products with 500 categories took 40 s. For ObjectIds and
    strings, equality in MongoDB is Python equality, so a set answers the
    same; anything else (numbers, booleans, regexes, documents) goes to
    mongomock's own code. The set of the last list is kept: one query tests
    every document against the same list, under ``ENGINE_LOCK``.
    """
    last = [None, None]

    def in_op(doc_val, search_val):
        if last[0] is not search_val:
            plain = (
                isinstance(search_val, (list, tuple)) and search_val
                and (all(type(v) is ObjectId for v in search_val)
                     or all(type(v) is str for v in search_val))
            )
            last[:] = [search_val, frozenset(search_val) if plain else None]
        wanted = last[1]
        if wanted is None or doc_val is mongomock_filtering.NOTHING:
            return original_in(doc_val, search_val)
        values = doc_val if isinstance(doc_val, (list, tuple)) else (doc_val,)
        try:
            return any(value in wanted for value in values)
        except TypeError:  # an unhashable value (a document): compare the slow way
            return original_in(doc_val, search_val)

    return in_op


def _merge_by_id(original):
    """``$merge`` on ``_id`` (whenMatched replace, whenNotMatched insert) by key, not by scans.

    Upstream performance bug (mongomock-ng 7.11.1, aggregate.py
    ``_handle_merge_stage``): every input document costs a ``find_one`` on
    the target, a full scan, so merging n documents into a collection of m
    is O(n * m): merging 347 documents into 20,000 took 84 s. The rollups
    (analytics) merge thousands of buckets. This path looks each ``_id`` up
    in the store directly; any other form of ``$merge``, or a target with a
    unique index besides ``_id``, goes to the upstream code.
    """

    def handle_merge_stage(in_collection, database, options, user_vars):
        if not (
            isinstance(options, dict)
            and isinstance(options.get("into"), str)
            and options.get("on", "_id") in ("_id", ["_id"])
            and options.get("whenMatched") == "replace"
            and options.get("whenNotMatched", "insert") == "insert"
        ):
            return original(in_collection, database, options, user_vars)
        target = database[options["into"]]
        if any(name != "_id_" and index.get("unique") for name, index in target._store.indexes.items()):
            return original(in_collection, database, options, user_vars)
        for document in in_collection:
            if "_id" not in document:
                raise OperationFailure("$merge on _id needs an _id in each input document")
            key = document["_id"]
            if isinstance(key, dict):
                raise OperationFailure("$merge by key takes scalar _id values only")
            if key in target._store:
                replacement = mongomock_helpers.patch_datetime_awareness_in_document(
                    copy.deepcopy(document)
                )
                target._store[key] = replacement
            else:
                target.insert_one(copy.deepcopy(document))
        return in_collection

    return handle_merge_stage


def _simple_key(value):
    """``value`` as a dict key for equality matching, or ``_UNINDEXABLE``.

    Strings, ObjectIds, datetimes and non-boolean numbers compare in Python
    as in MongoDB; anything else (documents, booleans...) is left to upstream.
    """
    if value is None or isinstance(value, (str, ObjectId, datetime.datetime)):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    return _UNINDEXABLE


_UNINDEXABLE = object()


def _lookup_by_key(original):
    """``$lookup`` with ``localField``/``foreignField``: one read of the foreign collection per stage.

    Upstream performance bug (mongomock-ng 7.11.1, aggregate.py
    ``_handle_lookup_stage``): every input document runs a ``find`` on the
    foreign collection, a full scan with a copy of each match, so n lookups
    into m documents cost O(n * m) filter evaluations: 20,000 (SKU, hour)
    groups joined to 347 products took 40 s. This path reads the foreign
    collection once and indexes it by the foreign field (array values index
    each element; a missing field is null, as in MongoDB); a stage with a
    ``pipeline``, or values that are not plain scalars, goes to upstream.
    """

    def handle_lookup_stage(in_collection, database, options, user_vars):
        if "pipeline" in options or not all(
            isinstance(options.get(name), str) for name in ("from", "as", "localField", "foreignField")
        ) or "." in options["as"]:
            return original(in_collection, database, options, user_vars)
        in_collection = list(in_collection)
        foreign = list(database.get_collection(options["from"]).find())
        index = {}
        for position, document in enumerate(foreign):
            value = mongomock_helpers.get_value_by_dot(
                document, options["foreignField"], can_generate_array=True)
            if value is mongomock_helpers.NOTHING:
                value = None
            values = value if isinstance(value, list) else [value]
            for item in values:
                key = _simple_key(None if item is mongomock_helpers.NOTHING else item)
                if key is _UNINDEXABLE:
                    return original(in_collection, database, options, user_vars)
                index.setdefault(key, []).append(position)
        matches_by_document = []
        for document in in_collection:
            value = mongomock_helpers.get_value_by_dot(
                document, options["localField"], can_generate_array=True)
            if value is mongomock_helpers.NOTHING:
                value = None
            values = value if isinstance(value, list) else [value]
            positions = set()
            for item in values:
                key = _simple_key(item)
                if key is _UNINDEXABLE:
                    return original(in_collection, database, options, user_vars)
                positions.update(index.get(key, ()))
            matches_by_document.append(sorted(positions))
        for document, positions in zip(in_collection, matches_by_document):
            document[options["as"]] = [copy.deepcopy(foreign[p]) for p in positions]
        return in_collection

    return handle_lookup_stage


_fixes_applied = False


def apply_compatibility_fixes():
    """Patch mongomock-ng (idempotent): the aggregation parser's two fixes, find-and-modify's,
    ``$in``, and ``$merge``/``$lookup`` by key, above."""
    global _fixes_applied
    if _fixes_applied:
        return
    parser_class = mongomock_aggregate._Parser
    original_field = parser_class._handle_field_operator
    original_type = parser_class._handle_type_operator

    def handle_field_operator(self, operator, values):
        if operator == "$getField" and isinstance(values, dict):
            return _get_field(self, values)
        return original_field(self, operator, values)

    def handle_type_operator(self, operator, values):
        if operator == "$type":
            name = _type_name(self, values)
            if name is not None:
                return name
        return original_type(self, operator, values)

    parser_class._handle_field_operator = handle_field_operator
    parser_class._handle_type_operator = handle_type_operator
    MockCollection._find_and_modify = _find_and_modify_keeping_query(MockCollection._find_and_modify)
    fast_in = _set_based_in(mongomock_filtering._in_op)
    operators = mongomock_filtering._filterer_inst._operator_map
    operators["$in"] = fast_in
    operators["$nin"] = lambda doc_val, search_val: not fast_in(doc_val, search_val)
    stages = mongomock_aggregate._PIPELINE_HANDLERS
    stages["$merge"] = _merge_by_id(stages["$merge"])
    stages["$lookup"] = _lookup_by_key(stages["$lookup"])
    _fixes_applied = True
