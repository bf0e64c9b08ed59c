"""What a discount code does to a priced cart: whether it applies, and the amounts it takes off.

``check(voucher, priced, context)`` says why a code cannot be used (``Refusal``),
``apply(priced, context)`` is the body of ``orders.pricing._discounts``: it
reads the context's codes (one read, ``Voucher.objects.by_codes``), takes
each usable one's benefit off the lines it applies to, apportioned pro rata
by their net amounts (``core.money.apportion``, the remainder on the last
line), and records it on ``priced.discounts`` as applied. All amounts are
integer cents; a percent is rounded half up once per code.
"""

from core import clock
from core.money import apportion, display

from .giftcards import is_gift_card
from .models import Offer, Voucher, normalize

WRONG, EXPIRED, USED_UP, NOT_APPLICABLE, NOT_COMBINABLE = (
    "wrong", "expired", "used_up", "not_applicable", "not_combinable")

MESSAGES = {
    WRONG: "There is no discount code {code}. Check the spelling.",
    EXPIRED: "The discount code {code} is not valid now (it has expired or not started yet).",
    USED_UP: "The discount code {code} has been used up.",
    NOT_APPLICABLE: "The discount code {code} does not apply to this cart{detail}.",
    NOT_COMBINABLE: "The discount code {code} cannot be combined with another code.",
}


class Refusal(Exception):
    """A code that cannot be used: ``code``, ``reason`` (one of ``WRONG``, ``EXPIRED``,
    ``USED_UP``, ``NOT_APPLICABLE``, ``NOT_COMBINABLE``); ``str()`` says which, for the shopper."""

    def __init__(self, code, reason, detail=""):
        self.code, self.reason = code, reason
        super().__init__(MESSAGES[reason].format(code=code, detail=detail))


def _as_set(values):
    return {str(value) for value in values or ()}


def matches(voucher, line):
    """True when the priced ``line`` (``PricedLine``) is in ``voucher``'s range (a raw document):
    included (no include list at all means every line) and not excluded. Categories match
    their whole subtree through the line's ``listed_in`` (its categories and their ancestors).
    A gift card sold (``giftcards.is_gift_card``) is in no range."""
    def hit(prefix):
        return (bool(_as_set(voucher.get(f"{prefix}_categories")) & _as_set(line.listed_in))
                or line.product_type in _as_set(voucher.get(f"{prefix}_types"))
                or str(line.product_id) in _as_set(voucher.get(f"{prefix}_products"))
                or line.sku in _as_set(voucher.get(f"{prefix}_skus")))

    if is_gift_card(line.product_type):  # no discount on a gift card sold (it is money)
        return False
    included = any(voucher.get(f"include_{name}") for name in ("categories", "types", "products", "skus"))
    return (hit("include") if included else True) and not hit("exclude")


def check(voucher, priced, at=None):
    """Raise ``Refusal`` when ``voucher`` (a raw document, or None for an unknown code) cannot be
    used on ``priced`` (``pricing.Priced``, its lines priced) at ``at`` (UTC, default now):
    expired or not started, used up (``used >= limit``), below its minimum order, or no line in
    its range. Returns the matching lines. Reads nothing (the once-per-customer check is
    ``Voucher.objects.used_by`` on the cart page and the claim itself at checkout)."""
    if voucher is None:
        raise Refusal("", WRONG)
    code = voucher["code"]
    at = at or clock.now()
    if (voucher.get("starts_at") and clock.aware(voucher["starts_at"]) > at) or (
            voucher.get("ends_at") and clock.aware(voucher["ends_at"]) <= at):
        raise Refusal(code, EXPIRED)
    if voucher.get("used", 0) >= voucher.get("limit", 1):
        raise Refusal(code, USED_UP)
    if priced.subtotal < voucher.get("min_order", 0):
        raise Refusal(code, NOT_APPLICABLE, f" (it needs a subtotal of {display(voucher['min_order'])})")
    lines = [line for line in priced.lines if matches(voucher, line)]
    if not lines:
        raise Refusal(code, NOT_APPLICABLE, " (none of its items is in the offer)")
    return lines


def _offer_lines(offer, priced, at):
    """The lines of ``priced`` an offer (raw document) applies to, or [] (below its minimum)."""
    if priced.subtotal < offer.get("min_order", 0):
        return []
    return [line for line in priced.lines if matches(offer, line)]


def _units(lines):
    """Each unit of ``lines`` as ``(unit net cents, line index)``, dearest first (a line's net
    spread over its units, the remainder on its first units)."""
    units = []
    for index, line in enumerate(lines):
        base, extra = divmod(line.net, line.qty) if line.qty else (0, 0)
        units.extend((base + (1 if n < extra else 0), index) for n in range(line.qty))
    return sorted(units, key=lambda unit: -unit[0])


