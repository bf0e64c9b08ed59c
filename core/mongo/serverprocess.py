"""Which process is the local server: ports, pids and their checks (``core.mongo.localserver``).

A pid written in a file can outlive its process and be handed to another
one; a port can be taken by another program. So nothing here signals a
process on the strength of a recorded pid alone: ``is_server_of()`` checks
the process's own command line (it runs SecantusDB on that storage
(docs/local-server-differences.md: local-server difference 4)
directory), and ``server_pid()`` asks the server answering on a port for
its pid (``serverStatus``), which no other program answers.
"""

import contextlib
import os
import signal
import socket
import time
from pathlib import Path

import pymongo
from pymongo.errors import PyMongoError


def uri_for(port):
    """The connection string of a local server on ``port`` (int).

    ``directConnection`` talks to that one node: SecantusDB announces
    itself as a one-node replica set (so sessions and transactions work),
    and there is no other member to discover.

    ``retryWrites=false``: SecantusDB 0.7.0b3 records the reply of every
    retryable write and prunes those records with a scan and a sort of all
    of them on every write, so after 10,000 retryable writes within 30
    minutes every write costs about 20 ms instead of 1 (docs/local-server.md).
    The writes whose retry matters retry themselves (``core.mongo.writes``).
    Only this URI, the one the shop builds for its own server, says so: a
    ``MONGODB_URI`` keeps whatever its owner chose (pymongo's default is on).
    """
    return f"mongodb://127.0.0.1:{port}/?directConnection=true&retryWrites=false"


def _client(port, timeout):
    ms = max(1, int(timeout * 1000))
    return pymongo.MongoClient(uri_for(port), serverSelectionTimeoutMS=ms, connectTimeoutMS=ms,
                               socketTimeoutMS=ms)


def answers(port, timeout=1.0):
    """True when a MongoDB server on 127.0.0.1:``port`` answers ``ping`` within ``timeout`` seconds."""
    return server_pid(port, timeout) is not None


def server_pid(port, timeout=1.0):
    """The pid (int) a MongoDB server on 127.0.0.1:``port`` reports in ``serverStatus``, or None
    when nothing answers within ``timeout`` seconds (a server that answers without a pid gives 0)."""
    client = _client(port, timeout)
    try:
        return int(client.admin.command("serverStatus").get("pid", 0))
    except (PyMongoError, TypeError, ValueError):
        return None
    finally:
        client.close()


def read_port(path):
    """The port (int) written in the file ``path`` (a ``Path``), or None when the file is missing,
    unreadable or holds no port from 1 to 65535: how a local server keeps its port between starts."""
    try:
        port = int(path.read_text().strip())
    except (OSError, ValueError):
        return None
    return port if 0 < port < 65536 else None


def free_port():
    """A TCP port (int) free on 127.0.0.1 right now, chosen by the kernel."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def port_is_free(port):
    """True when 127.0.0.1:``port`` can be bound now (as the server binds it: ``SO_REUSEADDR``,
    so a port in TIME_WAIT after a killed server counts as free)."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def pid_alive(pid):
    """True when process ``pid`` (int) exists and has not exited (a zombie does not count;
    a child of this process that exited is reaped here)."""
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
    with contextlib.suppress(OSError, IndexError):
        # /proc/<pid>/stat: "pid (name) state ...": Z is a zombie, exited but not yet reaped.
        if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
            return False
    return True


def _command_line(pid):
    """The arguments (list of str) of process ``pid``, [] when it is gone or a zombie;
    None when this system has no ``/proc`` to read them from."""
    if not Path("/proc/self/cmdline").exists():
        return None
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


def is_server_of(pid, storage, port=None):
    """True when process ``pid`` is a SecantusDB server on the storage directory ``storage``
    (a ``Path``), read from its command line.

    Without ``/proc`` (not Linux), the pid must be the one the server on ``port`` reports.
    """
    if not pid or pid <= 0 or not pid_alive(pid):
        return False
    args = _command_line(pid)
    if args is None:
        return port is not None and server_pid(port) == pid
    if "secantus" not in args or "--storage-path" not in args:
        return False
    index = args.index("--storage-path") + 1
    return index < len(args) and args[index] == str(storage)


def terminate(pid, storage, timeout):
    """Stop the server process ``pid`` on ``storage``: SIGTERM, then SIGKILL after ``timeout``
    seconds. Each signal is sent only after ``is_server_of(pid, storage)`` says the pid still
    is that server. Returns True when it was that server (and is now gone)."""
    if not is_server_of(pid, storage):
        return False
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if is_server_of(pid, storage):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        while pid_alive(pid):
            time.sleep(0.05)
    return True
