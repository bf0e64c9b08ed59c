"""The local Stripe the shop uses when no ``STRIPE_SECRET_KEY`` is set: localstripe, its own process.

Without ``STRIPE_SECRET_KEY`` the shop talks to localstripe (PyPI: a fake
but stateful Stripe server speaking Stripe's HTTP API and serving a fake
Stripe.js) through the official ``stripe`` library, exactly as it talks to
Stripe: one code path. localstripe is GPL-3.0, so it runs as its own
process and the shop never imports it (as with the local database server,
``core.mongo.localserver``).

localstripe 1.15.10 binds every interface and keeps its whole state in
``/tmp/localstripe.pickle``, rewritten on every change and unpickled at start
(both hard-coded). The shop starts it through ``localstripe_launch.py``,
which binds it to 127.0.0.1 and moves that file into ``STATE_DIR``, a
directory private to the user running the shop (0700; its files 0600; one
owned by another user is refused, never loaded). There is **one instance per
state directory**, by default one per user, shared by every process and test
worker. ``STATE_DIR`` holds:

* ``localstripe.pickle``: localstripe's state;
* ``port``: its port, chosen once (a free one) and kept, so that a revived
  server listens where every process already looks;
* ``server.json``: ``{"pid", "port"}`` of the running server;
* ``server.lock``: taken (``flock``) while a process checks or starts it;
* ``webhook_secret``: the secret its webhook events are signed with, made
  at random once per state directory (``webhook_secret()``), so a shop on
  the local Stripe accepts no event signed with a secret known elsewhere;
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
import secrets
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from core.mongo.serverprocess import free_port, pid_alive, port_is_free, read_port

logger = logging.getLogger(__name__)

#: Where the shop keeps the local Stripe's state, port, pid, lock, secret and webhooks: private
#: to the user (``SHOP_LOCAL_STRIPE_DIR``, default ``$XDG_STATE_HOME/shop-localstripe``).
STATE_DIR = Path(os.environ.get("SHOP_LOCAL_STRIPE_DIR")
                 or Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "shop-localstripe")
#: The script that runs localstripe on 127.0.0.1 with its state file in the state directory.
LAUNCHER = Path(__file__).with_name("localstripe_launch.py")
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


def _refuse_foreign(path, st):
    if st.st_uid != os.getuid():
        raise LocalStripeError(f"{path} belongs to another user (uid {st.st_uid}); the local Stripe's files "
                               f"must be this user's own: remove it, or set SHOP_LOCAL_STRIPE_DIR.")


def private_dir(path):
    """Create ``path`` (a ``Path``) as a directory only this user can enter (0700), or make an
    existing one so. Raises ``LocalStripeError`` when it is not a directory (a symlink
    included), belongs to another user, or cannot be created."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = path.lstat()
    except OSError as exc:
        raise LocalStripeError(f"The local Stripe's directory {path} cannot be created ({exc.strerror}); "
                               f"set SHOP_LOCAL_STRIPE_DIR.") from None
    if not stat.S_ISDIR(st.st_mode):
        raise LocalStripeError(f"{path} is not a directory; the local Stripe needs one of its own.")
    _refuse_foreign(path, st)
    if st.st_mode & 0o077:
        path.chmod(0o700)


def private_file(path):
    """Create ``path`` empty with mode 0600 unless it exists; an existing one must be this
    user's own regular file (not a symlink) and is made 0600. Raises ``LocalStripeError``."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError as exc:
        raise LocalStripeError(f"{path} cannot be opened as the local Stripe's own file "
                               f"({exc.strerror}); remove it.") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise LocalStripeError(f"{path} is not a regular file; remove it.")
        _refuse_foreign(path, st)
        if st.st_mode & 0o077:
            os.fchmod(fd, 0o600)
    finally:
        os.close(fd)


def _is_localstripe(pid):
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    # The launcher's command line: python -I .../orders/localstripe_launch.py .../localstripe.pickle --port N
    return pid_alive(pid) and any(b"localstripe" in arg.rsplit(b"/", 1)[-1] for arg in args)


class LocalStripe:
    """The machine's one localstripe (files in ``state_dir``, default ``STATE_DIR``)."""

    def __init__(self, state_dir=None):
        self.state_dir = Path(state_dir or STATE_DIR)
        self.state_file = self.state_dir / "localstripe.pickle"
        self.secret_path = self.state_dir / "webhook_secret"
        self.port_path = self.state_dir / "port"
        self.state_path = self.state_dir / "server.json"
        self.webhooks_path = self.state_dir / "webhooks.json"
        self.log_path = self.state_dir / "server.log"

    @contextlib.contextmanager
    def _lock(self):
        private_dir(self.state_dir)
        try:
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
            # Checked before localstripe reads it, since it unpickles whatever is there.
            if self.state_file.exists() or self.state_file.is_symlink():
                private_file(self.state_file)
            try:
                self._start(port)
            except LocalStripeError:
                if not self._state_file_broken():
                    raise
                aside = self.state_file.with_name(f"localstripe.pickle.broken-{int(time.time())}")
                self.state_file.replace(aside)
                logger.warning("localstripe could not read %s (cut short by a kill?): moved to %s, "
                               "starting with no history.", self.state_file, aside)
                self._start(port)
            self._register_all(port)
            return base_url(port)

    def _state_file_broken(self):
        try:
            tail = self.log_path.read_text(errors="replace")[-3000:]
        except OSError:
            return False
        return self.state_file.exists() and any(word in tail for word in ("UnpicklingError", "EOFError", "pickle"))

    def _start(self, port):
        private_file(self.log_path)
        with open(self.log_path, "ab") as log:
            process = subprocess.Popen(
                [sys.executable, "-I", str(LAUNCHER), str(self.state_file), "--port", str(port)], cwd=self.state_dir,
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

    def webhook_secret(self):
        """The secret (str, ``whsec_`` + 48 hex digits) this local Stripe's webhook events are
        signed with: made at random the first time and kept in ``webhook_secret`` (0600)."""
        try:
            return self.secret_path.read_text().strip()
        except FileNotFoundError:
            pass
        with self._lock():
            if not self.secret_path.exists():
                tmp = self.secret_path.with_suffix(f".{os.getpid()}.tmp")
                private_file(tmp)
                tmp.write_text(f"whsec_{secrets.token_hex(24)}\n")
                tmp.replace(self.secret_path)
        return self.secret_path.read_text().strip()

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
            private_file(tmp)  # it holds the secrets
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
