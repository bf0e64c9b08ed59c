"""Order numbers: short, allocated atomically from a counter, free of look-alike characters.

The counter document ``counters {_id: "order_number", seq}`` is raised by one
``find_one_and_update`` with ``$inc`` (created on first use), so every
allocation gets its own number, never reused. The number is written in
Crockford's base 32 (digits and letters without I, L, O, U: nothing to
mistake for 1, 0 or V), at least ``WIDTH`` characters, after ``PREFIX``: the
first order is ``CR-00001``, the 33,554,432nd ``CR-100000``.
"""

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
PREFIX = "CR-"
WIDTH = 5


def encode(value):
    """``value`` (int >= 0) in Crockford base 32, upper case, zero-padded to ``WIDTH``."""
    if value < 0:
        raise ValueError("An order sequence number cannot be negative.")
    digits = []
    while True:
        value, rest = divmod(value, 32)
        digits.append(ALPHABET[rest])
        if not value:
            break
    return "".join(reversed(digits)).rjust(WIDTH, "0")


def format_number(sequence):
    """The order number of counter value ``sequence`` (int >= 1), e.g. ``CR-0000Z``."""
    return PREFIX + encode(sequence)


def normalize(text):
    """A typed order number as stored: upper case, Crockford's look-alikes read as digits.

    ``cr-0000o`` -> ``CR-00000``; ``I``/``L`` -> ``1``. Returns "" for text
    that cannot be an order number.
    """
    text = str(text).strip().upper()
    if not text.startswith(PREFIX):
        return ""
    body = text[len(PREFIX):].replace("O", "0").replace("I", "1").replace("L", "1")
    if not body or len(body) > 12 or any(char not in ALPHABET for char in body):
        return ""
    return PREFIX + body
