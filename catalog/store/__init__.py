"""The catalog's storage shared by every job: the one owner of writes, versions, documents by path, indexes, backfills."""
