"""What a shopper browses: listing queries and sort orders, facets and their kept counts, cards, search and ranking."""
