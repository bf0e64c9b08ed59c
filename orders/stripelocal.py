"""The local Stripe the shop uses when no ``STRIPE_SECRET_KEY`` is set: localstripe, its own process.

Without ``STRIPE_SECRET_KEY`` the shop talks to localstripe (PyPI: a fake
but stateful Stripe server speaking Stripe's HTTP API and serving a fake
Stripe.js) through the official ``stripe`` library, exactly as it talks to
Stripe: one code path. localstripe is GPL-3.0, so it runs as its own
process and the shop never imports it (as with the local database server,
``core.mongo.localserver``).

localstripe 1.15.10 rewrites its whole state to one fixed file,
``/tmp/localstripe.pickle`` (hard-coded in its ``resources.py``), on every
change, and reloads it when it starts. Two instances would overwrite each
other's state, so there is **one instance per machine**, shared by every
process and test worker, kept in ``STATE_DIR``:

* ``port``: its port, chosen once (a free one) and kept, so that a revived
  server listens where every process already looks;
* ``server.json``: ``{"pid", "port"}`` of the running server;
* ``server.lock``: taken (``flock``) while a process checks or starts it;
* ``webhooks.json``: the webhook endpoints registered (``{id: {url,
  secret}}``); localstripe keeps them in memory only, so every start
  registers them again;
* ``server.log``: its output.

Whichever process needs Stripe first starts it (``ensure_running()``); a
process that finds it gone (connection refused) starts it again
(``StripeProvider`` does, see ``orders.payments``). A state file cut short
by a kill makes localstripe exit at start; it is then moved aside (the fake's
history is lost, with a warning in the log) and the server started afresh.

Errors are ``LocalStripeError``, whose ``str()`` is a one-line reason.
"""

import contextlib
import fcntl
import json
import logging
import os
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from core.mongo.serverprocess import free_port, pid_alive, port_is_free, read_port

logger = logging.getLogger(__name__)

#: localstripe's own state file (hard-coded there; not ours to move).
STATE_FILE = Path("/tmp/localstripe.pickle")  # nosec B108
#: Where the shop keeps the one local Stripe's port, pid, lock and webhooks.
STATE_DIR = Path(os.environ.get("SHOP_LOCAL_STRIPE_DIR") or "/tmp/shop-localstripe")  # nosec B108
#: Seconds a starting localstripe may take to answer.
START_TIMEOUT = 30.0
#: The secret and publishable keys the shop uses with localstripe (it accepts any ``sk_``/``pk_`` key).
SECRET_KEY = "sk_test_localstripe"
PUBLISHABLE_KEY = "pk_test_localstripe"


class LocalStripeError(RuntimeError):
    """The local Stripe could not be started or reached; ``str()`` is the one-line reason."""


def base_url(port):
    """localstripe's address on ``port``: the SDK's API base and the root of its Stripe.js."""
    return f"http://127.0.0.1:{port}"


def answers(port, timeout=1.0):
    """True when localstripe answers on ``port``: its fake Stripe.js is served there (nothing
    else on the machine serves ``/js.stripe.com/v3/`` with localstripe's banner)."""
    try:
        with urllib.request.urlopen(f"{base_url(port)}/js.stripe.com/v3/", timeout=timeout) as response:  # nosec B310
            return b"localstripe" in response.read(4096)
    except (OSError, ValueError):
        return False


def _is_localstripe(pid):
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return pid_alive(pid) and b"localstripe" in args


