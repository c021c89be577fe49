"""The Python runner of Milieu's protocol conformance suite (see ../README.md)."""
