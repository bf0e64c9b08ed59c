"""Production refuses to run on fakes: without Stripe's keys (or on the local fake Stripe, or
another provider) a start with DJANGO_DEBUG off stops with one line naming the setting, unless
SHOP_PAYMENTS_TEST_MODE=1 says it is a staging shop on purpose."""

import sys

import pytest

from shop.startup import payment_setup_problem
from tests.shop.test_serving import GUNICORN, free_port, production_environ, run

LIVE = {"STRIPE_SECRET_KEY": "sk_live_x", "STRIPE_PUBLISHABLE_KEY": "pk_live_x", "STRIPE_WEBHOOK_SECRET": "whsec_x"}


def stripped(**extra):
    environ = production_environ(**extra)
    for name in ("SHOP_PAYMENTS_TEST_MODE", *LIVE):
        environ.pop(name, None)
    environ.update(extra)
    return environ


def test_gunicorn_without_stripe_keys_exits_with_one_line(tmp_path):
    environ = stripped(GUNICORN_BIND=f"127.0.0.1:{free_port()}", SHOP_LOCAL_DB_DIR=str(tmp_path / "db"))
    result = run([GUNICORN, "-c", "gunicorn.conf.py"], environ, timeout=60)
    assert result.returncode == 1
    lines = [line for line in result.stderr.splitlines() if "cannot start" in line]
    assert len(lines) == 1 and "Set STRIPE_SECRET_KEY" in lines[0], result.stderr
    assert "Traceback" not in result.stderr


def test_runserver_without_stripe_keys_exits_with_one_line(tmp_path):
    environ = stripped(SHOP_LOCAL_DB_DIR=str(tmp_path / "db"))
    result = run([sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{free_port()}"],
                 environ, timeout=60)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1].startswith("CommandError: The shop cannot start: Set STRIPE_SECRET_KEY")
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("changes, setting", [
    ({"STRIPE_SECRET_KEY": ""}, "STRIPE_SECRET_KEY"),
    ({"STRIPE_SECRET_KEY": "sk_test_x"}, "STRIPE_SECRET_KEY is a test-mode key"),
    ({"STRIPE_PUBLISHABLE_KEY": ""}, "STRIPE_PUBLISHABLE_KEY"),
    ({"STRIPE_WEBHOOK_SECRET": ""}, "STRIPE_WEBHOOK_SECRET"),
    ({"PAYMENT_PROVIDER": "tests.orders.test_checkout_truth.NeverAnswersProvider"}, "PAYMENT_PROVIDER"),
])
def test_each_missing_or_fake_payment_setting_is_named(settings, changes, setting):
    settings.DEBUG, settings.SHOP_PAYMENTS_TEST_MODE = False, False
    for name, value in {**LIVE, "PAYMENT_PROVIDER": "orders.payments.StripeProvider", **changes}.items():
        setattr(settings, name, value)
    problem = payment_setup_problem()
    assert setting in problem and "\n" not in problem


def test_live_keys_or_a_staging_shop_or_development_start(settings):
    settings.DEBUG, settings.SHOP_PAYMENTS_TEST_MODE = False, False
    for name, value in LIVE.items():
        setattr(settings, name, value)
    assert payment_setup_problem() is None
    settings.STRIPE_SECRET_KEY = ""
    settings.SHOP_PAYMENTS_TEST_MODE = True  # staging, on purpose
    assert payment_setup_problem() is None
    settings.SHOP_PAYMENTS_TEST_MODE, settings.DEBUG = False, True
    assert payment_setup_problem() is None
