"""The analytics' managers, one module per collection they write or read.

* ``EventManager`` (``Event.objects``, ``events.py``) writes the raw ``events``.
* ``RollupManager`` (``RollupProgress.objects``, ``rollups.py``) rolls them up
  into the ``stats.*`` levels and reads the buckets back.
* ``ReportManager`` (``Event.reports``, ``reports.py``) holds the reports
  written with the Russian article on MongoDB's aggregation operators.

Views, commands and admin classes call these methods; none of them builds a
pymongo query itself.
"""

from .events import EventManager
from .reports import ReportManager
from .rollups import RollupManager

__all__ = ["EventManager", "ReportManager", "RollupManager"]
