"""A live shop to break on purpose: gunicorn on a free loopback port, its own local database.

For ``bench/chaos.py`` (fault injection) and for the tests that kill the
database under a running shop (``tests/shop/test_database_comes_back.py``)::

    from bench.chaos_support import LiveShop

    with LiveShop(workdir) as shop:          # collectstatic, gunicorn, /healthz 200
        shop.get("/")                        # (status, headers, body)
        killed = shop.kill_db()              # kill -9 the local server; monotonic time
        shop.seconds_to_200("/", killed)     # seconds from the kill to the next 200
        shop.kill_worker()                   # kill -9 one gunicorn worker

The shop runs with the production settings (DEBUG off, a random secret key,
WhiteNoise after ``collectstatic``) except for plain http on loopback (no
https redirect, no Secure-only cookies), gunicorn's ``gunicorn.conf.py`` with
``workers`` workers, and a fresh ``SHOP_LOCAL_DB_DIR`` (``workdir/db``) that
the gunicorn master's start-up fills (migrations; the demo catalog only when
``demo=True``). Nothing here acts on the shop after a kill: what brings the
database back is the shop itself (``core.mongo.revive``).
"""

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
if str(BASE_DIR) not in sys.path:  # run as bench/chaos.py: the shop's packages (core.mongo) importable
    sys.path.insert(0, str(BASE_DIR))

from bench.benchsetup import LOAD_FROM_ONE_ADDRESS  # noqa: E402
GUNICORN = str(Path(sys.executable).with_name("gunicorn"))


