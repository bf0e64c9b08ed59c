"""While the database cannot be reached: a 503 in the shop's look (JSON under the API) with
``Retry-After``, never a 500; other errors keep their 500 (``core.unavailable``)."""

import pytest
from django.db import DatabaseError
from pymongo.errors import AutoReconnect, DuplicateKeyError, OperationFailure, ServerSelectionTimeoutError

from catalog.models import Product
from core.mongo.localserver import LocalServerError
from core.mongo.revive import is_unavailable, revive_soon
from tests.support.threads import run_many


def unreachable(*args, **kwargs):
    raise ServerSelectionTimeoutError("127.0.0.1:1: [Errno 111] Connection refused")


def test_a_page_whose_query_cannot_reach_the_database_answers_503_in_the_shops_look(client, monkeypatch):
    monkeypatch.setattr(Product.objects, "get_with_availability", unreachable)  # the product page's read
    answer = client.get("/p/CHK-0001/")
    assert answer.status_code == 503
    assert answer["Retry-After"] == "5" and answer["Cache-Control"] == "no-store"
    page = answer.content.decode()
    assert "Back in a moment" in page and 'class="site-header"' in page and "shop/shop.css" in page
    assert "Connection refused" not in page and "127.0.0.1" not in page  # nothing internal


def test_the_api_answers_a_json_503(client, monkeypatch):
    monkeypatch.setattr(Product.objects, "read_by_path", unreachable)  # the API's read
    answer = client.get("/api/v1/products/CHK-0001")
    assert answer.status_code == 503 and answer["Retry-After"] == "5"
    assert answer["Content-Type"] == "application/json"
    assert answer.json() == {"detail": "The shop's database is unavailable; try again shortly."}


class UnreachableInMiddleware:
    """A middleware whose own query cannot reach the database (as a session or an
    authentication read would): the error is raised outside any view."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        raise AutoReconnect("connection reset")


def test_an_error_outside_a_view_answers_503_through_handler500(client, settings):
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, f"{__name__}.UnreachableInMiddleware"]
    client.raise_request_exception = False
    answer = client.get("/")
    assert answer.status_code == 503 and answer["Retry-After"] == "5"
    assert "Back in a moment" in answer.content.decode()


def test_other_errors_keep_their_500(client, monkeypatch):
    def broken(sku):
        raise OperationFailure("bad query", code=2)

    monkeypatch.setattr(Product.objects, "get_with_availability", broken)
    client.raise_request_exception = False
    answer = client.get("/p/CHK-0001/")
    assert answer.status_code == 500 and "Something went wrong" in answer.content.decode()


@pytest.mark.parametrize("error, unavailable", [
    (ServerSelectionTimeoutError("no server"), True),
    (AutoReconnect("reset"), True),
    (LocalServerError("read-only"), True),
    (DuplicateKeyError("E11000"), False),
    (OperationFailure("bad", code=2), False),
    (ValueError("x"), False),
])
def test_which_errors_mean_the_database_is_unreachable(error, unavailable):
    assert is_unavailable(error) is unavailable
    try:
        try:
            raise error
        except Exception as cause:
            raise DatabaseError("wrapped") from cause
    except DatabaseError as wrapped:
        assert is_unavailable(wrapped) is unavailable


def test_nothing_is_started_for_a_mongodb_uri():
    # The test run's database is MONGODB_URI (a server the shop does not run).
    assert revive_soon() is None


def test_threads_that_find_the_local_server_gone_start_it_once(monkeypatch):
    """Eight request threads of one process notice at once: one restart thread, one start."""
    import threading
    import time

    from django.db import connections

    import core.mongo.revive as revive

    starts = []
    release = threading.Event()

    def slow_start(data_dir):
        starts.append(data_dir)
        release.wait(5)

    with monkeypatch.context() as patch:  # undone before the test's database flush
        patch.setattr(type(connections["default"]), "is_local", property(lambda self: True))
        patch.setattr(revive, "_restart", slow_start)
        patch.setattr(revive, "_thread", None)
        patch.setattr(revive, "_last_attempt", 0.0)
        results = run_many(lambda _number: revive_soon(), 8)
        started = [r for r in results if r is not None]
        assert len(started) == 1 and results.count(None) == 7
        release.set()
        started[0].join(5)
        assert len(starts) == 1
        assert revive_soon() is None  # within RETRY_SECONDS of the last attempt: not again
        patch.setattr(revive, "_last_attempt", time.monotonic() - revive.RETRY_SECONDS)
        again = revive_soon()
        assert again is not None
        again.join(5)
        assert len(starts) == 2


def test_a_forked_worker_does_not_inherit_a_held_restart_lock():
    """gunicorn forks its workers from the master: a lock held by a thread of the master at
    that moment must not stay held for ever in the worker (that thread is not there)."""
    import os

    import core.mongo.revive as revive

    with revive._lock:
        pid = os.fork()
        if pid == 0:  # the child: only the lock, then out
            os._exit(0 if revive._lock.acquire(timeout=2) and revive._thread is None else 1)
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
