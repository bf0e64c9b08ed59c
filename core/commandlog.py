"""What operators' commands change, said once on their output and kept in the log.

A command that changes data reports each change with ``log_change(self, message)``:
the line goes to the command's stdout and, as a record of the logger
``shop.commands`` (at INFO, with the command's name), to the shop's log, so
that a command run by cron leaves a trace. The console handler of
``settings.LOGGING`` drops the records whose line was already printed
(``NotPrinted``), so a terminal or a cron mail shows each change once; a log
file (``SHOP_LOG_FILE``) receives them all.
"""

import logging

logger = logging.getLogger("shop.commands")


def log_change(command, message, quiet=False):
    """Write ``message`` (str) on ``command.stdout`` (not when ``quiet``) and log it as
    ``"<command name>: <message>"``, marked as printed unless ``quiet``."""
    if not quiet:
        command.stdout.write(message)
    logger.info("%s: %s", command.__module__.rsplit(".", 1)[-1], message, extra={"printed": not quiet})


class NotPrinted(logging.Filter):
    """A logging filter that passes every record but those a command already printed.

    Set on the console handler, so the terminal does not show a command's
    change a second time as a log line.
    """

    def filter(self, record):
        return not getattr(record, "printed", False)
