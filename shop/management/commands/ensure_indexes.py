"""``python manage.py ensure_indexes``: create every index the shop needs.

``migrate`` creates the models' own indexes and the seed indexes
(``catalog.managers.CATEGORY_INDEXES`` and ``PRODUCT_INDEXES``,
``inventory.managers.INVENTORY_INDEXES``); the text
index behind the storefront search (``PRODUCT_TEXT_INDEX``) it does not,
because the embedded engine has no text search. This command checks all of
them and creates what is missing, so it is safe to run at every deployment
(idempotent). Each index is reported as created, present or missing.

Exits non-zero when an index is missing and could have been created (an error
from the server, or ``--check``). On the embedded engine the text index is
reported missing and that is not an error: search uses its word-match
fallback there.
"""

from django.core.management.base import BaseCommand, CommandError

from catalog.managers import CATEGORY_INDEXES, PRODUCT_INDEXES, PRODUCT_TEXT_INDEX
from inventory.managers import INVENTORY_INDEXES
from shop.commandlog import log_change
from shop.mongo import get_collection, is_embedded
from shop.mongo.indexes import CREATED, MISSING, ensure_index, is_text_index

# (collection, [(keys, options), ...]) for every index ensure_indexes manages.
EXPECTED_INDEXES = [
    ("categories", CATEGORY_INDEXES),
    ("products", [*PRODUCT_INDEXES, PRODUCT_TEXT_INDEX]),
    ("inventory", INVENTORY_INDEXES),
]

EMBEDDED_TEXT = "the embedded engine has no text search; search uses its word-match fallback"


class Command(BaseCommand):
    help = "Create the indexes the shop needs that migrate does not (the text index); report each."

    def add_arguments(self, parser):
        parser.add_argument("--check", action="store_true",
                            help="Only report; exit non-zero when an index is missing.")
        parser.add_argument("--database", default="default", help="Database alias (default: default).")

    def handle(self, *args, **options):
        alias, create = options["database"], not options["check"]
        embedded = is_embedded(alias)
        failures, counts = [], {"created": 0, "present": 0, "missing": 0}
        for table, indexes in EXPECTED_INDEXES:
            collection = get_collection(table, alias)
            for keys, index_options in indexes:
                text = is_text_index(keys)
                status, detail = ensure_index(
                    collection, keys, index_options, create=create,
                    supported=not (text and embedded),
                )
                counts[status] += 1
                label = f"{table}.{index_options['name']}"
                if status == MISSING:
                    if text and embedded:
                        detail = EMBEDDED_TEXT
                    else:
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
