"""Rules about orders that do not depend on storage or transport."""
