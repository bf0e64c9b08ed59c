"""``python manage.py shard_collections``: shard the shop's collections with the plan's
shard keys (``core.mongo.sharding.SHARD_KEYS``, ``docs/sharding.md``), printing each
command's answer.

Only a sharded cluster can do this: on the local server, or on any server
that is not a mongos, the command says why and exits non-zero without
sending anything. It also exits non-zero when the cluster refused one of the
commands (after trying them all).
"""

from bson import json_util
from django.core.management.base import BaseCommand, CommandError

from core.commandlog import log_change
from core.mongo import sharding


class Command(BaseCommand):
    help = "Shard the shop's collections on a sharded cluster (connect MONGODB_URI to a mongos)."

    def add_arguments(self, parser):
        parser.add_argument("--database", default="default", help="Database alias (default: default).")

    def handle(self, *args, **options):
        alias = options["database"]
        hello = sharding.server_hello(alias)
        if not sharding.is_mongos(hello):
            raise CommandError(f"MONGODB_URI points to {sharding.describe_server(hello)}, not a "
                               "mongos: sharding needs a sharded cluster.")
        refused = []
        for command, answer, ok in sharding.shard_collections(alias):
            log_change(self, f"{command}: {json_util.dumps(answer)}")
            if not ok:
                refused.append(command.split(" ")[1])
        if refused:
            namespaces = ", ".join(dict.fromkeys(refused))
            raise CommandError(f"The cluster refused {len(refused)} command(s): {namespaces}.")
        self.stdout.write(self.style.SUCCESS("Every collection is sharded."))
