"""The deals' counts per saving kept in the database: the stamp of a kept count (the versions
it was counted at) and the window of ids a saving's page is read from. Used by
``SavingsCount.objects`` (``catalog/listings/savings_count_manager.py``) and
``ListingManager.savings_kept`` / ``deals_page`` (``catalog/listings/manager.py``).
"""

import datetime
import hashlib

from bson import ObjectId

from catalog.store.cache import SAVINGS_KEPT, UNSET, savings_part_scope, savings_scope, versions
from catalog.store.siblings import catalog_model


def stamp_names(pct):
    """The version names a kept count of saving ``pct`` is stamped with."""
    return (*savings_scope([pct]), SAVINGS_KEPT)


def stamp(pct, tokens):
    """The stamp (str) of saving ``pct`` at the versions ``tokens`` (``{name: token}`` holding
    ``stamp_names(pct)``)."""
    key = (int(pct), tuple(tokens[name] for name in stamp_names(pct)))
    return hashlib.sha1(repr(key).encode(), usedforsecurity=False).hexdigest()


def part_stamp(pct, part, tokens):
    """The stamp (str) of the count of the products saving ``pct`` percent issued in the decade
    ``part`` (``facet_parts.issue_part``) at the versions ``tokens`` (``{name: token}`` holding
    ``savings:<pct>:<part>`` and ``savings-kept``)."""
    (name,) = savings_part_scope(pct, [part])
    key = (int(pct), str(part), tokens[name], tokens[SAVINGS_KEPT])
    return hashlib.sha1(repr(key).encode(), usedforsecurity=False).hexdigest()


def current_tokens(names):
    """``{name: token}`` of the version ``names``: the request's (read once per request, with
    its other versions), or outside a request read now (one read)."""
    found = versions(names)
    if found is not None:
        return dict(zip(names, found))
    read = catalog_model("CatalogVersion").objects.tokens(names)
    return {name: read.get(name, UNSET) for name in names}


def id_bound(first, last, fraction):
    """An ObjectId above about ``fraction`` (0 to 1) of the ids from ``first`` to ``last``
    (ObjectIds), guessed from their creation times: the first id of the second after
    ``first``'s time plus ``fraction`` of the time to ``last``'s."""
    low, high = first.generation_time, last.generation_time
    moment = low + (high - low) * max(0.0, min(float(fraction), 1.0)) + datetime.timedelta(seconds=1)
    return ObjectId.from_datetime(moment)
