"""``python manage.py rollup_stats``: roll the events up into ``stats.hourly`` ... ``stats.yearly``.

Incremental ("Hierarchical Aggregation" use case): only the periods touched by events recorded since
the last run are recomputed. Periods are UTC: hours, days, ISO weeks (Monday
00:00 to Sunday 24:00, so a week may span two months or two years), months
from the 1st, years from January 1st. Events recorded in the last ``--lag`` seconds
(default 60, as in the source) wait for the next run, so that a write still
in flight when the run starts is not skipped. Safe to re-run, and after a
crash: see ``analytics.managers.rollups.RollupManager``. When another run (another
command, or the dashboard rolling up on opening) holds the range, it says so
and writes nothing; a range claimed more than ``--takeover-after`` seconds
ago (default 300) is a crashed run's, redone first. A progress bar (windows
of periods) on a terminal; ``--quiet`` for cron.
"""

import datetime

from django.core.management.base import BaseCommand, CommandError

from core import clock
from analytics.managers.rollups import TAKEOVER_AFTER_SECONDS
from analytics.models import RollupProgress
from core.commandlog import log_change
from core.progress import add_quiet_argument, progress_bar


class Command(BaseCommand):
    help = "Roll the events up into hourly, daily, weekly, monthly and yearly statistics."

    def add_arguments(self, parser):
        parser.add_argument(
            "--lag", type=int, default=60,
            help="Leave the events recorded in the last LAG seconds for the next run (default 60).",
        )
        parser.add_argument(
            "--takeover-after", type=int, default=TAKEOVER_AFTER_SECONDS,
            help="Redo a range another run claimed more than this many seconds ago (a crash; "
                 f"default {TAKEOVER_AFTER_SECONDS}); 0 redoes it at once.",
        )
        add_quiet_argument(parser)

    def handle(self, *args, **options):
        if options["lag"] < 0:
            raise CommandError("--lag must be 0 or more seconds.")
        if options["takeover_after"] < 0:
            raise CommandError("--takeover-after must be 0 or more seconds.")
        until = clock.now() - datetime.timedelta(seconds=options["lag"])
        with progress_bar(self, options, unit="window", desc="Rolling up") as bar:
            def progress(done, total):
                if total is not None:
                    bar.reset(total=total)
                bar.update(done)

            report = RollupProgress.objects.rollup(until=until, takeover_after=options["takeover_after"],
                                                   progress=None if bar.disable else progress)
        if not options["verbosity"]:
            return
        quiet = options["quiet"]
        if report["claimed_elsewhere"]:
            log_change(self, "Another rollup holds the range; nothing done (after a crash, "
                             "--takeover-after 0 redoes its range now).", quiet=quiet)
            return
        if report["resumed"]:
            log_change(self, "Resumed the unfinished previous run.", quiet=quiet)
        periods = ", ".join(f"{n} {name}" for name, n in report["periods"].items())
        log_change(
            self,
            f"Rolled up to {report['until']:%Y-%m-%d %H:%M:%S} UTC: "
            f"{report['hours']} hours touched" + (f" ({periods} buckets' periods)." if periods else "."),
            quiet=quiet,
        )
