"""The database comes back by itself: a killed local server under a running shop,
``dbserver stop`` and a pid that is not the server's, a read-only or uncreatable data
directory, errors that say the time really waited.

The shop here is a real gunicorn (production settings, two workers) on a free
loopback port with a data directory of its own (``bench.chaos_support.LiveShop``).
"""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.chaos_support import LiveShop
from core.mongo.localserver import LocalServer, LocalServerError, _wait_until_answering, answers

BASE_DIR = Path(__file__).resolve().parents[2]


def local_environ(data_dir):
    """A development command's environment on the local server in ``data_dir``."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "MONGODB_"))}
    environ.update(DJANGO_SETTINGS_MODULE="shop.settings", DJANGO_DEBUG="1", PYTHONPATH=str(BASE_DIR),
                   SHOP_LOCAL_DB_DIR=str(data_dir), SHOP_LOAD_DEMO_CATALOG="0",
                   DJANGO_LOG_LEVEL="WARNING")
    return environ


def manage(data_dir, *args, prefix=()):
    return subprocess.run([*prefix, sys.executable, "manage.py", *args], cwd=BASE_DIR,
                          env=local_environ(data_dir), capture_output=True, text=True, timeout=300)


@pytest.fixture
def local_dir(tmp_path):
    data_dir = tmp_path / "db"
    yield data_dir
    LocalServer(data_dir).stop()


def test_a_killed_server_comes_back_under_a_running_shop_with_no_command_run(tmp_path):
    with LiveShop(tmp_path / "shop", workers=2) as shop:
        assert shop.get("/")[0] == 200
        server = LocalServer(shop.data_dir)
        port = server.status()["port"]
        # kill -9, and hold the start-up lock for a while (a slow restart): the shop must
        # answer 503 meanwhile, in its look, with Retry-After; the API in JSON; /healthz 503.
        with server.lock():
            killed = shop.kill_db()
            status, headers, body = shop.get("/")
            assert status == 503, body[-2000:]
            assert headers["Retry-After"] == "5" and "Back in a moment" in body
            assert 'class="site-header"' in body and "/static/shop/shop." in body
            status, headers, body = shop.get("/api/v1/products/NO-SUCH-SKU")
            assert (status, headers["Content-Type"]) == (503, "application/json"), (status, body)
            assert '"detail"' in body and headers["Retry-After"] == "5"
            assert shop.get("/healthz")[0] == 503
        statuses = []
        healed = shop.seconds_to_200("/", killed, timeout=30, on_answer=lambda s, h, b: statuses.append(s))
        assert healed is not None, f"no 200 within 30 s after the kill; answers: {statuses}"
        assert set(statuses) <= {200, 503}, statuses
        # Back on the port kept for its directory: the workers' clients reconnected by themselves.
        assert server.status()["port"] == port
        assert shop.get("/healthz")[0] == 200
        assert shop.get("/api/v1/products/NO-SUCH-SKU")[0] == 404
        # A kill with nothing in the way: back within 30 s, never a 500 on the way.
        killed = shop.kill_db()
        statuses = []
        healed = shop.seconds_to_200("/", killed, timeout=30,
                                     on_answer=lambda s, h, b: statuses.append(s))
        assert healed is not None and set(statuses) <= {200, 503}, statuses
        # The database and a worker at once: the new worker's first connection finds it gone too.
        shop.kill_worker()
        killed = shop.kill_db()
        statuses = []
        healed = shop.seconds_to_200("/", killed, timeout=30, on_answer=lambda s, h, b: statuses.append(s))
        assert healed is not None and set(statuses) <= {0, 200, 503}, statuses
        log = shop.log()
    assert "Traceback" not in log and " 500 " not in log, log[-3000:]


def test_dbserver_stop_leaves_a_process_with_the_recorded_pid_alone(local_dir):
    assert manage(local_dir, "dbserver", "start").returncode == 0
    server = LocalServer(local_dir)
    real = server.status()
    unrelated = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    try:
        # server.json names the unrelated process (a pid reused after the server died, say).
        server.state_path.write_text(f'{{"pid": {unrelated.pid}, "port": {real["port"]}}}')
        stopped = manage(local_dir, "dbserver", "stop")
        assert stopped.returncode == 0, stopped.stderr
        assert f"stopped (pid {real['pid']})" in stopped.stdout
        assert unrelated.poll() is None, "the unrelated process was signalled"
        assert not answers(real["port"]) and not server.state_path.exists()
        # Nothing running and a stale pid: still left alone, "not running".
        server.state_path.write_text(f'{{"pid": {unrelated.pid}, "port": {real["port"]}}}')
        again = manage(local_dir, "dbserver", "stop")
        assert again.returncode == 0 and "not running" in again.stdout
        assert unrelated.poll() is None
    finally:
        unrelated.kill()
        unrelated.wait()


def test_stop_keeps_server_json_while_a_foreign_server_answers_on_the_port(local_dir, tmp_path):
    """Another data directory's server on the kept port: not ours, not signalled, its record kept."""
    other = LocalServer(tmp_path / "other")
    port = int(other.ensure_running().split(":")[2].split("/")[0])
    try:
        local_dir.mkdir(parents=True)
        LocalServer(local_dir).port_path.write_text(str(port))
        LocalServer(local_dir).state_path.write_text(f'{{"pid": {other.status()["pid"]}, "port": {port}}}')
        with pytest.raises(LocalServerError, match="not this data directory's server"):
            LocalServer(local_dir).stop()
        assert answers(port) and LocalServer(local_dir).state_path.exists()
        with pytest.raises(LocalServerError, match=f"Port {port}, kept in .* is taken"):
            LocalServer(local_dir).ensure_running()
    finally:
        other.stop()


