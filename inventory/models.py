"""Inventory and carts (seed 003)."""
