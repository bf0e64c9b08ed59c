"""What operators' commands change, on their output and in the log.

A command that changes data reports each change with ``log_change(self, message)``:
the line goes to the command's stdout, as before, and to the logger
``shop.commands`` (at INFO, with the command's name), so that a command run
by cron leaves a trace in the shop's log.
"""

import logging

logger = logging.getLogger("shop.commands")


def log_change(command, message, quiet=False):
    """Write ``message`` (str) on ``command.stdout`` (not when ``quiet``) and log it as
    ``"<command name>: <message>"``."""
    if not quiet:
        command.stdout.write(message)
    logger.info("%s: %s", command.__module__.rsplit(".", 1)[-1], message)
