"""Inventory: stock levels and reservations."""
