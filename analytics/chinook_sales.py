"""The Chinook invoice lines (``data/chinook``, MIT licence) as historical sale events."""

from catalog.transfer import chinook
from core import money

REF_PREFIX = "chinook:line:"


def read_sales(path):
    """Read every invoice line of the Chinook SQLite file at ``path`` as a sale.

    Returns a list of dicts ``{ref, sku, qty, amount, userid, ts}``: ``ref``
    is ``chinook:line:<InvoiceLineId>``, ``sku`` the SKU of the track's
    album (``catalog.transfer.chinook.sku_for_album``), ``amount`` unit price x
    quantity in cents, ``userid`` the invoice's customer's e-mail, ``ts`` the
    invoice date (aware UTC). Raises ``sqlite3.Error`` when the file is not
    a Chinook database.
    """
    (rows,) = chinook.query(
        path,
        """
            SELECT il.InvoiceLineId, t.AlbumId, il.UnitPrice, il.Quantity, c.Email, i.InvoiceDate
            FROM InvoiceLine il
            JOIN Invoice i ON i.InvoiceId = il.InvoiceId
            JOIN Customer c ON c.CustomerId = i.CustomerId
            JOIN Track t ON t.TrackId = il.TrackId
            ORDER BY il.InvoiceLineId
        """,
    )
    return [
        {
            "ref": f"{REF_PREFIX}{line_id}",
            "sku": chinook.sku_for_album(album_id),
            "qty": int(qty),
            "amount": money.cents(price) * int(qty),
            "userid": email or "",
            "ts": chinook.parse_date(date),
        }
        for line_id, album_id, price, qty, email, date in rows
    ]
