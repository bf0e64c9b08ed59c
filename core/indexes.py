"""The core app's indexes: the rate limits' counters (``core.mongo.countcache``)."""

from pymongo import ASCENDING

INDEXES = {
    # MongoDB deletes a rate-limit count once its window has passed (a TTL index).
    "rate_limits": [([("expires", ASCENDING)], {"name": "rate_limit_expiry", "expireAfterSeconds": 0})],
}
