"""Products and their types: ``Product.objects`` and ``ProductType.objects``, attributes, variants, keywords, the staff's reports."""