class LocalStripe:
    """The machine's one localstripe (files in ``state_dir``, default ``STATE_DIR``)."""

    def __init__(self, state_dir=None):
        self.state_dir = Path(state_dir or STATE_DIR)
        self.port_path = self.state_dir / "port"
        self.state_path = self.state_dir / "server.json"
        self.webhooks_path = self.state_dir / "webhooks.json"
        self.log_path = self.state_dir / "server.log"

    @contextlib.contextmanager
    def _lock(self):
        try:
            self.state_dir.mkdir(parents=True, exist_ok=True)
            handle = open(self.state_dir / "server.lock", "a")
        except OSError as exc:
            raise LocalStripeError(f"The local Stripe's directory {self.state_dir} is not writable "
                                   f"({exc.strerror}); set SHOP_LOCAL_STRIPE_DIR.") from None
        with handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def kept_port(self):
        """The kept port (int), or None before the first start."""
        return read_port(self.port_path)

    def url(self):
        """The base URL of the kept port (str), whether or not the server runs now; None before
        the first start."""
        port = self.kept_port()
        return base_url(port) if port else None

    def ensure_running(self):
        """The base URL (str) of the running localstripe, started if needed.

        Safe from several processes at once (one start, under ``server.lock``).
        Raises ``LocalStripeError`` when it cannot start: the port is taken
        by another program, or it exits or does not answer within ``START_TIMEOUT`` s.
        """
        port = self.kept_port()
        if port and answers(port, timeout=2.0):
            return base_url(port)
        with self._lock():
            port = self.kept_port()
            if port and answers(port, timeout=2.0):
                return base_url(port)
            if port is None:
                port = free_port()
                self.port_path.write_text(f"{port}\n")
            if not port_is_free(port):
                # Something listens there: localstripe busy (it rewrites its whole state file on
                # every change), or another program.
                if self.pid() is not None or answers(port, timeout=15.0):
                    return base_url(port)
                raise LocalStripeError(
                    f"Port {port}, kept in {self.port_path} for the local Stripe, is taken by another program; "
                    f"stop it, or delete that file to choose a new port.")
            try:
                self._start(port)
            except LocalStripeError:
                if not self._state_file_broken():
                    raise
                aside = STATE_FILE.with_name(f"localstripe.pickle.broken-{int(time.time())}")
                STATE_FILE.replace(aside)
                logger.warning("localstripe could not read %s (cut short by a kill?): moved to %s, "
                               "starting with no history.", STATE_FILE, aside)
                self._start(port)
            self._register_all(port)
            return base_url(port)

    def _state_file_broken(self):
        try:
            tail = self.log_path.read_text(errors="replace")[-3000:]
        except OSError:
            return False
        return STATE_FILE.exists() and any(word in tail for word in ("UnpicklingError", "EOFError", "pickle"))

    def _start(self, port):
        with open(self.log_path, "ab") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", "localstripe", "--port", str(port)], cwd=self.state_dir,
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                close_fds=True,
            )
        started = time.monotonic()
        while time.monotonic() - started < START_TIMEOUT:
            if process.poll() is not None:
                raise LocalStripeError(f"The local Stripe (localstripe) exited (code {process.returncode}) "
                                       f"at start; see {self.log_path}.")
            if answers(port, timeout=0.5):
                tmp = self.state_path.with_suffix(".tmp")
                tmp.write_text(json.dumps({"pid": process.pid, "port": port}))
                tmp.replace(self.state_path)
                return
            time.sleep(0.1)
        process.kill()
        raise LocalStripeError(f"The local Stripe (localstripe) did not answer on port {port} "
                               f"within {START_TIMEOUT:.0f} s; see {self.log_path}.")

    # -- webhooks -------------------------------------------------------------------

    def _webhooks(self):
        try:
            return json.loads(self.webhooks_path.read_text())
        except (OSError, ValueError):
            return {}

    def _post(self, port, path, fields):
        data = urllib.parse.urlencode(fields, doseq=True).encode()
        request = urllib.request.Request(f"{base_url(port)}{path}", data=data, method="POST")
        with urllib.request.urlopen(request, timeout=30) as response:  # nosec B310
            response.read()

    def _register_all(self, port):
        for name, hook in self._webhooks().items():
            try:
                self._post(port, f"/_config/webhooks/{name}", hook)
            except OSError as exc:
                logger.warning("Webhook %s not registered with the local Stripe: %s", name, exc)

    def register_webhook(self, name, url, secret):
        """Have localstripe send every event to ``url``, signed with ``secret``, as endpoint
        ``name`` (a later registration of ``name`` replaces it). Kept in ``webhooks.json`` so
        that a restarted localstripe gets it again. Starts the server if needed."""
        with self._lock():
            hooks = self._webhooks()
            hooks[name] = {"url": url, "secret": secret}
            tmp = self.webhooks_path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(hooks))
            tmp.replace(self.webhooks_path)
        port = urllib.parse.urlsplit(self.ensure_running()).port
        self._post(port, f"/_config/webhooks/{name}", {"url": url, "secret": secret})

    # -- operators -----------------------------------------------------------------------

    def pid(self):
        """The pid (int) of the running localstripe, or None."""
        try:
            pid = int(json.loads(self.state_path.read_text())["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return pid if _is_localstripe(pid) else None
