"""The review app's jobs, one module each, mixed into the app (app.py) that wires them."""
