"""Lighthouse scores of the storefront in production settings: home, category, product, cart, checkout.

    npm install --prefix /tmp/lh lighthouse          # once, outside the project (not in package.json)
    .venv/bin/python bench/lighthouse.py [--presets mobile,desktop] [--runs 1] [--workdir DIR]
                                         [--lighthouse /tmp/lh/node_modules/.bin/lighthouse]

Starts the shop as ``bench/demo_shop.py`` does (gunicorn, DEBUG off, WhiteNoise's
compressed static files, the demo catalog on a local database of its own, loaded at the
first run in ``--workdir``: a few minutes; later runs reuse it), requests each page once
(its caches warm, as a shopper finds them), then runs Lighthouse with Debian's Chromium
(``CHROME_PATH``, default ``command -v chromium``; ``--headless=new --no-sandbox``) on
each page with each preset: ``mobile`` (Lighthouse's default: a phone, simulated slow 4G
and a 4x slower CPU) and ``desktop`` (``--preset=desktop``). The cart and checkout pages
are measured with a guest cart of two lines (an album's vinyl and another album), its
session cookie sent by Lighthouse (``--extra-headers``). With ``--runs N`` each page is
measured N times and the run with the median performance score kept (Lighthouse's own
advice: the performance score varies from run to run on a busy machine).

Prints one line per page and preset with the four scores (performance, accessibility,
best practices, SEO), and under it every audit that cost points; the JSON reports go to
``bench/results/lighthouse/``. Exits 1 when any score is below 100. Not part of the tests
or CI: a measurement by hand, written in docs/performance.md.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))

from bench.demo_shop import CART_SKUS, PAGES, DemoShop  # noqa: E402

RESULTS = BASE_DIR / "bench" / "results"
CATEGORIES = ["performance", "accessibility", "best-practices", "seo"]
#: Pages drawn with a cart in the session.
WITH_CART = {"cart", "checkout"}


def lighthouse_version(binary):
    """The installed Lighthouse's version (str)."""
    return subprocess.run([binary, "--version"], capture_output=True, text=True, check=True).stdout.strip()


def run_lighthouse(binary, chrome, url, preset, cookie, report_path):
    """One Lighthouse run of ``url`` with ``preset`` (``mobile`` or ``desktop``), sending ``cookie``
    (a ``Cookie`` header value, or None): the report (dict), also written to ``report_path``.
    Raises ``RuntimeError`` with Lighthouse's last output lines when it fails."""
    args = [binary, url, "--output=json", f"--output-path={report_path}", "--quiet",
            f"--only-categories={','.join(CATEGORIES)}",
            "--chrome-flags=--headless=new --no-sandbox --disable-dev-shm-usage"]
    if preset == "desktop":
        args.append("--preset=desktop")
    if cookie:
        args.append("--extra-headers=" + json.dumps({"Cookie": cookie}))
    for _attempt in range(3):  # Lighthouse sometimes loses the trace (NO_NAVSTART): again
        report_path.unlink(missing_ok=True)
        done = subprocess.run(args, env={**os.environ, "CHROME_PATH": chrome}, capture_output=True,
                              text=True, timeout=600)
        if not done.returncode and report_path.exists():
            break
    if done.returncode or not report_path.exists():
        raise RuntimeError(f"lighthouse failed on {url}: {(done.stderr or done.stdout)[-1500:]}")
    return json.loads(report_path.read_text())


def scores(report):
    """``{category: score 0-100}`` of a Lighthouse report (None where it could not score)."""
    return {name: (None if report["categories"][name]["score"] is None
                   else round(report["categories"][name]["score"] * 100)) for name in CATEGORIES}


def lost_points(report):
    """The audits that cost points: ``["category: audit id (score) title", ...]``."""
    lost = []
    for name in CATEGORIES:
        for ref in report["categories"][name]["auditRefs"]:
            audit = report["audits"][ref["id"]]
            if ref["weight"] and audit["score"] is not None and audit["score"] < 1:
                shown = audit.get("displayValue") or ""
                lost.append(f"{name}: {ref['id']} ({audit['score']:.2f}) {audit['title']} {shown}".rstrip())
    return lost


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", default="mobile,desktop", help="mobile, desktop or both (default)")
    parser.add_argument("--runs", type=int, default=1, help="runs per page and preset; the median kept")
    parser.add_argument("--pages", default=",".join(name for name, _ in PAGES),
                        help="pages to measure (default: all of %(default)s)")
    parser.add_argument("--workdir", default=str(RESULTS / "demo-shop"),
                        help="the demo shop's database and files, reused by later runs (default %(default)s)")
    parser.add_argument("--lighthouse", default=os.environ.get("LIGHTHOUSE", "/tmp/lh/node_modules/.bin/lighthouse"),
                        help="the lighthouse command (default %(default)s; env LIGHTHOUSE)")
    options = parser.parse_args()
    chrome = os.environ.get("CHROME_PATH") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not Path(options.lighthouse).exists() and not shutil.which(options.lighthouse):
        sys.exit(f"No lighthouse at {options.lighthouse}: npm install --prefix /tmp/lh lighthouse")
    if not chrome:
        sys.exit("No Chromium: apt-get install chromium (or set CHROME_PATH)")
    presets = [p.strip() for p in options.presets.split(",") if p.strip()]
    if set(presets) - {"mobile", "desktop"} or not presets:
        sys.exit("--presets: mobile, desktop or both")
    wanted = [(name, path) for name, path in PAGES if name in options.pages.split(",")]
    if not wanted:
        sys.exit(f"--pages: some of {', '.join(name for name, _ in PAGES)}")
    out = RESULTS / "lighthouse"
    out.mkdir(parents=True, exist_ok=True)
    version = lighthouse_version(options.lighthouse)
    print(f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, Lighthouse {version}, "
          f"{subprocess.run([chrome, '--version'], capture_output=True, text=True).stdout.strip()}, "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    failed = False
    with DemoShop(options.workdir) as shop:
        for preset in presets:
            cookie = shop.cart_cookie(CART_SKUS) if WITH_CART & {name for name, _ in wanted} else None
            for name, path in wanted:
                sent = cookie if name in WITH_CART else None
                status = shop.get(path)[0]  # its caches warmed (checkout without a cart: the cart)
                if status != 200:
                    sys.exit(f"{path} answered {status}")
                runs = []
                for run in range(options.runs):
                    report = run_lighthouse(options.lighthouse, chrome, shop.base + path, preset, sent,
                                            out / f"{name}-{preset}-{run + 1}.json")
                    runs.append((scores(report)["performance"] or 0, run, report))
                median = statistics.median_low([r[0] for r in runs])
                report = next(r[2] for r in runs if r[0] == median)
                got = scores(report)
                failed |= any(value != 100 for value in got.values())
                print(f"| {preset} | {name} `{path}` | " + " | ".join(str(got[c]) for c in CATEGORIES) + " |",
                      flush=True)
                for line in lost_points(report):
                    print(f"      {line}", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