def test_the_kept_port_survives_a_stop_and_a_start(local_dir):
    server = LocalServer(local_dir)
    first = server.ensure_running()
    assert server.kept_port() == server.status()["port"]
    server.stop()
    assert server.ensure_running() == first


def _read_only_prefix(folder):
    """A command prefix that runs a command with ``folder`` mounted read-only (root: a private
    mount namespace, so only that command sees it), or None when this machine cannot."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
        return ()
    if not shutil.which("unshare"):
        return None
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    if probe.returncode:
        return None
    script = f"mount --bind {folder} {folder} && mount -o remount,ro,bind {folder} && exec \"$@\""
    return ("unshare", "-m", "sh", "-c", script, "sh")


def test_a_read_only_data_directory_gives_a_one_line_reason(tmp_path):
    data_dir = tmp_path / "ro"
    data_dir.mkdir()
    prefix = _read_only_prefix(data_dir)
    if prefix is None:
        pytest.skip("no way to make a read-only directory here (not root, no unshare)")
    for args in (["dbserver", "start"], ["migrate"]):
        result = manage(data_dir, *args, prefix=prefix)
        assert result.returncode != 0
        assert "Traceback" not in result.stderr, result.stderr
        assert f"data directory {data_dir}" in result.stderr and "not writable" in result.stderr
        assert "Read-only file system" in result.stderr or "Permission denied" in result.stderr
    assert not list(data_dir.iterdir())


def test_an_uncreatable_data_directory_gives_a_one_line_reason(tmp_path):
    (tmp_path / "a-file").write_text("")
    data_dir = tmp_path / "a-file" / "db"
    with pytest.raises(LocalServerError, match=r"cannot be created \(Not a directory\)"):
        LocalServer(data_dir).ensure_running()
    result = manage(data_dir, "dbserver", "start")
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        f"CommandError: The local database's data directory {data_dir} cannot be created (Not a directory); "
        "set SHOP_LOCAL_DB_DIR to a writable directory."]
    result = manage(data_dir, "migrate")
    assert result.returncode != 0 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.stderr.startswith("manage.py: The local database's data directory")


def test_gunicorn_refuses_to_start_on_an_uncreatable_data_directory_in_one_line(tmp_path):
    (tmp_path / "a-file").write_text("")
    shop = LiveShop(tmp_path / "shop", environ={"SHOP_LOCAL_DB_DIR": str(tmp_path / "a-file" / "db")})
    with pytest.raises(RuntimeError, match="gunicorn exited"):
        shop.start(timeout=120)
    assert shop.process.returncode == 1
    assert "The shop cannot start: The local database's data directory" in shop.log()
    assert "Traceback" not in shop.log()


class _Exited:
    """A server process that exited at once (code 3)."""

    def poll(self):
        return 3


class _Silent:
    """A server process that runs and never answers."""

    killed = False

    def poll(self):
        return None

    def kill(self):
        self.killed = True

    def wait(self):
        return -9


def test_errors_say_the_seconds_really_waited(tmp_path, monkeypatch):
    log = tmp_path / "server.log"
    log.write_text("starting\nOSError: [Errno 98] Address already in use\n")
    with pytest.raises(LocalServerError) as exited:
        _wait_until_answering(_Exited(), 1, log)
    assert str(exited.value).startswith("The local database server exited (code 3) after 0.0 s")
    assert str(exited.value).endswith("ends with: OSError: [Errno 98] Address already in use")
    assert "30 s" not in str(exited.value) and "\n" not in str(exited.value)
    monkeypatch.setattr("core.mongo.localserver.answers", lambda port, timeout: False)
    silent = _Silent()
    started = time.monotonic()
    with pytest.raises(LocalServerError, match=r"did not answer on port 1 within 1\.\d s") as timed_out:
        _wait_until_answering(silent, 1, timeout=1.0)
    # It waited its timeout (the behaviour), and then gave up: a generous bound, not a speed test.
    assert 1.0 <= time.monotonic() - started < 30 and silent.killed
    assert "\n" not in str(timed_out.value)
