"""Checks of the environments' constructor options (`lastwill_env.env`, `SingleSeatEnv`).

Each returns the value it was given (a number as a float) or raises `ConfigError` naming the
option, the value and what is allowed.
"""

from __future__ import annotations

import math
from typing import Any

from .engine.config import ConfigError


def check_choice(name: str, value: Any, allowed: tuple[str, ...]) -> str:
    """`value` if it is one of `allowed`."""
    if value not in allowed:
        raise ConfigError(f"{name}={value!r} is not allowed; choose one of {allowed}")
    return value


def check_finite(name: str, value: Any) -> float:
    """`value` as a float if it is a finite number (a bool, a string, nan or inf is not)."""
    if isinstance(value, (bool, str, bytes)):
        number = math.nan
    else:
        try:
            number = float(value)
        except (TypeError, ValueError, OverflowError):
            number = math.nan
    if not math.isfinite(number):
        raise ConfigError(f"{name}={value!r} is not allowed; give a finite number")
    return number