def free_port():
    """A TCP port (int) free on 127.0.0.1 now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LiveShop:
    """gunicorn serving the shop on 127.0.0.1 with its own local database in ``workdir/db``.

    ``workdir``: a directory of the caller's (made if missing; the data, the static
    files and gunicorn's log go there). ``workers``: gunicorn worker processes.
    ``demo``: load the Chinook demo catalog at start (slower; False gives an empty shop).
    ``environ``: more environment variables for the shop's processes.
    """

    def __init__(self, workdir, workers=2, demo=False, environ=None):
        self.workdir = Path(workdir)
        self.data_dir = self.workdir / "db"
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = self.workdir / "gunicorn.log"
        self.process = None
        self.environ = {k: v for k, v in os.environ.items()
                        if not k.startswith(("DJANGO_", "GUNICORN_", "MONGODB_", "SHOP_"))}
        self.environ.update(
            DJANGO_SETTINGS_MODULE="shop.settings", DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
            DJANGO_ALLOWED_HOSTS="127.0.0.1", DJANGO_SECURE_SSL_REDIRECT="0", DJANGO_SECURE_COOKIES="0",
            DJANGO_STATIC_ROOT=str(self.workdir / "static"), PYTHONPATH=str(BASE_DIR),
            GUNICORN_BIND=f"127.0.0.1:{self.port}", WEB_CONCURRENCY=str(workers),
            SHOP_LOCAL_DB_DIR=str(self.data_dir), SHOP_LOAD_DEMO_CATALOG="1" if demo else "0",
            # Every shopper comes from 127.0.0.1; payments on the machine's local Stripe, on purpose.
            **LOAD_FROM_ONE_ADDRESS,
        )
        self.environ.update(environ or {})

    def manage(self, *args, timeout=300):
        """Run ``manage.py *args`` with the shop's environment; returns the ``CompletedProcess``."""
        return subprocess.run([sys.executable, "manage.py", *args], cwd=BASE_DIR, env=self.environ,
                              capture_output=True, text=True, timeout=timeout)

    #: The static files a shop of this process collected (a Path), reused by the next one:
    #: ``collectstatic`` compresses every file (about 13 s and 22 s of CPU on 2 cores).
    collected_static = None

    def start(self, timeout=240):
        """``collectstatic`` (once per process: a later shop serves the first one's files), start
        gunicorn, wait until ``/healthz`` answers 200.

        Raises ``RuntimeError`` when gunicorn exits or does not answer within ``timeout`` seconds.
        """
        self.workdir.mkdir(parents=True, exist_ok=True)
        kept = LiveShop.collected_static
        if kept is not None and (kept / "staticfiles.json").exists():
            self.environ["DJANGO_STATIC_ROOT"] = str(kept)
        else:
            collected = self.manage("collectstatic", "--noinput", "--verbosity", "0")
            if collected.returncode:
                raise RuntimeError(f"collectstatic failed: {collected.stderr[-500:]}")
            LiveShop.collected_static = Path(self.environ["DJANGO_STATIC_ROOT"])
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen([GUNICORN, "-c", "gunicorn.conf.py"], cwd=BASE_DIR,
                                            env=self.environ, stdin=subprocess.DEVNULL, stdout=log,
                                            stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while self.get("/healthz", timeout=5)[0] != 200:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited; its log: {self.log()[-2000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"gunicorn did not answer within {timeout} s")
            time.sleep(0.2)
        return self

    def get(self, path, timeout=30):
        """GET ``path``: ``(status, headers, body)``; status 0 when nothing answered
        (refused, reset, timed out), with the error's text as body."""
        try:
            with urllib.request.urlopen(self.base + path, timeout=timeout) as answer:
                return answer.status, answer.headers, answer.read().decode(errors="replace")
        except urllib.error.HTTPError as error:
            return error.code, error.headers, error.read().decode(errors="replace")
        except (OSError, ValueError) as error:
            return 0, {}, str(error)

    def log(self):
        """gunicorn's output so far (str): its own lines and the shop's log."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def db_pid(self):
        """The pid (int) of the running local database server, or None."""
        from core.mongo.localserver import LocalServer

        return LocalServer(self.data_dir).status()["pid"]

    def kill_db(self):
        """``kill -9`` the local database server; returns the time of the kill (``time.monotonic()``).
        Raises ``RuntimeError`` when it is not running."""
        pid = self.db_pid()
        if not pid:
            raise RuntimeError("the local database server is not running")
        os.kill(pid, signal.SIGKILL)
        return time.monotonic()

    def worker_pids(self):
        """The pids (list of int) of gunicorn's workers now (children of its master), from ``/proc``."""
        workers = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[1]) == self.process.pid and fields[0] != "Z":
                pid = int(stat.parent.name)
                if "gunicorn" in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"):
                    workers.append(pid)
        return sorted(workers)

    def kill_worker(self):
        """``kill -9`` one gunicorn worker (gunicorn starts another); returns its pid."""
        pid = self.worker_pids()[0]
        os.kill(pid, signal.SIGKILL)
        return pid

    def seconds_to_200(self, path, since, timeout=60.0, on_answer=None):
        """Poll ``path`` until it answers 200; returns the seconds (float) from ``since`` (a
        ``time.monotonic()`` value) to that answer, or None after ``timeout`` seconds.
        ``on_answer(status, headers, body)`` is called with every answer on the way."""
        while time.monotonic() - since < timeout:
            status, headers, body = self.get(path, timeout=max(1.0, timeout - (time.monotonic() - since)))
            if on_answer:
                on_answer(status, headers, body)
            if status == 200:
                return time.monotonic() - since
            time.sleep(0.2)
        return None

    def stop(self):
        """Stop gunicorn (SIGTERM, then SIGKILL after 60 s) and the local database server."""
        from core.mongo.localserver import LocalServer

        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        LocalServer(self.data_dir).stop()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def main():
    """``python bench/chaos_support.py [--kills N] [--workers N]``: kill -9 the database server
    of a fresh live shop N times (every other time with a worker) and print the seconds from
    each kill to the next 200 of ``/``; exits 1 when one took 30 s or more."""
    import argparse
    import tempfile

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--kills", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    healed = []
    with tempfile.TemporaryDirectory(prefix="shop-chaos-") as workdir, LiveShop(workdir, args.workers) as shop:
        for kill in range(args.kills):
            if kill % 2:
                shop.kill_worker()
            seconds = shop.seconds_to_200("/", shop.kill_db(), timeout=60)
            healed.append(seconds)
            print(f"kill {kill + 1}{' (and a worker)' if kill % 2 else ''}: "
                  + (f"200 after {seconds:.1f} s" if seconds is not None else "no 200 within 60 s"), flush=True)
            time.sleep(1)
    ok = all(s is not None and s < 30 for s in healed)
    print(f"max {max((s for s in healed if s is not None), default=float('nan')):.1f} s; "
          f"{'every kill healed in under 30 s' if ok else 'NOT every kill healed in under 30 s'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
