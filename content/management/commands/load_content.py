"""``python manage.py load_content``: the demo's home page, content pages and footer menu.

Seeds, for the Chinook demo catalog (``load_catalog``): a hero with a generated banner, three
featured collections (hand-picked, a category, a search), a "new in" row, the placeholder
pages (shipping, returns, contact, privacy, terms) and the footer menu linking to them.
Idempotent: a page is created only when its slug is missing, the blocks only when there are
none, the footer links only when there are none (staff's edits are never overwritten).
The quick start runs it after ``load_catalog`` (``shop/startup.py``).
"""

import io

from django.core.files.base import ContentFile
from django.core.management.base import BaseCommand
from PIL import Image, ImageDraw

from core.commandlog import log_change
from content.models import ContentPage, FooterLink, HomeBlock

PAGES = [
    ("shipping", "Shipping", "We ship CDs, vinyl and DVDs from our warehouse within **two working days**.\n\n"
     "- United Kingdom: Standard from $3.99 (2 to 3 working days), free over $50; Express from $8.99\n"
     "- European Union: Standard from $6.99 (3 to 6 working days), free over $100; Express from $19.99\n"
     "- Rest of the world: Standard from $9.99 (5 to 12 working days); Express from $29.99\n\n"
     "You get an e-mail with the tracking number when your parcel leaves."),
    ("returns", "Returns", "Changed your mind? Send any unopened record back within **30 days** of delivery "
     "for a full refund.\n\n1. Write to us (see [Contact](/pages/contact/)) with your order number.\n"
     "2. Post it back in its original packaging.\n3. We refund your card within 5 working days of receiving it."),
    ("contact", "Contact", "Chinook Records, 1 Demo Street, Springfield.\n\n"
     "E-mail: [help@example.com](mailto:help@example.com) · We answer within one working day."),
    ("privacy", "Privacy", "We keep what we need to deliver your order (your name, address and e-mail) "
     "and the record of your payment. Card numbers go to Stripe, never to us. We sell no data.\n\n"
     "Ask us to see or delete what we hold: [help@example.com](mailto:help@example.com)."),
    ("terms", "Terms of sale", "Prices are in US dollars. An order is a contract once we have taken the "
     "payment and sent the confirmation e-mail.\n\nSee [Shipping](/pages/shipping/) and "
     "[Returns](/pages/returns/). This is a demo shop: nothing is shipped."),
]

BLOCKS = [
    dict(kind=HomeBlock.HERO, position=10, heading="Records worth keeping",
         text="347 albums and TV seasons from the Chinook catalog, 34 of them on CD and vinyl.",
         link_url="/c/rock/", link_label="Shop rock"),
    dict(kind=HomeBlock.COLLECTION, position=20, heading="Rock classics", source=HomeBlock.PRODUCTS,
         skus="CHK-0090, CHK-0152, CHK-0164, CHK-0181, CHK-0232, CHK-0016", limit=6),
    dict(kind=HomeBlock.COLLECTION, position=30, heading="Jazz", source=HomeBlock.CATEGORY, category_slug="jazz",
         limit=4, link_url="/c/jazz/", link_label="All jazz"),
    dict(kind=HomeBlock.COLLECTION, position=40, heading="Recorded live", source=HomeBlock.SEARCH,
         search_query="live", limit=4, link_url="/search/?q=live", link_label="More live albums"),
    dict(kind=HomeBlock.NEW_IN, position=50, heading="New in", limit=8),
]


def banner_jpeg(width=2400, height=800):
    """A generated hero banner (JPEG bytes): the shop's red fading to dark, with record-like
    circles; no text (the heading is HTML, readable and translatable)."""
    image = Image.new("RGB", (width, height))
    draw = ImageDraw.Draw(image)
    for x in range(width):  # #b3261e -> #1d1f24, left to right
        t = x / (width - 1)
        draw.line([(x, 0), (x, height)], fill=(int(179 + (29 - 179) * t), int(38 + (31 - 38) * t),
                                                 int(30 + (36 - 30) * t)))
    for i, cx in enumerate((1500, 1900, 2250)):
        r = 330 - i * 60
        for ring in range(r, 20, -24):
            draw.ellipse([cx - ring, height // 2 - ring, cx + ring, height // 2 + ring], outline=(255, 255, 255),
                         width=2 if ring % 48 else 1)
    out = io.BytesIO()
    image.save(out, "JPEG", quality=80)
    return out.getvalue()


class Command(BaseCommand):
    help = "Seed the demo's home page blocks, content pages and footer menu (idempotent)."

    def handle(self, *args, **options):
        pages = {p.slug: p for p in ContentPage.objects.all()}
        made = 0
        for slug, title, body in PAGES:
            if slug not in pages:
                pages[slug] = ContentPage.objects.create(slug=slug, title=title, body=body, published=True)
                made += 1
        log_change(self, f"Content pages: {made} created, {len(PAGES) - made} already there.")
        if not FooterLink.objects.exists():
            for position, (slug, _title, _body) in enumerate(PAGES):
                FooterLink.objects.create(label=pages[slug].title, page=pages[slug], position=position * 10)
            log_change(self, f"Footer menu: {len(PAGES)} links created.")
        if not HomeBlock.objects.exists():
            for spec in BLOCKS:
                block = HomeBlock(published=True, **spec)
                if block.kind == HomeBlock.HERO:
                    block.image.save("demo-hero.jpg", ContentFile(banner_jpeg()), save=False)
                block.full_clean()
                block.save()
            log_change(self, f"Home page: {len(BLOCKS)} blocks created.")
