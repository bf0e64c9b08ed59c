"""What every process of the shop pays when it starts (each ``manage.py`` command, each
gunicorn worker): no work for what the process may never use. One fresh process, as
production starts it (``shop.settings``, DEBUG off)."""

import json
import os
import subprocess
import sys
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[2]

# Counts ctypes' find_library calls (each runs ldconfig, gcc and ld), loads the apps and the
# URLconf, notes whether matplotlib was imported, then draws a chart.
PROBE = """
import ctypes.util, json, sys
asked = []
_find = ctypes.util.find_library
ctypes.util.find_library = lambda name: asked.append(name) or _find(name)
import django
django.setup()
from django.db import connection
connection.ops  # the database backend loaded
from django.urls import get_resolver
get_resolver().url_patterns
started = {"asked": asked[:], "matplotlib": "matplotlib" in sys.modules}
from analytics.charts import chart_svg
chart_svg([], "none")
started["matplotlib_after_a_chart"] = "matplotlib" in sys.modules
print(json.dumps(started))
"""


def test_a_process_start_probes_each_library_once_and_imports_matplotlib_only_for_a_chart():
    environ = {**os.environ, "DJANGO_SETTINGS_MODULE": "shop.settings", "DJANGO_DEBUG": "0", "SHOP_DOTENV": "",
               "DJANGO_SECRET_KEY": "tests-only-secret-key-0123456789abcdefghijklmnopqrstuvwxyz"}
    result = subprocess.run([sys.executable, "-c", PROBE], cwd=BASE_DIR, env=environ,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    started = json.loads(result.stdout.splitlines()[-1])
    # django-mongodb-backend looks for GDAL from three modules: each library name asked once
    # (core/mongo/base.py), not 3 or 4 times (about 0.65 s of every start without GDAL).
    assert len(started["asked"]) == len(set(started["asked"])), started["asked"]
    # matplotlib (about 0.7 s to import) only when a chart is drawn (analytics/charts.py).
    assert started["matplotlib"] is False and started["matplotlib_after_a_chart"] is True
