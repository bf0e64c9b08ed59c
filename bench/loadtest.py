"""Load test: the shop under gunicorn on 127.0.0.1, driven by wrk (Debian's ``wrk``).

    python bench/loadtest.py [--duration 30] [--connections 16] [--threads 1]
                             [--mix category=35,product=40,search=15,cart=10]
                             [--cart-skus 10] [--stock 20]

Starts gunicorn with the shop's ``gunicorn.conf.py`` in production settings
(DEBUG off, WhiteNoise static files after ``collectstatic``; plain http on
loopback, so the https redirect and Secure cookies are switched off through
their environment variables), waits for ``/healthz``, then runs wrk for a
bounded time with a mix of requests:

  category pages  /c/<slug>/ (a quarter of them on page 2)
  product pages   /p/<sku>/
  searches        /search/?q=<artist>          (when the search page exists)
  add-to-cart     POST /cart/add/ sku, qty=1   (when the cart exists)

Every add-to-cart comes without a session cookie, so each starts a cart of
its own (wrk keeps no cookies), and all of them go to a few SKUs
(``--cart-skus``, ``--stock`` units each): demand far above the stock, many
reservations of the same SKUs at once, the case where overselling would show. The CSRF token is a fixed secret sent
as cookie and form field, as a browser would.

It prints requests per second, p50/p95/p99 latency (wrk's, client side),
the count of answers that are not 2xx/3xx, then per kind of page the status
classes and the server-side p50/p95 from the shop's request log, and finally
runs ``check_inventory`` as a command in another process afterwards (it
sees what the workers did: they share the database). Exits 1 on any 5xx
answer or a broken inventory invariant.

Without ``MONGODB_URI`` it works on the local server in a database of its
own, ``shop_loadtest``, emptied and loaded with the demo catalog (``--stock``
units per SKU) at each run; with ``MONGODB_URI`` it reads the catalog there.

Only loopback is ever targeted; wrk stops by itself after ``--duration``.
"""

import argparse
import json
import os
import random
import re
import secrets
import shutil
import signal
import socket
import statistics
import string
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections import Counter, defaultdict
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))

from bench.benchsetup import LOAD_FROM_ONE_ADDRESS, wait_healthy  # noqa: E402
RESULTS = BASE_DIR / "bench" / "results"
GUNICORN = str(Path(sys.executable).with_name("gunicorn"))

#: Share of each kind of request in the mix (kinds whose page is missing are left out).
MIX = {"category": 35, "product": 40, "search": 15, "cart": 10}
PLAN_SIZE = 4000  # requests planned; wrk picks among them at random

LUA = r"""
local plan = {PLAN}
local requests = {}
fivexx = 0

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  local cookie = "csrftoken=" .. "{TOKEN}"
  for i, r in ipairs(plan) do
    local headers = {["Cookie"] = cookie, ["Host"] = "127.0.0.1"}
    if r[1] == "POST" then
      headers["Content-Type"] = "application/x-www-form-urlencoded"
    end
    requests[i] = wrk.format(r[1], r[2], headers, r[3])
  end
end

function request()
  return requests[math.random(#requests)]
end

function response(status, headers, body)
  if status >= 500 then fivexx = fivexx + 1 end
end

threads = {}

function done(summary, latency, requests)
  local total5xx = 0
  for _, thread in ipairs(threads) do total5xx = total5xx + thread:get("fivexx") end
  local e = summary.errors
  io.write(string.format(
    'WRK-JSON {"requests": %d, "duration_us": %d, "bytes": %d, "p50_us": %d, "p95_us": %d,'
    .. ' "p99_us": %d, "max_us": %d, "non_2xx_3xx": %d, "status_5xx": %d, "connect": %d,'
    .. ' "read": %d, "write": %d, "timeout": %d}\n',
    summary.requests, summary.duration, summary.bytes, latency:percentile(50),
    latency:percentile(95), latency:percentile(99), latency.max, e.status, total5xx,
    e.connect, e.read, e.write, e.timeout))
end
"""

