"""A newcomer's first hour: the README's first command warns of nothing, and the next
commands work in a new shell (the secret key the first start wrote to ``.env``) or
say in one line what to set (core/dotenv.py, shop/management/commands/runserver.py)."""

import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

from core.mongo.localserver import LocalServer

BASE_DIR = Path(__file__).resolve().parents[2]


def newcomer_environ(tmp_path, **extra):
    """A new shell's environment: none of the test run's DJANGO_*/MONGODB_* variables, a
    local server and a ``.env`` of the test's own."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "MONGODB_", "SHOP_"))}
    environ.update(DJANGO_SETTINGS_MODULE="shop.settings", PYTHONPATH=str(BASE_DIR),
                   SHOP_LOCAL_DB_DIR=str(tmp_path / "db"), SHOP_DOTENV=str(tmp_path / ".env"),
                   SHOP_LOAD_DEMO_CATALOG="0", **extra)
    return environ


def manage(environ, *args):
    return subprocess.run([sys.executable, "manage.py", *args], cwd=BASE_DIR, env=environ,
                          capture_output=True, text=True, timeout=120)


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_the_first_runserver_prints_no_migration_warning(tmp_path):
    environ = newcomer_environ(tmp_path, DJANGO_DEBUG="1", PYTHONUNBUFFERED="1")
    server = subprocess.Popen([sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{free_port()}"],
                              cwd=BASE_DIR, env=environ, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output = []
    watchdog = threading.Timer(180, server.kill)  # a hung start ends the readline below
    watchdog.start()
    try:
        while True:
            line = server.stdout.readline()
            if not line:
                break
            output.append(line)
            if "Quit the server" in line:
                break
    finally:
        watchdog.cancel()
        server.terminate()
        server.wait(timeout=30)
        LocalServer(tmp_path / "db").stop()
    text = "".join(output)
    assert "Quit the server" in text, text
    assert "unapplied migration" not in text, text


def test_a_new_shell_finds_the_key_the_first_start_wrote(tmp_path):
    first = manage(newcomer_environ(tmp_path, DJANGO_DEBUG="1"), "check")
    assert first.returncode == 0, first.stderr
    dotenv = (tmp_path / ".env").read_text()
    assert "DJANGO_SECRET_KEY=" in dotenv and "DJANGO_DEBUG" not in dotenv
    assert (tmp_path / ".env").stat().st_mode & 0o077 == 0

    later = manage(newcomer_environ(tmp_path), "dbserver")  # no DJANGO_DEBUG, no key: read from .env
    assert later.returncode == 0, later.stderr
    assert "dbserver: not running" in later.stdout
    # A second DEBUG start keeps the same key.
    assert manage(newcomer_environ(tmp_path, DJANGO_DEBUG="1"), "check").returncode == 0
    assert (tmp_path / ".env").read_text() == dotenv


def test_without_a_key_a_command_says_what_to_set_in_one_line(tmp_path):
    result = manage(newcomer_environ(tmp_path), "dbserver")
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Set DJANGO_SECRET_KEY" in lines[0], result.stderr
    assert not (tmp_path / ".env").exists()
