"""The local MongoDB-compatible server the shop uses when no ``MONGODB_URI`` is set.

Without ``MONGODB_URI`` the shop talks to a SecantusDB server (PyPI
``secantusdb``: a single-node server speaking MongoDB's wire protocol, on
WiredTiger, MongoDB's own storage engine) through pymongo, exactly as it
talks to MongoDB: one code path everywhere. The server runs as its own
process (SecantusDB is GPL-2.0; the shop never imports it), and its data
lives in ``settings.SHOP_LOCAL_DB_DIR`` (``var/db/`` in the project,
ignored by git):

* ``storage/``: the WiredTiger files;
* ``port``: the server's port, chosen once (a free one) when the directory is
  first used and kept: a restarted server listens where every process's
  client already looks, so pymongo reconnects by itself;
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
``manage.py dbserver stop`` stops it. When it is gone (killed, crashed),
the next process to miss it starts it again on the same port
(``core.mongo.revive``).

Every error is a ``LocalServerError`` whose first line is the reason (a
read-only or uncreatable data directory, a port taken by another program,
a server that exited or did not answer, with the seconds really waited).

The test run uses ``start_throwaway()`` instead: in-memory storage on a free
port, ended with the test process.
"""

import contextlib
import ctypes
import fcntl
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from .serverprocess import answers, free_port, is_server_of, port_is_free, read_port, server_pid, terminate, uri_for

__all__ = ["LocalServer", "LocalServerError", "answers", "start_throwaway", "uri_for"]

#: Seconds a starting server may take to answer before ``LocalServerError``.
START_TIMEOUT = 30.0
#: Seconds ``stop()`` waits for a clean shutdown before SIGKILL.
STOP_TIMEOUT = 15.0


class LocalServerError(RuntimeError):
    """The local server could not be used or started.

    ``str()`` is the one-line reason; ``log_tail`` (str, maybe empty) the end
    of the server's log, for the operator who wants more.
    """

    def __init__(self, reason, log_tail=""):
        super().__init__(reason)
        self.log_tail = log_tail


#: WiredTiger's cache of the local server (``--cache-size``), unless ``SHOP_LOCAL_DB_CACHE_SIZE``
#: says otherwise. SecantusDB's default, 1G, stalled ``populatedb --products 100000`` three times
#: at about 900 MB stored (every insert batch waiting inside the server's walk of its oldest oplog
#: entries); with 6G the same run finished in 5 minutes, the server's memory at 1 GB. It is a
#: ceiling, not an allocation: the demo catalog's server stays far below it.
DEFAULT_CACHE_SIZE = "4G"


def _command(storage, port, durable):
    """The command line of a SecantusDB server on 127.0.0.1:``port`` with ``storage`` (path or ``:memory:``).

    ``durable``: fsync WiredTiger's log at every commit (``--sync-on-commit``).
    Without it an acknowledged write can be lost when the server is killed
    (measured: 31 of 300 acknowledged inserts, and an update, gone after
    ``kill -9``), and the shop promises that orders survive that. The cache
    is ``SHOP_LOCAL_DB_CACHE_SIZE`` (e.g. ``8G``; ``DEFAULT_CACHE_SIZE``). Raises
    ``LocalServerError`` for a value that is not a size.

    ``--standalone``: the server keeps no oplog. SecantusDB writes an oplog entry for every
    document written (an update's entry a diff of the whole document, then past
    ``--oplog-max-entries`` a deletion of the oldest entry) only when it presents itself
    as a replica set, and the shop reads none: no change stream, no point-in-time restore
    (the crash recovery is WiredTiger's log). Its multi-document transactions (the
    invoices' numbering) run the same without it (local-server difference 25). Measured:
    an expiry's ``update_many`` costs the server 31 % less CPU a cart than with the oplog
    past its cap (docs/performance-operations.md, "Operators' jobs at scale").
    """
    cache_size = os.environ.get("SHOP_LOCAL_DB_CACHE_SIZE") or DEFAULT_CACHE_SIZE
    if not re.fullmatch(r"[1-9][0-9]*[KMGT]?", cache_size, re.IGNORECASE):
        raise LocalServerError(f"SHOP_LOCAL_DB_CACHE_SIZE must be a size such as 4G or 512M, not {cache_size!r}.")
    return [sys.executable, "-m", "secantus", "--host", "127.0.0.1", "--port", str(port),
            "--storage-path", str(storage), "--log-level", "WARNING", "--cache-size", cache_size,
            "--standalone", *(["--sync-on-commit"] if durable else [])]


