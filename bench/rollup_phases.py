"""Where a full rollup's time goes: the local server's CPU and this process's, per phase.

    MONGODB_NAME=<db> python bench/rollup_phases.py [--events 100000] [--runs 1] [--variants new,main]
                                                    [--profile FILE]

Run by hand (not a test). Works in the database ``MONGODB_NAME`` (default
``shop_rollup_phases``): generates ``--events`` events as ``bench/rollup_bench.py`` does
(seed 1, over 365 days) unless that many are stored already, then runs ``--runs``
full rollups, the levels emptied before each. Every command pymongo sends is
timed (wall) and charged with the server process's CPU seconds (``/proc/<pid>/stat``
read when the command starts and when its reply arrives), grouped by phase:
the events read (``find``/``getMore`` on ``events``), each level's stored
documents read back, its inserts, its replaces. What no command accounts
for is this process's own work (grouping, comparing, encoding) and the
server's background threads (checkpoints, the oplog). CPU seconds on the
shared machine follow the load less than wall time does; compare variants
alternated in one process (``--variants``: names of ``VARIANTS``: ``new`` the code as it is,
``main`` a first run's bounds by three reads and no level summed in memory, as before
2026-11-29 19:00, ``bounds`` only the first of the two changes; the daily sums of ``day_documents`` are
today's in every variant), not runs of different hours.
``--profile FILE`` writes a cProfile of the last run.
"""

import argparse
import datetime
import os
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shop.settings")
os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only-secret-key-0123456789abcdefghijklmnop")
os.environ.setdefault("MONGODB_NAME", "shop_rollup_phases")

