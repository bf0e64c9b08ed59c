"""Helpers shared by the tests of several apps: none of them is a test."""
