"""Does a password reset's answer time tell which addresses have accounts?

    .venv/bin/python bench/password_reset_timing.py [--rounds 50] [--mail-delay-ms 50]

Starts the shop as production runs it (gunicorn, one worker, an empty catalog,
``bench/chaos_support.LiveShop``) with its e-mail sent over SMTP to a sink in
this process that takes ``--mail-delay-ms`` to accept each message, as a real
mail relay does. One account exists (``ada@example.com``). Then ``--rounds``
times each, in alternation: GET the reset form, time its POST for the account's
address and for an unknown one. Prints the median answer time of each kind, their
difference in percent, and whether it is within 10 %. The address is looked up
and its e-mail sent after the response (``core.afterresponse``); done within it,
the account's answers took the relay's delay longer. Bounded; loopback only.

Measured (2026-11-29, 2 cores busy with a test run): e-mail sent in the request,
82.3 ms against 23.9 ms; e-mail after the response, 20.9 against 18.5 ms (12.7 %:
the look-up of a matched account still cost more); look-up and e-mail after the
response, 45.7 against 44.9 ms (1.9 %).
"""

import argparse
import http.cookiejar
import re
import socket
import statistics
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.chaos_support import LiveShop  # noqa: E402

ACCOUNT, UNKNOWN = "ada@example.com", "nobody@example.com"


class SlowSmtpSink:
    """An SMTP server on 127.0.0.1 that accepts every message after ``delay`` seconds and
    counts them (``received``); enough of RFC 5321 for Django's SMTP backend."""

    def __init__(self, delay):
        self.delay, self.received = delay, 0
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            conn, _ = self.sock.accept()
            threading.Thread(target=self._session, args=(conn,), daemon=True).start()

    def _session(self, conn):
        with conn, conn.makefile("rb") as lines:
            conn.sendall(b"220 sink\r\n")
            for line in lines:
                verb = line[:4].upper()
                if verb == b"DATA":
                    conn.sendall(b"354 go on\r\n")
                    for body_line in lines:
                        if body_line == b".\r\n":
                            break
                    time.sleep(self.delay)
                    self.received += 1
                    conn.sendall(b"250 queued\r\n")
                elif verb == b"QUIT":
                    conn.sendall(b"221 bye\r\n")
                    return
                else:
                    conn.sendall(b"250 ok\r\n")


def timed_reset(base, email):
    """Seconds (float) the POST of the reset form for ``email`` took to be answered."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(f"{base}/account/password/reset/", timeout=30).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    data = urllib.parse.urlencode({"csrfmiddlewaretoken": token, "email": email}).encode()
    request = urllib.request.Request(f"{base}/account/password/reset/", data=data,
                                     headers={"Referer": f"{base}/account/password/reset/"})
    started = time.perf_counter()
    with opener.open(request, timeout=30) as answer:
        answer.read()
    return time.perf_counter() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--mail-delay-ms", type=float, default=50.0)
    args = parser.parse_args()
    sink = SlowSmtpSink(args.mail_delay_ms / 1000)
    with tempfile.TemporaryDirectory(prefix="reset-timing-") as workdir:
        shop = LiveShop(workdir, workers=1, environ={"EMAIL_URL": f"smtp://127.0.0.1:{sink.port}"})
        with shop:
            made = shop.manage("shell", "-c", "from django.contrib.auth import get_user_model; "
                               f"get_user_model().objects.create_user('{ACCOUNT}', '{ACCOUNT}', 'Ada-Passphrase-1')")
            if made.returncode:
                sys.exit(f"could not make the account: {made.stderr[-300:]}")
            times = {ACCOUNT: [], UNKNOWN: []}
            for _ in range(3):  # warm the worker
                timed_reset(shop.base, UNKNOWN)
            for _ in range(args.rounds):
                for email in (ACCOUNT, UNKNOWN):
                    times[email].append(timed_reset(shop.base, email))
            time.sleep(args.mail_delay_ms / 1000 * 2)
    account, unknown = (statistics.median(times[e]) * 1000 for e in (ACCOUNT, UNKNOWN))
    difference = abs(account - unknown) / min(account, unknown) * 100
    print(f"rounds: {args.rounds} each; mail relay delay: {args.mail_delay_ms:.0f} ms; e-mails received: {sink.received}")
    print(f"median answer, address with an account: {account:.1f} ms; unknown address: {unknown:.1f} ms")
    print(f"difference: {difference:.1f} % ({'within' if difference <= 10 else 'NOT within'} 10 %)")


if __name__ == "__main__":
    main()
