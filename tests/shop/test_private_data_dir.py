"""The local database's data directory is created private (0700): its files, log and port
are the shop's alone (core/mongo/localserver.py)."""

import stat

from core.mongo.localserver import LocalServer


def test_a_new_data_directory_is_private(tmp_path):
    data = tmp_path / "var" / "db"
    LocalServer(data).check_writable()
    for folder in (data, data / "storage"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder


def test_the_lock_makes_it_private_too(tmp_path):
    data = tmp_path / "db"
    with LocalServer(data).lock("prepare"):
        assert stat.S_IMODE(data.stat().st_mode) == 0o700
