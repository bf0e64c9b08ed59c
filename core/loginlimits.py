"""django-axes with a limit of its own for each lock-out parameter (the login rate limit).

``AXES_LOCKOUT_PARAMETERS`` lists three independent lock-outs: one username
from one address, one username from anywhere (a password sprayed from many
addresses), one address whatever the username (one address trying many
usernames). django-axes compares each one's failures with the one
``AXES_FAILURE_LIMIT``; ``SHOP_LOGIN_FAILURE_LIMITS`` gives each its own:
``{"username+ip_address": 5, "username": 20, "ip_address": 30}`` (failures
within ``AXES_COOLOFF_TIME``). The handler scales each count to
``AXES_FAILURE_LIMIT`` so that django-axes' own comparison
(``failures >= AXES_FAILURE_LIMIT``) locks exactly when one parameter
reaches its own limit. A successful log-in forgets only the failures of that
username from that address: another client's failures (an attacker's
against the same username) still count.
"""

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username, get_failure_limit, get_lockout_parameters
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Sum

from core.throttle import too_many_requests


def parameter_name(parameter):
    """``"username+ip_address"`` for ``["username", "ip_address"]``, ``"username"`` for ``"username"``."""
    return parameter if isinstance(parameter, str) else "+".join(parameter)


class PerParameterLimitsHandler(AxesDatabaseHandler):
    """django-axes' database handler; each lock-out parameter with its own failure limit."""

    def get_failures(self, request, credentials=None):
        """The failures of the parameter nearest its own limit, scaled to ``AXES_FAILURE_LIMIT``
        (an int; reaching ``AXES_FAILURE_LIMIT`` means that parameter reached its limit)."""
        common = get_failure_limit(request, credentials)
        limits = settings.SHOP_LOGIN_FAILURE_LIMITS
        parameters = get_lockout_parameters(request, credentials)
        worst = 0
        for parameter, attempts in zip(parameters, self.get_user_attempts(request, credentials)):
            failures = attempts.aggregate(total=Sum("failures_since_start"))["total"] or 0
            own = limits.get(parameter_name(parameter), common)
            worst = max(worst, failures * common // own)
        return worst

    def reset_user_attempts(self, request, credentials=None):
        """After a successful log-in: delete the failures of this username from this address
        only (django-axes deletes every record matching any parameter). Returns the count."""
        username = get_client_username(request, credentials)
        count, _ = AccessAttempt.objects.filter(username=username, ip_address=request.axes_ip_address).delete()
        return count


def lockout_response(request, original_response=None, credentials=None):
    """django-axes' ``AXES_LOCKOUT_CALLABLE``: the shop's 429 page for a locked-out log-in,
    with ``Retry-After`` the cool-off in seconds (``AXES_COOLOFF_TIME``)."""
    return too_many_requests(request, int(settings.AXES_COOLOFF_TIME.total_seconds()), login=True)