from pymongo import monitoring  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def cpu_of(pid):
    """User + system CPU seconds of process ``pid``."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


class PhaseListener(monitoring.CommandListener):
    """Charges each command's wall time and the server's CPU during it to a phase."""

    def __init__(self):
        self.pid = None
        self.active = False
        self.inflight = {}
        self.phases = defaultdict(lambda: [0, 0, 0.0, 0.0])  # round trips, statements, wall s, server CPU s
        self.cursors = {}

    def started(self, event):
        if not self.active or self.pid is None:
            return
        name = event.command_name
        command = event.command
        target = command.get(name)
        if name == "getMore":
            target = command.get("collection")
        if not isinstance(target, str):
            target = "$cmd"
        phase = f"{name if name != 'getMore' else 'find'} {target}"
        batch = next((command[key] for key in ("updates", "documents", "deletes") if key in command), None)
        self.inflight[event.request_id] = (phase, len(batch) if isinstance(batch, list) else 1,
                                           time.perf_counter(), cpu_of(self.pid))

    def _end(self, event):
        began = self.inflight.pop(event.request_id, None)
        if began is None:
            return
        phase, statements, wall, cpu = began
        cursor = getattr(event, "reply", {}).get("cursor") if hasattr(event, "reply") else None
        if cursor is not None:  # a read: count the documents returned
            statements = len(cursor.get("firstBatch", cursor.get("nextBatch", [])))
        row = self.phases[phase]
        row[0] += 1
        row[1] += statements
        row[2] += time.perf_counter() - wall
        row[3] += cpu_of(self.pid) - cpu

    succeeded = failed = _end


LISTENER = PhaseListener()
monitoring.register(LISTENER)

def _main_bounds(self, after, until):
    """``touched_hours`` of a first run before 2026-11-29 (rollup42): an existence check and the
    first and the last ``ts`` by finds sorted with a limit."""
    from pymongo import ASCENDING, DESCENDING

    from analytics.bucketing import hours_between

    events = self.get_collection("events")
    if after is None:
        if events.find_one({"recorded": {"$lte": until}}, {"_id": 1}) is None:
            return set()
        first = next(iter(events.find({}, {"ts": 1}).sort("ts", ASCENDING).limit(1)), None)
        last = next(iter(events.find({}, {"ts": 1}).sort("ts", DESCENDING).limit(1)), None)
        return set() if first is None else hours_between(first["ts"], last["ts"])
    return ORIGINAL["touched_hours"](self, after, until)


ORIGINAL = {}


def _variant(old_bounds, carry):
    def set_up():
        from analytics.managers import rollups

        ORIGINAL.setdefault("touched_hours", rollups.RollupManager.touched_hours)
        ORIGINAL.setdefault("carry", rollups.CARRY_LIMIT)
        rollups.RollupManager.touched_hours = _main_bounds if old_bounds else ORIGINAL["touched_hours"]
        rollups.CARRY_LIMIT = ORIGINAL["carry"] if carry else 0
    return set_up


#: Variants to alternate: name -> a function that sets the code up (module attributes) for a run:
#: ``main`` the forms before the one ``$group`` of the bounds and the carried levels, ``new`` both.
VARIANTS = {"main": _variant(True, False), "bounds": _variant(False, False), "new": _variant(False, True)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--variants", default="main")
    parser.add_argument("--profile", help="write a cProfile of the last run to this file")
    options = parser.parse_args()

    import django

    django.setup()
    from django.core.management import call_command

    import rollup_bench
    from analytics.models import RollupProgress
    from analytics.periods import LEVELS
    from catalog.models import Product
    from core.mongo import get_collection

    call_command("migrate", verbosity=0, interactive=False)
    events = get_collection("events")
    LISTENER.pid = int(events.database.client.admin.command("serverStatus")["pid"])
    if events.estimated_document_count() < options.events:
        events.delete_many({})
        call_command("load_catalog", verbosity=0)
        skus = sorted(Product.objects.values_list("sku", flat=True))
        now = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
        rollup_bench.insert(options.events, skus, now - datetime.timedelta(days=365, hours=1), 365 * 86400,
                            random.Random(1))
    print(f"{events.estimated_document_count():,} events; indexes of stats.hourly: "
          f"{sorted(get_collection('stats.hourly').index_information())}", flush=True)
    names = options.variants.split(",")
    for run in range(options.runs):
        for name in names:
            for collection in ["stats.progress", *(level.collection for level in LEVELS)]:
                get_collection(collection).delete_many({})
            VARIANTS[name]()
            LISTENER.phases.clear()
            LISTENER.active = True
            load = os.getloadavg()[0]
            server, client, wall = cpu_of(LISTENER.pid), time.process_time(), time.perf_counter()
            profiler = None
            if options.profile and run == options.runs - 1:
                import cProfile
                profiler = cProfile.Profile()
                profiler.enable()
            RollupProgress.objects.rollup()
            if profiler is not None:
                profiler.disable()
                profiler.dump_stats(options.profile)
            wall, client, server = time.perf_counter() - wall, time.process_time() - client, cpu_of(LISTENER.pid) - server
            LISTENER.active = False
            documents = {level.name: get_collection(level.collection).estimated_document_count() for level in LEVELS}
            print(f"\n[{name} run {run + 1}] wall {wall:.1f} s, server CPU {server:.1f} s, this process's CPU "
                  f"{client:.1f} s, load {load:.1f} -> {os.getloadavg()[0]:.1f}; documents {documents}", flush=True)
            total = [0, 0, 0.0, 0.0]
            for phase, row in sorted(LISTENER.phases.items(), key=lambda item: -item[1][3]):
                total = [a + b for a, b in zip(total, row)]
                print(f"  {phase:32} {row[0]:7,} round trips {row[1]:9,} statements/documents  wall {row[2]:7.1f} s  "
                      f"server CPU {row[3]:7.1f} s", flush=True)
            print(f"  {'(all commands)':32} {total[0]:7,} round trips {total[1]:9,} statements/documents  wall {total[2]:7.1f} s  "
                  f"server CPU {total[3]:7.1f} s; server CPU outside commands {server - total[3]:.1f} s", flush=True)


if __name__ == "__main__":
    main()
