"""Analytics' models: the raw ``events``, the rollups' progress and the rollup levels' buckets.

* ``Event`` (``events``): what shoppers did; written by ``Event.objects``
  (``analytics/managers/events.py``).
* ``RollupProgress`` (``stats.progress``): how far the rollups got;
  ``RollupProgress.objects`` (``analytics/managers/rollups.py``) runs them.
  Each level's ``reports`` (``analytics/managers/reports.py``) reports on its buckets.
* ``HourlyStat`` ... ``YearlyStat`` (``stats.hourly`` ... ``stats.yearly``,
  the levels of ``analytics/periods.py``): one bucket per key and period
  (``stats.hourly``: one document per key and day holding its hours),
  with a string ``_id`` (``"<key>|<period start>"``, what ``$merge`` needs
  to replace a bucket in place). Only the rollups' pipelines write them.
"""

from django.db import models

from .managers import EventManager, RollupManager, SalesReportManager


class Event(models.Model):
    """One thing a shopper did ("Hierarchical Aggregation" use case's ``events``): viewed a product, put it in a cart, bought it.

    ``sku`` is the product's SKU; ``qty`` the units carted or sold;
    ``amount`` the sale's revenue in cents (0 for views and carts; a refund's cents given back,
    ``sku`` "" and ``ref`` ``refund:<order number>:<request>``);
    ``userid`` the shopper: the customer's e-mail address when known, else
    ``"guest:<HMAC of the session key>"``, else ``""``; ``ts`` when it happened (UTC);
    ``recorded`` when the shop wrote it (UTC: the rollups' watermark runs on
    this, so an event imported late with an old ``ts`` is still counted);
    ``ref`` a stable name for events that must be written once only (an
    imported invoice line, an order line), absent otherwise.
    """

    VIEW = "view"
    CART = "cart"
    SALE = "sale"
    REFUND = "refund"
    TYPE_CHOICES = [(VIEW, "product view"), (CART, "add to cart"), (SALE, "sale"), (REFUND, "refund")]

    type = models.CharField(max_length=10, choices=TYPE_CHOICES)
    sku = models.CharField("SKU", max_length=64)
    qty = models.IntegerField(default=1)
    amount = models.IntegerField(default=0, help_text="cents")
    discount = models.IntegerField(default=0, help_text="cents: a sale line's share of its order's discounts")
    userid = models.CharField(max_length=200, blank=True, default="")
    ts = models.DateTimeField()
    recorded = models.DateTimeField()
    ref = models.CharField(max_length=200, null=True, blank=True)

    objects = EventManager()

    class Meta:
        db_table = "events"
        ordering = ["-ts"]

    def __str__(self):
        return f"{self.get_type_display()} {self.sku} at {self.ts:%Y-%m-%d %H:%M}"


class RollupProgress(models.Model):
    """How far ``rollup_stats`` got: one document, ``_id`` ``"events"``.

    ``done_until``: every event recorded at or before this UTC time is in
    the rollups. ``pending``: ``{from, until}`` while a run is writing (it
    stays after a crash, and the next run redoes that range first).
    """

    id = models.CharField(primary_key=True, max_length=40, db_column="_id")
    done_until = models.DateTimeField(null=True, blank=True)
    updated = models.DateTimeField(null=True, blank=True)

    objects = RollupManager()

    class Meta:
        db_table = "stats.progress"
        verbose_name_plural = "rollup progress"

    def __str__(self):
        return f"rollups done until {self.done_until:%Y-%m-%d %H:%M:%S} UTC" if self.done_until else "no rollup yet"


class Bucket(models.Model):
    """One rollup bucket: the figures of one key over one period ("Hierarchical Aggregation" use case's ``stats.*``).

    ``_id`` is ``"<key>|<period start>"``; ``k`` the key (``store``,
    ``sku:<SKU>`` or ``category:<id>``), ``kind`` its kind, ``d`` the start of
    the period (aware UTC), ``total`` the revenue in cents, ``count`` the sold
    lines, ``mean`` = total / count, ``units`` the units sold, ``views`` and
    ``carts`` the product views and add-to-cart events. Written only by
    ``RollupProgress.objects.rollup``; these models let Django create and
    flush the collections.
    """

    id = models.CharField(primary_key=True, max_length=300, db_column="_id")
    k = models.CharField("key", max_length=200)
    kind = models.CharField(max_length=20)
    d = models.DateTimeField("period start")
    total = models.BigIntegerField(default=0, help_text="cents")
    count = models.IntegerField(default=0)
    mean = models.FloatField(default=0, help_text="cents")
    units = models.IntegerField(default=0)
    views = models.IntegerField(default=0)
    carts = models.IntegerField(default=0)

    objects = models.Manager()
    reports = SalesReportManager()

    class Meta:
        abstract = True
        ordering = ["d", "k"]

    def __str__(self):
        return self.id


class HourlyStat(Bucket):
    """One key's day of hourly buckets: ``d`` is the day (00:00 UTC), and the stored document holds
    ``hours: [{h: 0..23, total, count, mean, units, views, carts, live_count}, ...]`` instead of
    the measures (``analytics.bucketing.day_documents``; read them with
    ``RollupProgress.objects.buckets("hourly", ...)``)."""

    class Meta(Bucket.Meta):
        db_table = "stats.hourly"


class DailyStat(Bucket):
    class Meta(Bucket.Meta):
        db_table = "stats.daily"


class WeeklyStat(Bucket):
    """ISO weeks: ``d`` is a Monday."""

    class Meta(Bucket.Meta):
        db_table = "stats.weekly"


class MonthlyStat(Bucket):
    class Meta(Bucket.Meta):
        db_table = "stats.monthly"


class YearlyStat(Bucket):
    class Meta(Bucket.Meta):
        db_table = "stats.yearly"
