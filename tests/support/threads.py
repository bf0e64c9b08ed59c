"""Running code from several threads at once: the tests' one harness for races.

``run_together(*calls)`` starts one thread per call, releases them together
through a barrier (so they really overlap), waits for all of them, and gives
back what each returned, in order; an exception raised in a thread is raised
again in the test, so a race that fails a thread fails the test.
"""

import threading

#: How long a test waits for its threads, in seconds: generous (a loaded CI machine), a
#: bound on a hang, not on speed.
JOIN_TIMEOUT = 120


class ThreadFailed(AssertionError):
    """A thread of ``run_together`` raised; ``__cause__`` is its exception."""


def run_together(*calls, timeout=JOIN_TIMEOUT):
    """Call each of ``calls`` (callables without arguments) in a thread of its own, all started
    together; returns their results, in the order of ``calls``.

    Raises ``ThreadFailed`` from the first exception a thread raised (the others still ran to
    their end), or when a thread is still running after ``timeout`` seconds.
    """
    barrier = threading.Barrier(len(calls))
    results, errors = [None] * len(calls), [None] * len(calls)

    def run(index, call):
        try:
            barrier.wait()
            results[index] = call()
        except BaseException as error:  # noqa: BLE001 - raised again in the test below
            errors[index] = error

    threads = [threading.Thread(target=run, args=(index, call), daemon=True) for index, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    if any(thread.is_alive() for thread in threads):
        raise ThreadFailed(f"a thread was still running after {timeout} s")
    for error in errors:
        if error is not None:
            raise ThreadFailed(f"a thread raised {error!r}") from error
    return results


def run_many(call, count, timeout=JOIN_TIMEOUT):
    """``run_together`` with ``count`` threads each calling ``call(number)``, ``number`` from 0;
    returns their results in that order."""
    return run_together(*[lambda number=number: call(number) for number in range(count)], timeout=timeout)


def save_during_a_count(monkeypatch, save, *, count, keep, shift, before_save=None):
    """Make the next count of kept figures run while a product's ``save`` (a callable without
    arguments) runs in another thread, written before the count reads anything: the race a
    reader's second read of the versions guards (a count holding the save must not be kept at
    the versions from before it, which the save then moves by its change: moved twice).

    ``count``: ``(owner, name)`` of what the reader calls to count, after reading the versions
    (the save starts there, and the count goes on once the product is written);
    ``keep``: ``(owner, name)`` of what it calls around keeping its count (kept or not);
    ``shift``: the save's ``ClaimedShift`` class, whose ``finish`` (the final claim and the move)
    waits until the reader is done keeping; ``before_save``: called once, just before the save
    starts. Returns a function that waits for the save's thread and raises ``ThreadFailed`` if
    it raised or is still running."""
    written, kept, saves, errors = threading.Event(), threading.Event(), [], []
    counting, keeping, finish = getattr(*count), getattr(*keep), shift.finish

    def saving():
        try:
            save()
        except BaseException as error:  # noqa: BLE001 - raised again by the returned join
            errors.append(error)
            written.set()

    def count_while_saving(*args, **kwargs):
        if not saves:
            if before_save is not None:
                before_save()
            saves.append(threading.Thread(target=saving, daemon=True))
            saves[0].start()
            assert written.wait(JOIN_TIMEOUT)
        return counting(*args, **kwargs)

    def keep_then_tell(*args, **kwargs):
        try:
            return keeping(*args, **kwargs)
        finally:
            kept.set()

    def finish_after_the_reader(self):
        written.set()  # the product is written: the reader's count holds it
        kept.wait(JOIN_TIMEOUT)
        return finish(self)

    monkeypatch.setattr(*count, count_while_saving)
    monkeypatch.setattr(*keep, keep_then_tell)
    monkeypatch.setattr(shift, "finish", finish_after_the_reader)

    def join():
        assert saves, "no count ran"
        saves[0].join(JOIN_TIMEOUT)
        if saves[0].is_alive():
            raise ThreadFailed(f"the save was still running after {JOIN_TIMEOUT} s")
        if errors:
            raise ThreadFailed(f"the save raised {errors[0]!r}") from errors[0]

    return join
