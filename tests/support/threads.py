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
