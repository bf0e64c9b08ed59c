"""The shop's one clock: the current time and datetimes read back from MongoDB, in aware UTC.

MongoDB stores a date as milliseconds since the epoch, so ``now()`` drops the
microseconds below a millisecond: a time written and read back compares equal
to the one the code kept. pymongo hands dates back naive (UTC) unless the client
is tz-aware; ``aware()`` makes either kind aware UTC. Tests move the clock by
patching ``core.clock.now``; every module calls it as ``clock.now()`` for that.
"""

import datetime

UTC = datetime.timezone.utc


def now():
    """The current time: an aware UTC datetime at MongoDB's millisecond precision."""
    moment = datetime.datetime.now(UTC)
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


def aware(moment):
    """``moment`` (a datetime, naive meaning UTC, or None) as an aware UTC datetime (None stays None)."""
    if moment is None:
        return None
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)
