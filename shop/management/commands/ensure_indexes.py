"""``python manage.py ensure_indexes``: check every index the shop needs, create what is missing.

The indexes are the registry's (``core.mongo.indexes.registry``: every
app's ``indexes.py``, analytics' ``events`` and ``stats.*`` included), which
``migrate`` creates, and those the product types' facets declare
(``catalog.store.indexes.facet_indexes``), which only this command creates. This command checks all of them and creates what is
missing (an index dropped by hand, a database restored without indexes), so
it is safe to run at every deployment (idempotent). Each index is reported as
created, present or missing. Exits non-zero when an index is missing (the
server refused it, or ``--check``).
"""

from django.core.management.base import BaseCommand, CommandError

from catalog.store.indexes import facet_indexes
from core.commandlog import log_change
from core.mongo import get_collection
from core.mongo.indexes import CREATED, MISSING, ensure_index, registry


class Command(BaseCommand):
    help = "Check every index the shop needs and create what is missing; report each."

    def add_arguments(self, parser):
        parser.add_argument("--check", action="store_true",
                            help="Only report; exit non-zero when an index is missing.")
        parser.add_argument("--database", default="default", help="Database alias (default: default).")

    def handle(self, *args, **options):
        alias, create = options["database"], not options["check"]
        failures, counts = [], {"created": 0, "present": 0, "missing": 0}
        declared = registry()
        for table, indexes in facet_indexes().items():
            declared[table] = declared.get(table, []) + indexes
        for table, indexes in declared.items():
            collection = get_collection(table, alias)
            for keys, index_options in indexes:
                status, detail = ensure_index(collection, keys, index_options, create=create)
                counts[status] += 1
                label = f"{table}.{index_options['name']}"
                if status == MISSING:
                    failures.append(label)
                    self.stdout.write(f"{label}: missing ({detail})")
                elif status == CREATED:
                    log_change(self, f"{label}: created")
                else:
                    self.stdout.write(f"{label}: present"
                                      + (f" (as {detail})" if detail != index_options["name"] else ""))
        self.stdout.write(f"{counts['created']} created, {counts['present']} present, "
                          f"{counts['missing']} missing.")
        if failures:
            raise CommandError(f"{len(failures)} index(es) missing: {', '.join(failures)}.")
