"""Screens of the review app beyond the main one: help, export, statistics."""
