"""Products in and out: imports, exports, the Chinook demo catalog and the generated catalog."""
