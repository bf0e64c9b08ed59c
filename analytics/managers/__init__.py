"""The analytics' managers, one module per collection they write or read.

* ``EventManager`` (``Event.objects``, ``events.py``) writes the raw ``events``.
* ``RollupManager`` (``RollupProgress.objects``, ``rollups.py``) rolls them up
  into the ``stats.*`` levels and reads the buckets back.
* ``SalesReportManager`` (``MonthlyStat.reports``, ``DailyStat.reports``,
  ``reports.py``) holds the sales reports over the rollups.

Views, commands and admin classes call these methods; none of them builds a
pymongo query itself.
"""

from .events import EventManager
from .reports import SalesReportManager
from .rollups import RollupManager

__all__ = ["EventManager", "SalesReportManager", "RollupManager"]
