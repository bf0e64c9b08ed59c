"""The local Stripe keeps to this machine and this user: it listens on 127.0.0.1 only, its state
(which localstripe unpickles at start) lives in a private directory, a file or directory there
owned by another user is refused before localstripe reads it, and its webhook secret is made at
random per state directory."""

import os
from pathlib import Path
import pickle
import signal
import socket
import stat
import tempfile
import urllib.parse

import pytest

from orders import stripelocal
from orders.stripelocal import PUBLISHABLE_KEY, LocalStripe, LocalStripeError

NOBODY = 65534
as_root = pytest.mark.skipif(os.getuid() != 0, reason="giving a file to another user needs root")


@pytest.fixture
def local(tmp_path):
    """A local Stripe of its own (its own state directory and port), stopped after the test."""
    instance = LocalStripe(tmp_path / "localstripe")
    yield instance
    pid = instance.pid()
    if pid:
        os.kill(pid, signal.SIGTERM)


def listen_addresses(port):
    """The local addresses (hex, as in /proc/net/tcp6) of the sockets listening on ``port``."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as rows:
            for row in list(rows)[1:]:
                local_address, state = row.split()[1], row.split()[3]
                address, hex_port = local_address.rsplit(":", 1)
                if int(hex_port, 16) == port and state == "0A":  # 0A: LISTEN
                    found.append(address)
    return found


def outside_address():
    """This machine's address on its default route (no packet is sent), or None."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: routing only
        except OSError:
            return None
        address = probe.getsockname()[0]
    return None if address.startswith("127.") else address


class Planted:
    """Unpickling this runs code: what a planted state file would do to the user loading it."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_the_local_stripe_listens_on_127_0_0_1_only(local):
    port = urllib.parse.urlsplit(local.ensure_running()).port
    # ::ffff:127.0.0.1 as /proc/net/tcp6 writes it; every interface would be all zeros.
    assert listen_addresses(port) == ["0000000000000000FFFF00000100007F"]
    assert stripelocal.answers(port)
    # Found by its pid (the fixture stops it by that pid: without it, the process outlived the test).
    assert local.pid() is not None and f"--port {port}".encode() in Path(f"/proc/{local.pid()}/cmdline").read_bytes().replace(b"\0", b" ")
    address = outside_address()
    if address:
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection((address, port), timeout=2).close()


def test_its_state_directory_and_files_are_private_to_the_user(local):
    local.ensure_running()
    local.webhook_secret()
    # A change makes localstripe write its state file.
    port = urllib.parse.urlsplit(local.url()).port
    local._post(port, "/v1/tokens", {"card[number]": "4242424242424242", "card[exp_month]": "12",
                                     "card[exp_year]": "2039", "card[cvc]": "123", "key": PUBLISHABLE_KEY})
    assert stat.S_IMODE(local.state_dir.stat().st_mode) == 0o700
    for name in ("localstripe.pickle", "webhook_secret", "server.log"):
        assert stat.S_IMODE((local.state_dir / name).stat().st_mode) == 0o600, name


@as_root
def test_a_state_file_owned_by_another_user_is_refused_unread(local, tmp_path):
    marker = tmp_path / "unpickled"
    stripelocal.private_dir(local.state_dir)
    local.state_file.write_bytes(pickle.dumps(Planted(str(marker))))
    os.chown(local.state_file, NOBODY, NOBODY)

    with pytest.raises(LocalStripeError, match="another user"):
        local.ensure_running()
    assert not marker.exists()
    assert local.pid() is None


@as_root
def test_a_state_directory_owned_by_another_user_is_refused(local):
    local.state_dir.mkdir(mode=0o777)
    os.chown(local.state_dir, NOBODY, NOBODY)
    with pytest.raises(LocalStripeError, match="another user"):
        local.ensure_running()
    assert local.pid() is None


def test_a_group_readable_state_directory_is_made_private(local):
    local.state_dir.mkdir(mode=0o755)
    local.state_dir.chmod(0o755)
    local.webhook_secret()
    assert stat.S_IMODE(local.state_dir.stat().st_mode) == 0o700


def test_the_webhook_secret_is_made_at_random_for_each_state_directory(tmp_path):
    first, second = LocalStripe(tmp_path / "one"), LocalStripe(tmp_path / "two")
    secret = first.webhook_secret()
    assert secret.startswith("whsec_") and len(secret) == len("whsec_") + 48
    assert first.webhook_secret() == secret  # kept
    assert second.webhook_secret() != secret


def test_the_default_state_directory_is_not_in_the_shared_temporary_directory(monkeypatch):
    if os.environ.get("SHOP_LOCAL_STRIPE_DIR"):
        pytest.skip("SHOP_LOCAL_STRIPE_DIR chooses the directory")
    assert not str(stripelocal.STATE_DIR).startswith(tempfile.gettempdir())
