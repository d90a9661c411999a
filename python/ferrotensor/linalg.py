"""The linalg extension."""
