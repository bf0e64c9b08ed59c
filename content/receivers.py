"""Each content edit bumps the version of what it changes (``content/managers.py``), after the
write, so every process shows it at its next request and nothing else cools: a block saved or
deleted bumps ``home``; a page ``pages`` and ``footer`` (the menu shows whether it is
published); a footer link ``footer``."""

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from catalog.models import CatalogVersion

from .managers import FOOTER, HOME, PAGES
from .models import ContentPage, FooterLink, HomeBlock


@receiver([post_save, post_delete], sender=HomeBlock, dispatch_uid="content-home-block")
def home_block_changed(sender, **kwargs):
    """A block saved or deleted: the home page's blocks (one write)."""
    CatalogVersion.objects.bump([HOME])


@receiver([post_save, post_delete], sender=ContentPage, dispatch_uid="content-page")
def page_changed(sender, **kwargs):
    """A content page saved or deleted: the pages and the footer menu (one write)."""
    CatalogVersion.objects.bump([PAGES, FOOTER])


@receiver([post_save, post_delete], sender=FooterLink, dispatch_uid="content-footer-link")
def footer_link_changed(sender, **kwargs):
    """A footer link saved or deleted: the footer menu (one write)."""
    CatalogVersion.objects.bump([FOOTER])
