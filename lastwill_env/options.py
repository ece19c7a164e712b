"""The checks of options live in `gamecore.options`, shared by every game."""

from gamecore.options import (  # noqa: F401
    ConfigError,
    check_choice,
    check_finite,
    check_number,
    check_seed_option,
    shown,
)
