"""Application services: one method per use case."""
