"""Production serving: settings from the environment, gunicorn, static files, /healthz, logging."""

import logging
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from django.db import connections

from catalog.models import Product
from core.mongo import engine
from core.mongo.localserver import LocalServer

BASE_DIR = Path(__file__).resolve().parents[2]
GUNICORN = str(Path(sys.executable).with_name("gunicorn"))


def production_environ(**extra):
    """The process environment with the README's production settings: DEBUG off, a
    secret key, a host name, nothing of the test run's DJANGO_* variables."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "GUNICORN_"))}
    environ.update(
        DJANGO_SETTINGS_MODULE="shop.settings",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_ALLOWED_HOSTS="shop.example.com",
        PYTHONPATH=str(BASE_DIR),
    )
    environ.update(extra)
    return environ


def run(args, environ, timeout=120):
    return subprocess.run(
        args, cwd=BASE_DIR, env=environ, capture_output=True, text=True, timeout=timeout
    )


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --- settings ---------------------------------------------------------------

def test_check_deploy_is_clean_with_production_settings():
    result = run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                 production_environ())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_check_deploy_warns_when_the_environment_turns_https_off():
    environ = production_environ(DJANGO_SECURE_SSL_REDIRECT="0", DJANGO_SECURE_HSTS_SECONDS="0")
    result = run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                 environ)
    assert result.returncode != 0
    assert "security.W008" in result.stderr + result.stdout  # SECURE_SSL_REDIRECT
    assert "security.W004" in result.stderr + result.stdout  # SECURE_HSTS_SECONDS


def test_development_settings_need_no_secret_and_no_https():
    environ = production_environ(DJANGO_DEBUG="1", DJANGO_LOG_LEVEL="WARNING")
    del environ["DJANGO_SECRET_KEY"]
    code = (
        "import logging, django; django.setup(); from django.conf import settings as s; "
        "print(s.DEBUG, s.SECURE_SSL_REDIRECT, s.SESSION_COOKIE_SECURE, s.SECURE_HSTS_SECONDS, "
        "logging.getLevelName(logging.getLogger().level))"
    )
    result = run([sys.executable, "-c", code], environ)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "False", "False", "0", "WARNING"]


def test_production_settings_refuse_to_start_without_a_secret_key():
    environ = production_environ()
    del environ["DJANGO_SECRET_KEY"]
    result = run([sys.executable, "-c", "import django; django.setup()"], environ)
    assert result.returncode != 0
    assert "Set DJANGO_SECRET_KEY" in result.stderr


# --- gunicorn ------------------------------------------------------------------

def test_gunicorn_serves_the_shop_and_its_compressed_static_files(tmp_path):
    """Two gunicorn workers on the local server, as the README starts them (the first
    process that needs the server starts it in ``SHOP_LOCAL_DB_DIR``)."""
    port = free_port()
    environ = production_environ(
        GUNICORN_BIND=f"127.0.0.1:{port}", DJANGO_ALLOWED_HOSTS="127.0.0.1",
        DJANGO_SECURE_SSL_REDIRECT="0", DJANGO_STATIC_ROOT=str(tmp_path / "static"),
        SHOP_LOAD_DEMO_CATALOG="0", SHOP_LOCAL_DB_DIR=str(tmp_path / "db"), WEB_CONCURRENCY="2",
    )
    environ.pop("MONGODB_URI", None)
    collected = run([sys.executable, "manage.py", "collectstatic", "--noinput"], environ)
    assert collected.returncode == 0, collected.stderr
    hashed = [p.name for p in (tmp_path / "static" / "shop").glob("shop.*.css")]
    assert len(hashed) == 1 and (tmp_path / "static" / "shop" / f"{hashed[0]}.gz").exists()
    # Source maps kept as they are, not compressed (only a browser's developer tools fetch them).
    ninja = tmp_path / "static" / "ninja"
    assert (ninja / "swagger-ui-bundle.js.map").exists() and not list(ninja.glob("*.map.gz"))
    assert list(ninja.glob("swagger-ui-bundle.*.js.gz"))

    server = subprocess.Popen([GUNICORN, "-c", "gunicorn.conf.py"], cwd=BASE_DIR, env=environ,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 180  # the first worker starts the local server and migrates
        while True:
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=5) as answer:
                    assert answer.status == 200
                    assert b'"engine": "local"' in answer.read()
                break
            except OSError:
                assert server.poll() is None, "gunicorn exited"
                assert time.monotonic() < deadline, "gunicorn did not answer"
                time.sleep(0.2)
        with urllib.request.urlopen(f"{base}/", timeout=10) as answer:
            assert f"/static/shop/{hashed[0]}".encode() in answer.read()
        request = urllib.request.Request(f"{base}/static/shop/{hashed[0]}",
                                         headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            assert answer.headers["Content-Encoding"] == "gzip"
            assert "immutable" in answer.headers["Cache-Control"]
    finally:
        server.terminate()
        _, stderr = server.communicate(timeout=90)
        LocalServer(tmp_path / "db").stop()
    assert "shop.requests" in stderr and "GET /healthz 200" in stderr
    assert stderr.count("Booting worker") == 2


# --- /healthz ---------------------------------------------------------------

def test_healthz_answers_200_with_the_engine_when_mongodb_answers(client):
    answer = client.get("/healthz")
    assert answer.status_code == 200
    assert answer["Cache-Control"].startswith("max-age=0")
    assert answer.json() == {
        "status": "ok", "engine": engine(),
        "databases": {"default": {"engine": engine(), "ok": True}},
    }


@pytest.fixture
def unanswering_database(settings):
    """A second database alias pointing at a loopback port where nothing listens."""
    settings.SHOP_HEALTHZ_TIMEOUT = 0.5
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
        port = sock.getsockname()[1]
        connections.settings["down"] = {
            **connections.settings["default"],
            "HOST": f"mongodb://127.0.0.1:{port}/",
            "OPTIONS": {"serverSelectionTimeoutMS": 500},
        }
        down = connections["down"]
        # Django's test case forbids connecting to aliases it did not set up
        # (a patched ensure_connection); this one connects as outside tests.
        down.ensure_connection = down.connect
        try:
            yield "down"
        finally:
            client = type(down)._connection_pools.pop("down", None)
            if client is not None:
                client.close()
            del connections["down"]
            del connections.settings["down"]


def test_healthz_answers_503_when_a_mongodb_does_not_answer(client, unanswering_database):
    answer = client.get("/healthz")
    assert answer.status_code == 503
    body = answer.json()
    assert body["status"] == "unavailable"
    assert body["databases"]["default"]["ok"] is True
    assert body["databases"]["down"]["ok"] is False
    assert body["databases"]["down"]["engine"] == "mongodb"
    assert "127.0.0.1" not in answer.content.decode()  # nothing internal


def test_healthz_answers_503_in_a_shop_whose_mongodb_does_not_answer():
    """A whole process configured with a MONGODB_URI where nothing listens."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))  # bound, never listening
        environ = production_environ(
            MONGODB_URI=f"mongodb://127.0.0.1:{sock.getsockname()[1]}/",
            DJANGO_ALLOWED_HOSTS="testserver", SHOP_HEALTHZ_TIMEOUT="0.5",
            DJANGO_LOG_LEVEL="CRITICAL",
        )
        code = ("import django; django.setup(); from django.test import Client; "
                "r = Client().get('/healthz'); print(r.status_code, r.json()['status'])")
        result = run([sys.executable, "-c", code], environ, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["503", "unavailable"]


def test_healthz_answers_503_when_the_ping_fails(client, monkeypatch):
    from pymongo.errors import ServerSelectionTimeoutError

    import shop.health

    def refuse(alias="default"):
        raise ServerSelectionTimeoutError("no server")

    with monkeypatch.context() as patch:  # undone before the test's database flush
        patch.setattr(shop.health.connections["default"], "ensure_connection", refuse)
        answer = client.get("/healthz")
    assert answer.status_code == 503
    assert answer.json()["databases"]["default"] == {
        "engine": engine(), "ok": False, "error": "ServerSelectionTimeoutError"}


def test_healthz_is_reachable_over_http_when_https_is_enforced(client, settings):
    settings.SECURE_SSL_REDIRECT = True
    assert client.get("/").status_code == 301
    assert client.get("/").url.startswith("https://")
    assert client.get("/healthz").status_code == 200


# --- logging ----------------------------------------------------------------

def test_each_request_is_logged_with_status_and_duration(client, caplog):
    with caplog.at_level(logging.INFO, logger="shop.requests"):
        client.get("/p/NO-SUCH-SKU/?q=secret")
    lines = [r for r in caplog.records if r.name == "shop.requests"]
    assert len(lines) == 1
    assert lines[0].getMessage().startswith("GET /p/NO-SUCH-SKU/ 404 ")
    assert lines[0].getMessage().endswith("ms")
    assert "secret" not in lines[0].getMessage()
    assert lines[0].status_code == 404 and lines[0].duration_ms >= 0


def test_an_error_is_logged_with_its_stack_trace_and_shows_nothing_internal(
        client, caplog, monkeypatch):
    def broken(sku):
        raise RuntimeError("internal detail 42")

    monkeypatch.setattr(Product.objects, "get_with_availability", broken)  # the product page's read
    client.raise_request_exception = False
    with caplog.at_level(logging.INFO):
        answer = client.get("/p/CHK-0001/")
    assert answer.status_code == 500
    page = answer.content.decode()
    assert "Something went wrong" in page
    for internal in ("internal detail 42", "RuntimeError", "Traceback", "get_with_availability"):
        assert internal not in page
    errors = [r for r in caplog.records if r.name == "django.request" and r.exc_info]
    assert errors and errors[0].exc_info[0] is RuntimeError
    assert any(r.name == "shop.requests" and r.getMessage().startswith("GET /p/CHK-0001/ 500")
               for r in caplog.records)
