"""The shop's kernel: what every app shares and no app owns.

The MongoDB layer (``core.mongo``: the Django backend, the local server,
indexes, sharding), the clock, money and its template filter, progress bars,
the command log, server-side sessions, the client's address, the request log
and the 503 answers while the database is down. The kernel imports no app of
the shop; the project package ``shop`` (settings, URLs, WSGI, start-up) and
the apps import it.
"""