def _set_discounts(offer, lines):
    """Per line (list of cents, in ``lines``' order) what a multibuy or fixed-price offer
    takes off. Multibuy: of all units in range, ``sets x (quantity - pay)`` of the cheapest are
    free, each line losing its own free units' prices. Fixed price: the units, dearest first,
    in sets of ``quantity``; a set costing more than ``value`` loses the difference,
    apportioned over its units by their prices."""
    shares = [0] * len(lines)
    quantity = int(offer.get("quantity") or 0)
    units = _units(lines)
    if quantity <= 0 or len(units) < quantity:
        return shares
    sets = len(units) // quantity
    if offer["benefit"] == Offer.MULTIBUY:
        free = sets * max(0, quantity - int(offer.get("pay") or 0))
        for amount, index in units[len(units) - free:]:
            shares[index] += amount
        return shares
    for number in range(sets):
        group = units[number * quantity:(number + 1) * quantity]
        over = sum(amount for amount, _ in group) - int(offer.get("value") or 0)
        if over > 0:
            for (amount, index), share in zip(group, apportion(over, [amount for amount, _ in group])):
                shares[index] += share
    return shares


def _take_off(priced, rule, lines, code=""):
    """Apply ``rule``'s benefit (a voucher or offer, raw) to ``lines``; the entry as applied
    (``{"code", "name", "kind", "amount"}``) or None when it takes nothing off."""
    entry = {"code": code, "name": rule["name"], "kind": rule["benefit"], "amount": 0}
    if rule["benefit"] == Voucher.FREE_SHIPPING:
        priced.free_shipping = True
        priced.discounts.append(entry)
        return entry
    if rule["benefit"] in (Offer.MULTIBUY, Offer.FIXED_PRICE):
        shares = _set_discounts(rule, lines)
    else:
        amount = _amount(rule, lines)
        shares = apportion(amount, [line.net for line in lines]) if amount > 0 else []
    if sum(shares) <= 0:
        return None
    for line, share in zip(lines, shares):
        if share:
            line.discount += share
            line.discounts.append((rule["name"], share))
    entry["amount"] = sum(shares)
    priced.discounts.append(entry)
    return entry


def apply_offers(priced, at):
    """Apply the live automatic offers (``Offer.objects.live``, one read) to ``priced``, highest
    priority first; True when an exclusive one applied (then nothing else may)."""
    applied = False
    for offer in Offer.objects.live(at):
        if offer.get("exclusive") and applied:
            continue
        lines = _offer_lines(offer, priced, at)
        if not lines:
            continue
        if _take_off(priced, offer, lines) is None:
            continue
        if offer.get("exclusive"):
            return True
        applied = True
    return False


def _amount(voucher, lines):
    base = sum(line.net for line in lines)
    if voucher["benefit"] == Voucher.PERCENT:
        return min(base, (base * min(int(voucher.get("value", 0)), 100) + 50) // 100)
    if voucher["benefit"] == Voucher.FIXED:
        return min(base, int(voucher.get("value", 0)))
    return 0


def usable(codes, vouchers):
    """The codes of ``codes`` (normalized, in the order typed) that may be used together: all of
    them when every one is combinable, else the first one alone."""
    found = [code for code in codes if code in vouchers]
    if len(found) > 1 and not all(vouchers[code].get("combinable") for code in found):
        return found[:1]
    return found


def apply(priced, context):
    """Take the context's codes off ``priced`` (``pricing.Priced``; ``context.codes``): each usable
    code's amount apportioned over its matching lines by their net amounts (after the codes
    before it), added to each line's ``discount`` and ``discounts``, and recorded on
    ``priced.discounts`` as ``{"code", "name", "kind", "amount"}`` and on ``priced.claims`` as
    ``{"voucher_id", "code", "limit", "once_per_customer"}`` (what checkout claims); a free-shipping code sets
    ``priced.free_shipping`` (the shipping step zeroes the shipping and fills in the amount).
    A code that cannot be used is left out silently (the cart page says why). The live
    automatic offers come first (``apply_offers``; an exclusive one that applies leaves the
    codes out). One read of the offers, one more when there are codes."""
    if not priced.lines:
        return
    at = context.at or clock.now()
    if apply_offers(priced, at):
        return
    codes = [normalize(code) for code in context.codes or ()]
    if not codes:
        return
    vouchers = Voucher.objects.by_codes(codes)
    for code in usable(codes, vouchers):
        voucher = vouchers[code]
        try:
            lines = check(voucher, priced, context.at)
        except Refusal:
            continue
        if _take_off(priced, voucher, lines, code) is not None:
            priced.claims.append({"voucher_id": voucher["_id"], "code": code, "limit": voucher.get("limit", 1),
                                  "once_per_customer": bool(voucher.get("once_per_customer"))})
