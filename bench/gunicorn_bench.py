"""gunicorn configuration for ``bench/loadtest.py``: the shop's own ``gunicorn.conf.py``,
plus a hook that checks the inventory when the worker stops.

On the embedded engine the shop's data lives in the worker process, so the
inventory invariant can only be checked there: when the load test stops
gunicorn, the worker runs ``check_inventory`` (if the command exists) before
it exits and writes the outcome to ``SHOP_BENCH_INVENTORY_REPORT``.
"""

import os
import runpy
from pathlib import Path

globals().update(
    {name: value for name, value in runpy.run_path(
        str(Path(__file__).resolve().parent.parent / "gunicorn.conf.py")).items()
     if not name.startswith("__")}
)


def worker_exit(server, worker):
    """In the worker, after its last request: run ``check_inventory`` and write
    ``"<exit status>\\n<output>"`` to ``SHOP_BENCH_INVENTORY_REPORT``, with the stock
    of the SKUs the load test put in carts (``SHOP_BENCH_HOT_SKUS``)."""
    report = os.environ.get("SHOP_BENCH_INVENTORY_REPORT")
    if not report:
        return
    import io

    from django.core.management import CommandError, call_command, get_commands

    if "check_inventory" not in get_commands():
        Path(report).write_text("absent\ncheck_inventory does not exist on this branch.\n")
        return
    out = io.StringIO()
    try:
        call_command("check_inventory", stdout=out, stderr=out)
        status = "0"
    except CommandError as error:
        out.write(f"CommandError: {error}\n")
        status = "1"
    hot = [sku for sku in os.environ.get("SHOP_BENCH_HOT_SKUS", "").split(",") if sku]
    if hot:
        from inventory.models import Inventory

        rows = list(Inventory.objects.filter(sku__in=hot))
        stocked = sum(row.stocked for row in rows)
        available = sum(row.qty for row in rows)
        reserved = sum(entry.qty for row in rows for entry in row.carted)
        out.write(f"{len(rows)} add-to-cart SKUs: {stocked} units stocked, {reserved} reserved "
                  f"in carts, {available} still available, lowest available "
                  f"{min((row.qty for row in rows), default=0)}.\n")
    Path(report).write_text(f"{status}\n{out.getvalue()}")
