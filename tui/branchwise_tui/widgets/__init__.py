"""Widgets of the review app: the results table and the preview pane."""
