"""The category tree: its nodes without the database, breadcrumbs, slugs, taxonomy files, and ``Category.objects`` (reads in ``category_manager``, changes in ``category_writes``)."""
