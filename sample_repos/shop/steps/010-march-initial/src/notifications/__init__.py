"""Notifications: telling customers what happened to their orders."""
