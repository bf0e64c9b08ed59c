"""The storefront's pages: views, shoppers' filters, paginators, request ids, the catalog cache and its middleware."""
