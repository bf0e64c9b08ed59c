"""Product imports and feeds: a file of products, variants, prices and stock into the catalog.

``import_file`` (``run.py``) is the one entry point, for ``manage.py
import_products`` and the admin's upload; ``parse.py`` reads the file,
``cells.py`` reads and writes one cell, ``validate.py`` checks a row,
``write.py`` writes batches through the managers. Exports (the same columns)
are ``catalog/transfer/exports.py``.
"""

from catalog.transfer.imports.parse import FileError
from catalog.transfer.imports.run import ImportReport, import_file
from catalog.transfer.imports.validate import FEED_FIELDS

__all__ = ["FEED_FIELDS", "FileError", "ImportReport", "import_file"]
