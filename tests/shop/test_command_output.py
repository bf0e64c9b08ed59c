"""A command says each change once: on its stdout, not again as a log line on stderr."""

import os
import subprocess
import sys
from pathlib import Path

from django.db import connections

BASE_DIR = Path(__file__).resolve().parents[2]


def run_command(*args, **extra_environ):
    """``manage.py ARGS`` in a process of its own, as a terminal or cron runs it, on the test
    database with development settings; the finished process."""
    database = connections["default"].settings_dict
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "MONGODB_", "SHOP_"))}
    environ.update(DJANGO_SETTINGS_MODULE="shop.settings", DJANGO_DEBUG="1", SHOP_LOAD_DEMO_CATALOG="0",
                   MONGODB_URI=database["HOST"], MONGODB_NAME=database["NAME"], **extra_environ)
    return subprocess.run([sys.executable, "manage.py", *args], cwd=BASE_DIR, env=environ,
                          capture_output=True, text=True, timeout=300)


def test_a_change_is_printed_once_and_kept_in_the_log_file(tmp_path, chinook):
    log_file = tmp_path / "shop.log"
    result = run_command("restock", "CHK-0001", "5", SHOP_LOG_FILE=str(log_file))
    assert result.returncode == 0, result.stderr
    said = result.stdout + result.stderr
    assert said.count("CHK-0001: +5, 25 available.") == 1, said
    assert "AXES" not in said  # no library start-up chatter
    assert "restock: CHK-0001: +5, 25 available." in log_file.read_text()
