"""Page numbers from a request, bounded before any query, and Django's Paginator over them.

Every paginated storefront page (``/c/<slug>/``, ``/search/``, the genre,
artist, actor and deals pages) reads its ``?page=`` through
``page_number`` and pages through ``paginate``; the JSON API refuses a page
above ``MAX_PAGE`` with a 400 (``api.views``). A page number turns into a
``$skip`` of ``(page - 1) * per_page`` documents, and MongoDB's integers
are 64-bit: ``?page=999999999999999999999999999999`` used to reach pymongo
as a skip it cannot encode (``OverflowError: MongoDB can only handle up to
8-byte ints``), a 500. So the number is clamped to ``MAX_PAGE``
before any query is built, and Django's Paginator then clamps it to the
last page that exists.
"""

from django.core.paginator import Paginator

#: The highest page number any listing reads: 1,000,000 pages of 24 products is a
#: ``$skip`` of 24 million, far beyond any catalog and far below 2**63.
MAX_PAGE = 1_000_000


def clamp_page(number):
    """``number`` (an int, any size) bounded to ``1 .. MAX_PAGE``; returns an int."""
    return min(max(int(number), 1), MAX_PAGE)


def page_number(request, name="page"):
    """The ``?page=`` of ``request`` as an int in ``1 .. MAX_PAGE``.

    Anything that is not a whole number (missing, ``abc``, ``1.5``, a NUL)
    is page 1; below 1 is 1; above ``MAX_PAGE`` (however many digits) is
    ``MAX_PAGE``, which ``paginate`` then brings back to the last page.
    Never raises and never queries.
    """
    value = request.GET.get(name, "1")
    # int() of a string of thousands of digits is refused by Python itself (ValueError
    # past sys.get_int_max_str_digits()); a page number of more than 7 digits is above
    # MAX_PAGE whatever it says, so it is clamped without converting it.
    text = value.strip()
    if text.isascii() and text.isdigit() and len(text.lstrip("0")) > len(str(MAX_PAGE)):
        return MAX_PAGE
    try:
        return clamp_page(int(text))
    except (TypeError, ValueError):
        return 1


def paginate(items, number, per_page):
    """The page ``number`` of ``items`` (a sequence with ``len()`` and slices).

    ``number`` out of range gives the last page (Django's ``get_page``).
    Returns a ``django.core.paginator.Page`` with ``page.window``: the page
    numbers to link around it, ``Paginator.ELLIPSIS`` where some are left out.
    """
    page = Paginator(items, per_page).get_page(clamp_page(number))
    page.window = list(page.paginator.get_elided_page_range(page.number, on_each_side=2, on_ends=1))
    return page
