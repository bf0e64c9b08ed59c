"""Progress bars and ``--quiet`` for the operators' long commands (expire_carts, cleanup_inventory,
check_inventory, rollup_stats).

On a terminal a command shows a tqdm bar on stderr; piped or under cron
(no terminal), with ``--quiet`` or ``--verbosity 0`` it shows none. Its one-line
summary goes to stdout unless ``--quiet``, and always to the log
(``core.commandlog.log_change``).
"""

from tqdm import tqdm


def add_quiet_argument(parser):
    """Add ``--quiet`` (no progress bar, no summary on stdout; the log still gets it) to ``parser``."""
    parser.add_argument("--quiet", action="store_true",
                        help="No progress bar and no summary on stdout (for cron); the log still has it.")


def progress_bar(command, options, total=None, unit="it", desc=None):
    """A tqdm bar on ``command.stderr`` (use it as a context manager; ``bar.update(n)`` advances it).

    ``options``: the command's options (``quiet``, ``verbosity``); ``total``: the
    expected count (None: a counter without a percentage). Disabled with
    ``--quiet`` or ``--verbosity 0``, and when stderr is not a terminal.
    """
    silent = options.get("quiet") or options.get("verbosity", 1) == 0
    return tqdm(total=total, unit=unit, desc=desc, file=command.stderr, disable=True if silent else None,
                dynamic_ncols=True, leave=False)