def _last_line(text):
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _wait_until_answering(process, port, log_path=None, timeout=None):
    """Wait until the server ``process`` answers on ``port``; raise ``LocalServerError`` (saying
    the seconds really waited) when it exits first or does not answer within ``timeout``
    seconds (default ``START_TIMEOUT``)."""
    timeout = START_TIMEOUT if timeout is None else timeout
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if process.poll() is not None:
            break
        if answers(port, timeout=0.5):
            return
        time.sleep(0.1)
    waited = time.monotonic() - started
    exit_code = process.poll()
    if exit_code is None:
        process.kill()
        process.wait()
        reason = f"The local database server did not answer on port {port} within {waited:.1f} s"
    else:
        reason = (f"The local database server exited (code {exit_code}) after {waited:.1f} s "
                  f"without answering on port {port}")
    tail = ""
    if log_path and Path(log_path).exists():
        tail = Path(log_path).read_text(errors="replace")[-2000:]
    last = _last_line(tail)
    raise LocalServerError(reason + (f"; its log ({log_path}) ends with: {last}" if last else "."), tail)


class LocalServer:
    """The local server whose files are in ``data_dir`` (a path; made absolute).

    ``ensure_running()`` returns its connection string, starting it when
    needed; ``status()`` and ``stop()`` serve ``manage.py dbserver``.
    """

    def __init__(self, data_dir):
        self.data_dir = Path(os.path.abspath(data_dir))
        self.storage = self.data_dir / "storage"
        self.state_path = self.data_dir / "server.json"
        self.port_path = self.data_dir / "port"
        self.log_path = self.data_dir / "server.log"

    def check_writable(self):
        """Make the data directory and its ``storage/`` if missing and check that files can
        be written there (by writing one: root ignores permission bits, not a read-only mount).

        Raises ``LocalServerError`` with a one-line reason when they cannot.
        """
        try:
            # Private (0700): the database's files, its log and its port are the shop's alone.
            self.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise LocalServerError(
                f"The local database's data directory {self.data_dir} cannot be created "
                f"({exc.strerror}); set SHOP_LOCAL_DB_DIR to a writable directory.") from None
        for folder in (self.data_dir, self.storage):
            probe = folder / f".write-test-{os.getpid()}"
            try:
                folder.mkdir(mode=0o700, exist_ok=True)
                probe.write_bytes(b"")
                probe.unlink()
            except OSError as exc:
                raise LocalServerError(
                    f"The local database's data directory {folder} is not writable ({exc.strerror}); "
                    f"set SHOP_LOCAL_DB_DIR to a writable directory.") from None

    @contextlib.contextmanager
    def lock(self, name="server", blocking=True):
        """Hold ``<name>.lock`` in the data directory (an exclusive ``flock``, released if
        the process dies). ``server`` guards starting and stopping the server; other
        names guard other one-at-a-time jobs (``shop.startup`` takes ``prepare``), so
        that a job holding its lock can still start the server.

        Raises ``LocalServerError`` when the data directory cannot be written, and
        ``BlockingIOError`` when ``blocking`` is False and another process holds the lock.
        """
        try:
            self.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            handle = open(self.data_dir / f"{name}.lock", "a")
        except OSError:
            self.check_writable()  # raises with the reason
            raise
        with handle:
            fcntl.flock(handle, fcntl.LOCK_EX if blocking else fcntl.LOCK_EX | fcntl.LOCK_NB)
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

    def kept_port(self):
        """The port (int) kept in ``port`` for this directory, or None before the first start."""
        return read_port(self.port_path)

    def _choose_port(self):
        """The kept port; on the first start, a free one (the one of an older ``server.json`` if
        any), written to ``port`` for every later start. Called under the server's lock."""
        port = self.kept_port()
        if port is None:
            state = self._read_state()
            port = state["port"] if state else free_port()
            tmp = self.port_path.with_suffix(".tmp")
            tmp.write_text(f"{port}\n")
            tmp.replace(self.port_path)
        return port

    def _running_state(self):
        """``{"pid", "port"}`` of this directory's server when it answers, else None.

        The pid is the one the server reports (``serverStatus``), checked to be a
        server on this directory's storage: never merely the pid written in ``server.json``.
        """
        state = self._read_state()
        port = self.kept_port() or (state and state["port"])
        if not port:
            return None
        pid = server_pid(port)
        if pid and is_server_of(pid, self.storage, port):
            return {"pid": pid, "port": port}
        return None

    def _write_state(self, pid, port):
        tmp = self.state_path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"pid": pid, "port": port}))
        tmp.replace(self.state_path)

    def ensure_running(self, wait=True):
        """Return the connection string (str) of the running server, starting it if needed.

        Safe to call from several processes at once: the check and the start
        happen under ``server.lock``, so only one server is ever started. It
        always listens on the directory's kept port. With ``wait=False``, when
        another process holds the lock (it is starting the server) and the port is
        known, return that port's connection string at once instead of waiting:
        the caller's client connects once the server answers.
        Raises ``LocalServerError`` when the server cannot be started: the
        data directory is not writable, the port is taken by another program,
        or the server exits or does not answer within ``START_TIMEOUT`` s.
        """
        state = self._running_state()  # the common case: no lock needed
        if state:
            return uri_for(state["port"])
        try:
            with self.lock(blocking=wait):
                return self._start_locked()
        except BlockingIOError:
            port = self.kept_port()
            if port is None:
                return self.ensure_running(wait=True)
            return uri_for(port)

    def _start_locked(self):
        """``ensure_running()``'s work under the lock: the running server's URI, else start one."""
        state = self._running_state()
        if state:
            self._write_state(state["pid"], state["port"])
            return uri_for(state["port"])
        self.check_writable()
        port = self._choose_port()
        if not port_is_free(port):
            raise LocalServerError(
                f"Port {port}, kept in {self.port_path} for this data directory, is taken by another "
                f"program; stop it, or delete that file to choose a new port (restart the shop then).")
        with open(self.log_path, "ab") as log:
            process = subprocess.Popen(
                _command(self.storage, port, durable=True), cwd=self.data_dir, stdin=subprocess.DEVNULL,
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True, close_fds=True,
            )
        _wait_until_answering(process, port, self.log_path)
        self._write_state(process.pid, port)
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
        """Stop this directory's server: SIGTERM, then SIGKILL after ``STOP_TIMEOUT`` s.

        SecantusDB has no ``shutdown`` command, so the pid is checked first: the
        pid the server on the kept port reports, and the pid in ``server.json``,
        are each signalled only when their command line shows a SecantusDB
        server on this directory's storage. Any other process is left alone.
        ``server.json`` is removed only once no server answers on the port.

        Returns the pid stopped (int), or None when none of this directory's
        servers was running. Raises ``LocalServerError`` when a server still
        answers on the port afterwards (one this check would not signal).
        """
        with self.lock():
            state = self._read_state()
            port = self.kept_port() or (state and state["port"])
            candidates = [port and server_pid(port), state and state["pid"]]
            stopped = None
            for pid in dict.fromkeys(p for p in candidates if p):
                if terminate(pid, self.storage, STOP_TIMEOUT):
                    stopped = pid
            if port and answers(port):
                raise LocalServerError(
                    f"A server still answers on port {port} and is not this data directory's server "
                    f"(pid check failed); {self.state_path} is kept.")
            self.state_path.unlink(missing_ok=True)
            return stopped


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
    port = free_port()
    process = subprocess.Popen(_command(storage, port, durable=storage != ":memory:"), stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               preexec_fn=_die_with_parent)
    _wait_until_answering(process, port)
    return uri_for(port), process
