"""Run localstripe on the loopback address with its state in a file the shop chose (a script).

Started by ``orders.stripelocal`` as ``python -I orders/localstripe_launch.py STATE_FILE --port N``
(``-I``: the script's own directory, which holds ``orders/numbers.py``, must not shadow the
standard library);
the shop never imports this file nor localstripe (GPL-3.0, its own process).

localstripe 1.15.10 hard-codes two things a shared machine must not have
(its ``server.py`` and ``resources.py``):

* it binds ``('::', port)``, every interface: anyone on the network could
  read and write the fake's payments;
* it keeps its state in ``/tmp/localstripe.pickle`` and loads it with
  ``pickle`` at start: a file any local user can plant there first.

Neither of its files is changed. This script changes two names of this
process's standard library, then runs localstripe's own ``__main__``:

* ``socket.socket.bind`` turns an IPv6 socket's ``'::'`` into
  ``'::ffff:127.0.0.1'`` (IPv4 loopback only, reached as ``127.0.0.1``);
* ``open`` turns the path ``/tmp/localstripe.pickle`` into ``STATE_FILE``,
  which the shop has created private (0600 in a 0700 directory).
"""

import builtins
import os
import runpy
import socket
import sys

#: localstripe's hard-coded state file, the only path redirected.
HARD_CODED_STATE_FILE = "/tmp/localstripe.pickle"  # nosec B108
#: The address an IPv6 socket asked to bind every interface gets instead: IPv4 loopback.
LOOPBACK = "::ffff:127.0.0.1"


def main(argv):
    """``argv``: ``[script, STATE_FILE, *localstripe_arguments]``; runs localstripe until it exits."""
    state_file = argv[1]
    real_bind = socket.socket.bind
    real_open = builtins.open

    def bind(sock, address):
        if sock.family == socket.AF_INET6 and address[0] in ("::", ""):
            # A mapped IPv4 address needs a dual-stack socket, whatever net.ipv6.bindv6only says.
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
            address = (LOOPBACK, *address[1:])
        return real_bind(sock, address)

    def open_(file, *args, **kwargs):
        if file == HARD_CODED_STATE_FILE:
            file = state_file
        return real_open(file, *args, **kwargs)

    os.umask(0o077)  # the state file localstripe creates is 0600, as the shop's own files
    socket.socket.bind = bind
    builtins.open = open_
    sys.argv = ["localstripe", *argv[2:]]
    runpy.run_module("localstripe", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main(sys.argv)
