"""Server-side sessions that end: ``SESSION_ENGINE = "core.sessions"``.

Django's database session store (``django.contrib.sessions.backends.db``,
the ``django_session`` collection through django-mongodb-backend) with one
change: a session that ends (sign-out, or the new key a sign-in gets) is
not deleted at once but replaced by a marker, ``ENDED``, kept for
``settings.SESSION_ENDED_GRACE`` seconds. Why:

- Sign-out ends the session everywhere: the session lives on the server,
  so a cookie copied before sign-out opens nothing after it (it names an
  ended session: no user, no cart).
- A late answer of another tab cannot bring a guest session back. At
  sign-in Django gives the session a new key and ends the old one. A
  request of another tab sent with the old cookie just before (an add to
  the cart) is answered after that. With Django's plain store it found no
  session, started a new guest session and answered with its cookie, which
  replaced the signed-in one: the shopper was silently signed out and the
  line sat in a new guest cart; or, finding the session empty, its answer
  deleted the cookie. Here it finds the ``ENDED`` marker: the request is
  a guest's, its answer sets or deletes no cookie, a change it makes
  (``save``) is refused with Django's ``SessionInterrupted`` (the page
  ``session_ended.html``, ``bad_request`` below), and ``SessionMiddleware``
  refuses a POST with an ended session before its view runs (nothing
  changed) and never sends a cookie for a key the request already had.
- An update never writes into an ended session: it is one conditional
  update on ``session_data != ENDED``, so a request that loaded the session
  before it ended and saves after cannot revive it.

After the grace period the marker is an expired session (``clearsessions``,
for cron, deletes it) and the cookie is treated as Django treats any
unknown key. Every query is a plain ORM read or update by ``session_key``.
"""

from datetime import timedelta

from django.conf import settings
from django.contrib.sessions.backends.base import UpdateError
from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore
from django.contrib.sessions.exceptions import SessionInterrupted
from django.contrib.sessions.middleware import SessionMiddleware as DjangoSessionMiddleware
from django.shortcuts import render
from django.utils import timezone
from django.views import defaults

#: The ``session_data`` of an ended session: never what ``encode()`` writes (signed data).
ENDED = "!ended"
#: Methods that change nothing: an ended session may still read a page with them.
SAFE_METHODS = ("GET", "HEAD", "OPTIONS", "TRACE")


class SessionStore(DatabaseSessionStore):
    """Django's database session store whose ended sessions stay ended (see the module).

    ``ended`` is True once ``load`` found the ``ENDED`` marker: the session is
    then empty (a guest's), keeps its key, and cannot be saved.
    """

    ended = False

    def _get_session_from_db(self):
        """The session's row, or None: not found (the key is dropped, as Django does) or
        ended (the key is kept and ``ended`` set). One read by ``session_key``."""
        found = super()._get_session_from_db()
        if found is not None and found.session_data == ENDED:
            self.ended = True
            return None
        return found

    def is_ended(self):
        """Whether the request's cookie names a session that ended within the grace period
        (loads the session if not loaded yet: one read, shared with the rest of the request)."""
        if self.session_key is None:
            return False
        self._get_session()
        return self.ended

    def create(self):
        """A new session with a new key (Django's, one read and one insert); never ended."""
        self.ended = False
        super().create()

    def save(self, must_create=False):
        """Write the session: an insert for a new one (Django's), else one conditional update.

        The update matches only this key while it is not ``ENDED``; it raises
        ``UpdateError`` (which Django's SessionMiddleware turns into
        ``SessionInterrupted``) when the session ended (in this request or
        since it was loaded) or is gone.
        """
        if self.session_key is None or must_create:
            return super().save(must_create=must_create)
        if self.ended:
            raise UpdateError
        data = self._get_session(no_load=False)
        updated = (
            self.model.objects.filter(session_key=self.session_key)
            .exclude(session_data=ENDED)
            .update(session_data=self.encode(data), expire_date=self.get_expiry_date())
        )
        if not updated:
            raise UpdateError

    def delete(self, session_key=None):
        """End the session ``session_key`` (default: this one): its data is replaced by
        ``ENDED`` for ``settings.SESSION_ENDED_GRACE`` seconds (one update; nothing for an
        unknown key). Called by ``flush()`` (sign-out) and ``cycle_key()`` (sign-in)."""
        if session_key is None:
            session_key = self.session_key
        if session_key is None:
            return
        until = timezone.now() + timedelta(seconds=settings.SESSION_ENDED_GRACE)
        self.model.objects.filter(session_key=session_key).update(session_data=ENDED, expire_date=until)


class SessionMiddleware(DjangoSessionMiddleware):
    """Django's SessionMiddleware (it replaces it in ``MIDDLEWARE``) with two changes.

    - A change (POST...) sent with a session that has just ended is refused
      before any view: it was sent by another tab just before a sign-in or
      sign-out there, and answering it would act in a session that no longer
      exists (an add to a guest cart that was just merged). It gets the
      page ``session_ended.html`` (409) and no cookie; nothing is changed.
      Costs nothing more: a POST reads its session anyway, and requests
      without a session cookie are not looked at.
    - The session cookie is sent only when the session gets a new key (its
      first write, sign-in), never again for the key the request brought.
      So an answer can never put back a key that another tab's sign-in
      ended meanwhile, however late it arrives: the browser keeps the newest
      key. The cookie thus lasts ``SESSION_COOKIE_AGE`` from the sign-in (or
      the first add to the cart) rather than from the last change.
    """

    def process_request(self, request):
        super().process_request(request)
        if (request.method not in SAFE_METHODS
                and settings.SESSION_COOKIE_NAME in request.COOKIES
                and request.session.is_ended()):
            return session_ended(request, changed=False)
        return None

    def process_response(self, request, response):
        response = super().process_response(request, response)
        name = settings.SESSION_COOKIE_NAME
        sent = response.cookies.get(name)
        if sent is not None and sent.value and sent.value == request.COOKIES.get(name):
            del response.cookies[name]
        return response


def session_ended(request, changed):
    """The page for a request whose session ended in another tab meanwhile (status 409).

    ``changed`` False: the request was refused before doing anything;
    True: it ran, but its session could not be saved (``SessionInterrupted``).
    """
    return render(request, "session_ended.html", {"changed": changed}, status=409)


def bad_request(request, exception):
    """``handler400``: Django's 400 page (``400.html``), except for ``SessionInterrupted``
    (a session that ended while the request ran), which gets ``session_ended``."""
    if isinstance(exception, SessionInterrupted):
        return session_ended(request, changed=True)
    return defaults.bad_request(request, exception)
