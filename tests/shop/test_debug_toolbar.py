"""In DEBUG the debug toolbar lists each request's MongoDB commands, the managers' raw
pymongo included, under the CSP (core/mqlpanel.py); never in the tests or production."""

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

from django.conf import settings

BASE_DIR = Path(__file__).resolve().parents[2]

# Runs in a DEBUG process of its own (the toolbar is wired at settings time), in a
# database of its own on the test run's server.
SCRIPT = """
import json, re, django
django.setup()
from django.core.management import call_command
from django.db import connection
from django.test import Client
call_command("migrate", verbosity=0)
try:
    from catalog.models import Category
    Category.writes.create_category("Rock", parent=None)
    client = Client()
    page = client.get("/c/rock/")
    request_id = re.search(r'data-request-id="([0-9a-f]+)"', page.content.decode()).group(1)
    panel = client.get("/__debug__/render_panel/", {"request_id": request_id, "panel_id": "MongoCommandsPanel"})
    print(json.dumps({"status": page.status_code, "csp": page["Content-Security-Policy"],
                      "html": page.content.decode(), "panel": panel.json()["content"]}))
finally:
    connection.connection.drop_database(connection.settings_dict["NAME"])
"""


def test_the_toolbar_lists_the_requests_mongodb_commands():
    environ = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_SETTINGS")}
    environ.update(DJANGO_SETTINGS_MODULE="shop.settings", DJANGO_DEBUG="1", PYTHONPATH=str(BASE_DIR),
                   MONGODB_NAME=f"toolbar_{uuid.uuid4().hex[:8]}", DJANGO_LOG_LEVEL="WARNING",
                   DJANGO_ALLOWED_HOSTS="testserver")
    result = subprocess.run([sys.executable, "-c", SCRIPT], cwd=BASE_DIR, env=environ,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    answer = json.loads(result.stdout.strip().splitlines()[-1])
    assert answer["status"] == 200
    # The page keeps its CSP, and the toolbar loads only the shop's own script and styles.
    assert "script-src 'self'" in answer["csp"] and "unsafe-inline" not in answer["csp"]
    assert 'src="/static/debug_toolbar/js/toolbar.js"' in answer["html"]
    # Shut until asked for: open at a first visit, it covered the header's "Sign in" and cart.
    assert 'data-default-show="false"' in answer["html"]
    panel = answer["panel"]
    # The category manager's raw pymongo reads (find_one by slug, the subtree, the top level)...
    assert "db.categories.find(" in panel and "&quot;slug&quot;: &quot;rock&quot;" in panel
    # ... and the ORM's and the listing's aggregations, each with its time.
    assert "db.products.aggregate(" in panel
    assert " ms" in panel


def test_no_toolbar_in_the_tests():
    assert settings.SHOP_DEBUG_TOOLBAR is False
    assert "debug_toolbar" not in settings.INSTALLED_APPS
    assert not any("debug_toolbar" in m for m in settings.MIDDLEWARE)
