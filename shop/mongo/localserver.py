"""The local MongoDB-compatible server the shop uses when no ``MONGODB_URI`` is set.

Without ``MONGODB_URI`` the shop talks to a SecantusDB server (PyPI
``secantusdb``: a single-node server speaking MongoDB's wire protocol, on
WiredTiger, MongoDB's own storage engine) through pymongo, exactly as it
talks to MongoDB: one code path everywhere. The server runs as its own
process (SecantusDB is GPL-2.0; the shop never imports it), and its data
lives in ``settings.SHOP_LOCAL_DB_DIR`` (``var/db/`` in the project,
ignored by git):

* ``storage/``: the WiredTiger files;
* ``server.json``: ``{"pid", "port"}`` of the running server;
* ``server.lock``: taken (``flock``) while a process checks or starts the
  server, so that two processes starting at once start one server;
* ``prepare.lock``: taken while a process migrates and loads the demo
  (``shop.startup``);
* ``server.log``: the server's output.

Whichever process needs the database first (runserver, a gunicorn worker, a
``manage.py`` command) starts the server through ``ensure_running()``; every
other process finds it in ``server.json`` and uses the same one. The server
is started in a session of its own, so it outlives the process that started
it (runserver's autoreloader restarts the shop, not the database);
``manage.py dbserver stop`` stops it.

The test run uses ``start_throwaway()`` instead: in-memory storage on a free
port, ended with the test process.
"""

import contextlib
import ctypes
import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pymongo
from pymongo.errors import PyMongoError

#: Seconds a starting server may take to answer before ``LocalServerError``.
START_TIMEOUT = 30.0
#: Seconds ``stop()`` waits for a clean shutdown before SIGKILL.
STOP_TIMEOUT = 15.0


class LocalServerError(RuntimeError):
    """The local server could not be started (the message says why, with its log's tail)."""


def uri_for(port):
    """The connection string of a local server on ``port`` (int).

    ``directConnection`` talks to that one node: SecantusDB announces
    itself as a one-node replica set (so sessions and transactions work),
    and there is no other member to discover.
    """
    return f"mongodb://127.0.0.1:{port}/?directConnection=true"


def answers(port, timeout=1.0):
    """True when a MongoDB server on 127.0.0.1:``port`` answers ``ping`` within ``timeout`` seconds."""
    client = pymongo.MongoClient(uri_for(port), serverSelectionTimeoutMS=int(timeout * 1000),
                                 connectTimeoutMS=int(timeout * 1000))
    try:
        client.admin.command("ping")
        return True
    except PyMongoError:
        return False
    finally:
        client.close()


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A child of this process that has exited stays a zombie until reaped.
    with contextlib.suppress(ChildProcessError):
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return False
    return True


def _command(storage, port, durable):
    """The command line of a SecantusDB server on 127.0.0.1:``port`` with ``storage`` (path or ``:memory:``).

    ``durable``: fsync WiredTiger's log at every commit (``--sync-on-commit``).
    Without it an acknowledged write can be lost when the server is killed
    (measured: 31 of 300 acknowledged inserts, and an update, gone after
    ``kill -9``), and the shop promises that orders survive that.
    """
    return [sys.executable, "-m", "secantus", "--host", "127.0.0.1", "--port", str(port),
            "--storage-path", str(storage), "--log-level", "WARNING",
            *(["--sync-on-commit"] if durable else [])]


def _wait_until_answering(process, port, log_path=None):
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        if answers(port, timeout=0.5):
            return
        time.sleep(0.1)
    process.kill()
    tail = ""
    if log_path and Path(log_path).exists():
        tail = Path(log_path).read_text(errors="replace")[-2000:]
    raise LocalServerError(
        f"The local database server did not start on port {port} within {START_TIMEOUT:.0f} s"
        + (f"; its log ({log_path}) ends with:\n{tail}" if tail else ".")
    )


