"""``ShippingZone.objects``: the zones and their methods as one cached table."""

from django.db import models

from core.mongo.collections import MongoCollectionMixin


def _bands(entries):
    """Stored bands ``["250:399", "*:1999"]`` as ``[(250, 399), (None, 1999)]`` (as saved by
    ``ShippingMethod.clean``; a malformed entry is skipped)."""
    bands = []
    for entry in entries or []:
        limit, _, cents = str(entry).partition(":")
        try:
            bands.append((None if limit.strip() == "*" else int(limit), int(cents)))
        except ValueError:
            continue
    return bands


class ShippingZoneManager(MongoCollectionMixin, models.Manager):
    """Reads of ``shipping_zones`` and ``shipping_methods`` for pricing."""

    #: The active zones and methods are kept this many seconds in the ``default`` cache (a
    #: handful of small documents): a priced cart then reads none. Saving or deleting a zone
    #: or a method through the ORM (the admin) empties it at once in this process
    #: (``shipping.apps``); other processes see the change within this time, and checkout's
    #: total confirmation (``PricesChanged``) covers a cart priced across it.
    CACHE_SECONDS = 60
    CACHE_KEY = "shipping:zones"

    def table(self):
        """The active zones, each ``{"id", "name", "countries": set, "postcode_prefixes": [str],
        "rest_of_world", "position", "methods": [{"code", "name", "kind", "pricing", "bands":
        [(limit or None, cents)], "free_over", "minimum_order", "days_min", "days_max",
        "position"}]}`` (active methods only; ``code`` the method's id as text): from the cache,
        else two reads (the active zones, then their active methods)."""
        from django.core.cache import cache

        found = cache.get(self.CACHE_KEY)
        if found is None:
            found = self._read()
            cache.set(self.CACHE_KEY, found, self.CACHE_SECONDS)
        return found

    def _read(self):
        zones = {document["_id"]: {
            "id": str(document["_id"]), "name": document.get("name", ""),
            "countries": set(document.get("countries") or []),
            "postcode_prefixes": list(document.get("postcode_prefixes") or []),
            "rest_of_world": bool(document.get("rest_of_world")), "position": document.get("position", 0),
            "methods": [],
        } for document in self.collection.find({"active": True})}
        if not zones:
            return []
        for document in self.get_collection("shipping_methods").find({"active": True, "zone_id": {"$in": list(zones)}}):
            zones[document["zone_id"]]["methods"].append({
                "code": str(document["_id"]), "name": document.get("name", ""),
                "kind": document.get("kind", "standard"), "pricing": document.get("pricing", "weight"),
                "bands": _bands(document.get("bands")), "free_over": document.get("free_over"),
                "minimum_order": int(document.get("minimum_order") or 0),
                "days_min": int(document.get("days_min") or 0), "days_max": int(document.get("days_max") or 0),
                "position": document.get("position", 0),
            })
        return sorted(zones.values(), key=lambda zone: (zone["position"], zone["name"]))

    def forget(self):
        """Empty the cached table (after a zone or a method is saved or deleted)."""
        from django.core.cache import cache

        cache.delete(self.CACHE_KEY)
