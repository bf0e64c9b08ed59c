"""CSV cells that a spreadsheet never runs as formulas (OWASP "CSV Injection").

Every CSV the shop writes for staff (``export_products``, ``export_orders`` and the
admin's exports) passes its cells through ``escape``: a text starting with ``=``,
``+``, ``-``, ``@``, a tab or a carriage return gets a ``'`` first, which spreadsheets
show as text. The product importer reads cells through ``unescape``, so an export
imported again changes nothing (a title that really starts with ``'=`` is read
as ``=...``: the one ambiguity, documented in docs/commands.md).
"""

import csv

#: A cell starting with one of these is a formula to a spreadsheet.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def escape(value):
    """``value`` (any; None is "") as the text of a cell that no spreadsheet runs: one that
    would start a formula gets a ``'`` first. Numbers are written as they are."""
    if value is None:
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    value = str(value)
    return f"'{value}" if value.startswith(FORMULA_STARTS) else value


def unescape(value):
    """A cell's text as ``escape`` meant it: a ``'`` before a formula start is dropped."""
    if value[:1] == "'" and value[1:2] and value[1:].startswith(FORMULA_STARTS):
        return value[1:]
    return value


class DictWriter(csv.DictWriter):
    """``csv.DictWriter`` whose every cell goes through ``escape``."""

    def writerow(self, rowdict):
        return super().writerow({key: escape(value) for key, value in rowdict.items()})

    def writerows(self, rowdicts):
        for row in rowdicts:
            self.writerow(row)
