"""``python manage.py rollup_stats``: roll the events up into ``stats.hourly`` ... ``stats.yearly``.

Incremental (seed 001): only the periods touched by events recorded since
the last run are recomputed. Periods are UTC: hours, days, ISO weeks (Monday
00:00 to Sunday 24:00, so a week may span two months or two years), months
from the 1st, years from January 1st. Events recorded in the last ``--lag`` seconds
(default 60, as in the seed) wait for the next run, so that a write still
in flight when the run starts is not skipped. Safe to re-run, and after a
crash: see ``analytics.managers.RollupManager``.
"""

import datetime

from django.core.management.base import BaseCommand, CommandError

from analytics.managers import utcnow
from analytics.models import RollupProgress
from shop.commandlog import log_change


class Command(BaseCommand):
    help = "Roll the events up into hourly, daily, weekly, monthly and yearly statistics."

    def add_arguments(self, parser):
        parser.add_argument(
            "--lag", type=int, default=60,
            help="Leave the events recorded in the last LAG seconds for the next run (default 60).",
        )

    def handle(self, *args, **options):
        if options["lag"] < 0:
            raise CommandError("--lag must be 0 or more seconds.")
        until = utcnow() - datetime.timedelta(seconds=options["lag"])
        report = RollupProgress.objects.rollup(until=until)
        if not options["verbosity"]:
            return
        if report["resumed"]:
            log_change(self, "Resumed the unfinished previous run.")
        periods = ", ".join(f"{n} {name}" for name, n in report["periods"].items())
        log_change(
            self,
            f"Rolled up to {report['until']:%Y-%m-%d %H:%M:%S} UTC: "
            f"{report['hours']} hours touched" + (f" ({periods} buckets' periods)." if periods else ".")
        )
