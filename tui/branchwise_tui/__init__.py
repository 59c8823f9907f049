"""The Textual review app of branchwise; it only calls the core (`branchwise`)."""
