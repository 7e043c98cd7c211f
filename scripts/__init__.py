"""Maintenance scripts of the project (run from the repository root)."""
