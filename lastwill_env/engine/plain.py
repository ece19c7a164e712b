"""What counts as a number: `gamecore.plain`, shared by every game."""

from gamecore.plain import is_int, is_number  # noqa: F401
