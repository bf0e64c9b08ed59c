"""No default password in production (shop/staffpasswords.py, shop/startup.py): with DEBUG off the
shop refuses to start while a staff account accepts a common password, in one line saying what to
do; SHOP_ADMIN_PASSWORD sets the password at every start."""

import subprocess
import sys

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db import connections

from core import mongo
from shop import startup
from shop.staffpasswords import COLLECTION, WeakStaffPassword, check_staff_passwords
from shop.startup import prepare_local_database
from tests.shop.test_serving import BASE_DIR, production_environ

User = get_user_model()


@pytest.fixture
def production(settings):
    settings.DEBUG = False


def test_admin_admin_refuses_the_start(production):
    User.objects.create_superuser("admin", "", "admin")
    with pytest.raises(WeakStaffPassword) as refused:
        check_staff_passwords()
    message = str(refused.value)
    assert "\n" not in message
    assert "'admin' has a common password" in message and "manage.py changepassword admin" in message


def test_any_common_password_set_for_staff_refuses_the_start(production):
    clerk = User.objects.create_user("clerk", is_staff=True)
    clerk.set_password("Zxcvbnm")  # on Django's list, far down (case does not matter)
    clerk.save()
    with pytest.raises(WeakStaffPassword):
        check_staff_passwords()


def test_a_staff_account_made_with_create_user_is_tried_at_the_start(production):
    User.objects.create_user("clerk", password="qwerty", is_staff=True)
    with pytest.raises(WeakStaffPassword):
        check_staff_passwords()


def test_strong_staff_passwords_and_weak_shoppers_start(production):
    User.objects.create_superuser("admin", "", "a-Long-unlisted-passphrase-9")
    User.objects.create_user("ada@example.com", password="password")  # a shopper: not staff
    User.objects.create_user("gone", password="password", is_staff=True, is_active=False)
    check_staff_passwords()


def test_a_new_password_lifts_the_refusal(production):
    admin = User.objects.create_superuser("admin", "", "admin")
    admin.set_password("a-Long-unlisted-passphrase-9")
    admin.save()
    check_staff_passwords()


def test_debug_starts_with_admin_admin(settings):
    settings.DEBUG = True
    User.objects.create_superuser("admin", "", "admin")
    check_staff_passwords()


def test_a_password_set_around_django_is_tried_at_the_start(production):
    """No verdict for the current hash (set before the check existed): tried against the
    username and "admin", then judged once."""
    admin = User.objects.create_superuser("admin", "", "a-Long-unlisted-passphrase-9")
    connections["default"].get_collection(COLLECTION).delete_many({})
    User.objects.filter(pk=admin.pk).update(password=make_password("admin"))
    with pytest.raises(WeakStaffPassword):
        check_staff_passwords()


@pytest.fixture
def local(monkeypatch, settings, tmp_path):
    monkeypatch.setattr(startup, "engine", lambda: mongo.LOCAL)
    settings.SHOP_LOCAL_DB_DIR = tmp_path
    settings.SHOP_LOAD_DEMO_CATALOG = False


def test_shop_admin_password_is_set_at_every_start(local, settings):
    User.objects.create_superuser("admin", "", "admin")  # left by a DEBUG start
    settings.DEBUG = False
    settings.SHOP_ADMIN_USERNAME, settings.SHOP_ADMIN_PASSWORD = "", "a-Long-unlisted-passphrase-9"
    prepare_local_database()
    assert User.objects.get(username="admin").check_password("a-Long-unlisted-passphrase-9")
    check_staff_passwords()


def test_the_production_start_refuses_in_one_line(production, settings):
    """The real start: importing the WSGI application with DEBUG off on data holding admin/admin
    (its password set as a DEBUG start sets it, so that its verdict is recorded: the process
    started has production's hashers, not the tests' MD5, to try it with)."""
    admin = User.objects.create_superuser("admin", "", None)
    admin.set_password("admin")
    admin.save()
    environ = production_environ(MONGODB_NAME=connections["default"].settings_dict["NAME"],
                                 SHOP_DATABASE_PREPARED="1", PAYMENT_RECONCILE_INTERVAL="0")
    done = subprocess.run([sys.executable, "-c", "import shop.wsgi"], cwd=BASE_DIR, env=environ,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert ("The shop cannot start: staff account 'admin' has a common password; "
            "set another with `python manage.py changepassword admin`") in done.stderr
