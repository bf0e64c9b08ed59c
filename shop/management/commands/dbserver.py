"""``python manage.py dbserver [status|start|stop]``: the local database server.

Without ``MONGODB_URI`` the shop keeps its data in a local SecantusDB server
(``core.mongo.localserver``) that the first process needing it starts and
every other process shares. This command shows whether it runs (pid, port,
connection string, data directory), starts it, or stops it. ``stop`` signals
only a process checked to be this data directory's server, never another
process that happens to have the pid written in ``server.json``. With
``MONGODB_URI`` set there is no local server to manage: it says so and exits
non-zero.
"""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from core.commandlog import log_change
from core.mongo import revive
from core.mongo.localserver import LocalServer, LocalServerError


class Command(BaseCommand):
    help = "Show the status of the local database server, start it or stop it."

    def add_arguments(self, parser):
        parser.add_argument("action", nargs="?", default="status", choices=["status", "start", "stop"])

    def handle(self, *args, action, **options):
        if settings.DATABASES["default"]["HOST"]:
            raise CommandError("MONGODB_URI is set: the shop uses that server, not a local one.")
        revive.disable()  # this process stops the server on purpose: it must not start it again
        server = LocalServer(settings.SHOP_LOCAL_DB_DIR)
        if action == "start":
            try:
                uri = server.ensure_running()
            except LocalServerError as exc:
                raise CommandError(str(exc).splitlines()[0]) from None
            log_change(self, f"running at {uri} (data in {server.data_dir}).")
        elif action == "stop":
            try:
                pid = server.stop()
            except LocalServerError as exc:
                raise CommandError(str(exc).splitlines()[0]) from None
            if pid is None:
                self.stdout.write("dbserver: not running.")
            else:
                log_change(self, f"stopped (pid {pid}).")
        else:
            status = server.status()
            if status["running"]:
                self.stdout.write(f"dbserver: running, pid {status['pid']}, {status['uri']}, "
                                  f"data in {status['data_dir']}.")
            else:
                self.stdout.write(f"dbserver: not running (data in {status['data_dir']}).")
