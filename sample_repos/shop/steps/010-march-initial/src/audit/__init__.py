"""Audit: an append-only record of who changed what."""
