"""The accounts app's own collection: sign-ups waiting for their confirmation.

A sign-up for an address without a confirmed account is kept here with the
password it chose (hashed), and only the confirmation of that sign-up, by
someone who types that password again, sets it on the account
(``accounts.signup``). So nobody can choose the password of an account whose
address they do not hold: the link goes to the address, and the password to
the person who chose it.
"""

from django.db import models


class PendingSignup(models.Model):
    """One sign-up awaiting confirmation: the ``email`` (normalised), the ``password`` it chose
    (a Django password hash, never the text) and when it was made (``created_at``, UTC). Each
    sign-up has its own row and its own link; the first confirmed removes every row of its
    address. Rows older than ``PASSWORD_RESET_TIMEOUT`` confirm nothing."""

    email = models.CharField(max_length=150)
    password = models.CharField(max_length=128)
    created_at = models.DateTimeField()

    class Meta:
        db_table = "pending_signups"
        indexes = [models.Index(fields=["email"], name="pending_signup_email")]

    def __str__(self):
        return f"sign-up of {self.email} at {self.created_at:%Y-%m-%d %H:%M}"
