"""The accounts app's indexes: pending sign-ups (``accounts.models.PendingSignup``).

A pending sign-up confirms nothing once ``PASSWORD_RESET_TIMEOUT`` (3 days by
default) has passed; MongoDB deletes it a week after it was made (a TTL index on
``created_at``), so the unconfirmed sign-ups, and the password hashes they hold,
do not pile up. A constant, not the setting: a TTL index keeps the value it was
made with.
"""

from pymongo import ASCENDING

#: Seconds a pending sign-up is kept: beyond any link's lifetime.
PENDING_SIGNUP_SECONDS = 7 * 24 * 60 * 60

INDEXES = {
    "pending_signups": [([("created_at", ASCENDING)],
                         {"name": "pending_signup_expiry", "expireAfterSeconds": PENDING_SIGNUP_SECONDS})],
}