class LocalServer:
    """The local server whose files are in ``data_dir`` (a ``Path``).

    ``ensure_running()`` returns its connection string, starting it when
    needed; ``status()`` and ``stop()`` serve ``manage.py dbserver``.
    """

    def __init__(self, data_dir):
        self.data_dir = Path(data_dir)
        self.storage = self.data_dir / "storage"
        self.state_path = self.data_dir / "server.json"
        self.log_path = self.data_dir / "server.log"

    @contextlib.contextmanager
    def lock(self, name="server"):
        """Hold ``<name>.lock`` in the data directory (an exclusive ``flock``, released if
        the process dies). ``server`` guards starting and stopping the server; other
        names guard other one-at-a-time jobs (``shop.startup`` takes ``prepare``), so
        that a job holding its lock can still start the server."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with open(self.data_dir / f"{name}.lock", "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _read_state(self):
        try:
            state = json.loads(self.state_path.read_text())
            return {"pid": int(state["pid"]), "port": int(state["port"])}
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _running_state(self):
        state = self._read_state()
        if state and _pid_alive(state["pid"]) and answers(state["port"]):
            return state
        return None

    def ensure_running(self):
        """Return the connection string (str) of the running server, starting it if needed.

        Safe to call from several processes at once: the check and the start
        happen under ``server.lock``, so only one server is ever started.
        Raises ``LocalServerError`` when it does not start.
        """
        state = self._running_state()  # the common case: no lock needed
        if state:
            return uri_for(state["port"])
        with self.lock():
            state = self._running_state()
            if state:
                return uri_for(state["port"])
            port = _free_port()
            self.storage.mkdir(parents=True, exist_ok=True)
            with open(self.log_path, "ab") as log:
                process = subprocess.Popen(
                    _command(self.storage, port, durable=True), cwd=self.data_dir, stdin=subprocess.DEVNULL,
                    stdout=log, stderr=subprocess.STDOUT, start_new_session=True, close_fds=True,
                )
            _wait_until_answering(process, port, self.log_path)
            tmp = self.state_path.with_suffix(".tmp")
            tmp.write_text(json.dumps({"pid": process.pid, "port": port}))
            tmp.replace(self.state_path)
            return uri_for(port)

    def status(self):
        """``{"running": bool, "pid", "port", "uri", "data_dir"}`` (pid, port, uri None when stopped)."""
        state = self._running_state()
        return {
            "running": bool(state),
            "pid": state and state["pid"],
            "port": state and state["port"],
            "uri": state and uri_for(state["port"]),
            "data_dir": str(self.data_dir),
        }

    def stop(self):
        """Stop the server (SIGTERM, then SIGKILL after ``STOP_TIMEOUT`` s).

        Returns the pid stopped, or None when none was running.
        """
        with self.lock():
            state = self._read_state()
            if not state or not _pid_alive(state["pid"]):
                self.state_path.unlink(missing_ok=True)
                return None
            pid = state["pid"]
            os.kill(pid, signal.SIGTERM)
            deadline = time.monotonic() + STOP_TIMEOUT
            while _pid_alive(pid) and time.monotonic() < deadline:
                time.sleep(0.1)
            if _pid_alive(pid):
                os.kill(pid, signal.SIGKILL)
            self.state_path.unlink(missing_ok=True)
            return pid


def _die_with_parent():
    # Linux prctl(PR_SET_PDEATHSIG, SIGTERM): a throw-away server ends with its test run,
    # even when that run is killed.
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)


def start_throwaway(storage=":memory:"):
    """Start a server for one test run: ``storage`` (``":memory:"`` or a temporary
    directory), a free port, ended when this process ends.

    Returns ``(uri, process)``; the caller may ``process.terminate()`` it sooner.
    Raises ``LocalServerError`` when it does not start.
    """
    port = _free_port()
    process = subprocess.Popen(_command(storage, port, durable=storage != ":memory:"), stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               preexec_fn=_die_with_parent)
    _wait_until_answering(process, port)
    return uri_for(port), process