LOG_LINE = re.compile(r" shop\.requests \d+ (GET|POST|HEAD) (\S+) (\d{3}) ([\d.]+)ms$")


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_environ(port, static_root):
    """Production settings for gunicorn on loopback http."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "GUNICORN_"))}
    environ.update(
        DJANGO_SETTINGS_MODULE="shop.settings",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
        DJANGO_SECURE_SSL_REDIRECT="0",
        DJANGO_SECURE_COOKIES="0",
        DJANGO_STATIC_ROOT=str(static_root),
        GUNICORN_BIND=f"127.0.0.1:{port}",
        MONGODB_NAME=os.environ["MONGODB_NAME"], **LOAD_FROM_ONE_ADDRESS,
        PYTHONPATH=str(BASE_DIR),
    )
    return environ


def catalog_targets(stock):
    """(category slugs, SKUs, search terms, kinds available) read through the models.

    On the local server the database ``shop_loadtest`` is emptied and loaded
    with the demo catalog, ``stock`` units per SKU; with ``MONGODB_URI`` the
    catalog there is read as it is.
    """
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shop.settings")
    os.environ.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(50))
    os.environ.setdefault("MONGODB_NAME", "shop_loadtest")
    import django

    django.setup()
    from django.conf import settings
    from django.db import connection
    from django.urls import NoReverseMatch, reverse

    from catalog.models import Category, Product
    from core.mongo import LOCAL, engine
    from shop.startup import prepare_local_database

    if engine() == LOCAL:
        # django.setup() opens no connection: ``connection.connection`` stays None until
        # the first query, so open it before dropping the database.
        connection.ensure_connection()
        connection.connection.drop_database(settings.DATABASES["default"]["NAME"])
        settings.INVENTORY_DEFAULT_STOCK = stock
        prepare_local_database()
    slugs = sorted(Category.objects.values_list("slug", flat=True))
    products = list(Product.objects.all())
    skus = sorted(p.sku for p in products)
    artists = sorted({p.details["artist"] for p in products if (p.details or {}).get("artist")})
    kinds = {"category": "/c/", "product": "/p/"}
    for kind, name in (("search", "catalog:search"), ("cart", "inventory:add")):
        try:
            kinds[kind] = reverse(name)
        except NoReverseMatch:
            pass
    if not (slugs and skus):
        sys.exit("The catalog is empty: run load_catalog first (MONGODB_URI).")
    return slugs, skus, artists[:80], kinds


def parse_mix(text):
    """``"category=35,product=40"`` -> ``{"category": 35, "product": 40}``; ValueError if bad."""
    mix = {}
    for part in text.split(","):
        kind, _, share = part.partition("=")
        if kind.strip() not in MIX or not share.strip().isdigit():
            raise ValueError(f"bad share {part!r}: use {','.join(MIX)} with whole numbers")
        mix[kind.strip()] = int(share)
    if not sum(mix.values()):
        raise ValueError("the shares add up to 0")
    return mix


def plan_requests(slugs, skus, artists, kinds, token, rng, mix, cart_skus):
    """PLAN_SIZE (method, path, body) triples in ``mix`` proportions, shuffled;
    add-to-cart requests name only ``cart_skus``."""
    shares = {kind: share for kind, share in mix.items() if kind in kinds and share}
    total = sum(shares.values())
    plan = []
    for kind, share in shares.items():
        for _ in range(PLAN_SIZE * share // total):
            if kind == "category":
                page = "?page=2" if rng.random() < 0.25 else ""
                plan.append(("GET", f"/c/{rng.choice(slugs)}/{page}", ""))
            elif kind == "product":
                plan.append(("GET", f"/p/{urllib.parse.quote(rng.choice(skus))}/", ""))
            elif kind == "search":
                query = urllib.parse.urlencode({"q": rng.choice(artists).split()[0]})
                plan.append(("GET", f"{kinds['search']}?{query}", ""))
            elif kind == "cart":
                body = urllib.parse.urlencode(
                    {"csrfmiddlewaretoken": token, "sku": rng.choice(cart_skus), "qty": 1})
                plan.append(("POST", kinds["cart"], body))
    rng.shuffle(plan)
    return plan


def lua_script(plan, token):
    rows = ",\n".join("{%s, %s, %s}" % tuple(json.dumps(v) for v in row) for row in plan)
    return LUA.replace("{PLAN}", "{\n" + rows + "\n}").replace("{TOKEN}", token)


def kind_of(path):
    for prefix, kind in (("/c/", "category"), ("/p/", "product"), ("/search/", "search"),
                         ("/cart/", "cart")):
        if path.startswith(prefix):
            return kind
    return "other"


def server_side(log_text):
    """{kind: (count, Counter of status classes, p50 ms, p95 ms)} from the request log."""
    durations, statuses = defaultdict(list), defaultdict(Counter)
    for line in log_text.splitlines():
        match = LOG_LINE.search(line)
        if not match or match.group(2) == "/healthz":
            continue
        kind = kind_of(match.group(2))
        durations[kind].append(float(match.group(4)))
        statuses[kind][match.group(3)[0] + "xx"] += 1
    table = {}
    for kind, values in durations.items():
        cuts = statistics.quantiles(values, n=100) if len(values) > 1 else values * 99
        table[kind] = (len(values), statuses[kind], cuts[49], cuts[94])
    return table


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=int, default=30, help="seconds of load (default 30)")
    parser.add_argument("--connections", type=int, default=16, help="open connections (16)")
    parser.add_argument("--threads", type=int, default=1, help="wrk threads (1)")
    parser.add_argument("--seed", type=int, default=7, help="random seed of the request plan")
    parser.add_argument("--cart-skus", type=int, default=10,
                        help="SKUs that add-to-cart requests go to (default 10)")
    parser.add_argument("--stock", type=int, default=20,
                        help="units of each SKU at start, local server (default 20)")
    parser.add_argument("--mix", default=",".join(f"{k}={v}" for k, v in MIX.items()),
                        help="shares of each kind of request (default %(default)s)")
    args = parser.parse_args()
    try:
        mix = parse_mix(args.mix)
    except ValueError as error:
        parser.error(str(error))
    if not 1 <= args.duration <= 600:
        parser.error("--duration must be 1..600 seconds")
    wrk = shutil.which("wrk")
    if not wrk:
        sys.exit("wrk is missing: apt-get install wrk (Debian).")

    slugs, skus, artists, kinds = catalog_targets(args.stock)
    token = "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(32))
    rng = random.Random(args.seed)
    cart_skus = sorted(rng.sample(skus, min(max(args.cart_skus, 1), len(skus))))
    plan = plan_requests(slugs, skus, artists, kinds, token, rng, mix, cart_skus)
    if not plan:
        sys.exit("Nothing to request: every kind in --mix is missing on this branch.")

    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    workdir = Path(tempfile.mkdtemp(prefix="shop-loadtest-"))
    port = free_port()
    environ = server_environ(port, workdir / "static")
    collected = subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput"],
                               cwd=BASE_DIR, env=environ, capture_output=True, text=True)
    if collected.returncode:
        sys.exit(f"collectstatic failed: {collected.stderr.strip()}")
    script = workdir / "mix.lua"
    script.write_text(lua_script(plan, token))

    log_path = RESULTS / f"gunicorn-{stamp}.log"
    with open(log_path, "w") as log:
        server = subprocess.Popen([GUNICORN, "-c", "gunicorn.conf.py"], cwd=BASE_DIR,
                                  env=environ, stdout=log, stderr=subprocess.STDOUT)
        try:
            health = wait_healthy(f"http://127.0.0.1:{port}/healthz", server)
            print(f"gunicorn on 127.0.0.1:{port}, engine {health['engine']}; "
                  f"mix: {', '.join(f'{k} {v}' for k, v in mix.items() if k in kinds and v)} "
                  f"({len(slugs)} categories, {len(skus)} SKUs); wrk -t{args.threads} "
                  f"-c{args.connections} -d{args.duration}s", flush=True)
            run = subprocess.run(
                [wrk, f"-t{args.threads}", f"-c{args.connections}", f"-d{args.duration}s",
                 "--timeout", "10s", "-s", str(script), f"http://127.0.0.1:{port}"],
                capture_output=True, text=True, timeout=args.duration + 120)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=120)
    figures = next((json.loads(line.split(" ", 1)[1]) for line in run.stdout.splitlines()
                    if line.startswith("WRK-JSON ")), None)
    if figures is None:
        sys.exit(f"wrk printed no figures:\n{run.stdout}\n{run.stderr}")

    seconds = figures["duration_us"] / 1e6
    lines = [
        f"requests:        {figures['requests']} in {seconds:.1f} s = "
        f"{figures['requests'] / seconds:.0f} requests/s",
        f"latency (wrk):   p50 {figures['p50_us'] / 1000:.1f} ms, p95 "
        f"{figures['p95_us'] / 1000:.1f} ms, p99 {figures['p99_us'] / 1000:.1f} ms, "
        f"max {figures['max_us'] / 1000:.1f} ms",
        f"not 2xx/3xx:     {figures['non_2xx_3xx']} (5xx: {figures['status_5xx']}); socket "
        f"errors: connect {figures['connect']}, read {figures['read']}, write "
        f"{figures['write']}, timeout {figures['timeout']}",
        "server side (request log):",
    ]
    for kind, (count, statuses, p50, p95) in sorted(server_side(log_path.read_text()).items()):
        classes = ", ".join(f"{c} {n}" for c, n in sorted(statuses.items()))
        lines.append(f"  {kind:<9} {count:>7} requests ({classes}); p50 {p50:.1f} ms, p95 {p95:.1f} ms")
    missing = [k for k in mix if mix[k] and k not in kinds]
    if missing:
        lines.append(f"left out (no such page on this branch): {', '.join(missing)}")

    check = subprocess.run([sys.executable, "manage.py", "check_inventory"], cwd=BASE_DIR,
                           env=environ, capture_output=True, text=True)
    if "Unknown command" in check.stderr:
        status, output = "absent", "check_inventory does not exist on this branch.\n"
    else:
        status, output = str(check.returncode), check.stdout + check.stderr
    if "cart" in kinds:
        from inventory.models import Inventory

        rows = list(Inventory.objects.filter(sku__in=cart_skus))
        output += (f"\n{len(rows)} add-to-cart SKUs: {sum(r.stocked for r in rows)} units stocked, "
                   f"{sum(e.qty for r in rows for e in r.carted)} reserved in carts, "
                   f"{sum(r.qty for r in rows)} still available.")
    lines.append(f"check_inventory: {output.strip()}")
    lines.append(f"gunicorn log:    {log_path.relative_to(BASE_DIR)}")
    text = "\n".join(lines)
    print(text)
    (RESULTS / f"loadtest-{stamp}.txt").write_text(text + "\n")
    shutil.rmtree(workdir, ignore_errors=True)
    return 1 if figures["status_5xx"] or status not in ("0", "absent") else 0


if __name__ == "__main__":
    sys.exit(main())
