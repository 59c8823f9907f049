"""Orders: the aggregate, its handlers and its storage."""
