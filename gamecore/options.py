"""Checks of options, for every game: the environments' constructor options (Last Will's
`lastwill_env.env`, `SingleSeatEnv`), a reset's seed, and every numeric option of the players
(the spec options of `agents.registry`, the bots, the ``mc`` and ``mcts`` search players, the
time limits).

:func:`check_number` is the one check of a number: it returns the value it was given (a
plain ``int`` or ``float``) or raises `ConfigError` (a ``ValueError``) naming the option, the
value (:func:`shown`: a 400-digit number is cut to its ends and its length) and what is allowed.
"""

from __future__ import annotations

import math
import numbers
import operator
from typing import Any

from .plain import is_int
from .seeds import MASK64, SEED_RANGE


class ConfigError(ValueError):
    """A configuration value is not allowed; the message names the value and the choices."""


SHOWN_CHARS = 40  # a value longer than this is shown by its ends and its length


def check_choice(name: str, value: Any, allowed: tuple[str, ...]) -> str:
    """`value` if it is one of `allowed`."""
    if value not in allowed:
        raise ConfigError(f"{name}={value!r} is not allowed; choose one of {allowed}")
    return value


def shown(value: Any, limit: int = SHOWN_CHARS) -> str:
    """``repr(value)`` for a message, its middle left out when it is longer than `limit`: the
    first 20 and the last 8 characters and the length (digits of an integer, characters
    otherwise)."""
    if is_int(value):
        try:
            text = str(value)
        except ValueError:  # more digits than Python turns into text
            digits = int(abs(value).bit_length() * math.log10(2)) + 1
            return f"an integer of about {digits} digits"
        size = f"{len(text.lstrip('-'))} digits"
    elif isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return f"{value[:20] + '...' + value[-8:]!r} ({len(value)} characters)"
    else:
        text = repr(value)
        size = f"{len(text)} characters"
    if len(text) <= limit:
        return text
    return f"{text[:20]}...{text[-8:]} ({size})"


def _is_bool(value: Any) -> bool:
    """A Python bool, or a numpy (torch, jax) bool, whose dtype names bool."""
    return isinstance(value, bool) or "bool" in str(getattr(value, "dtype", ""))


def _number(value: Any, integer: bool) -> int | float | None:
    """`value` as a plain int (`integer`) or finite float, or None when it is not one."""
    if _is_bool(value) or isinstance(value, (str, bytes)):
        return None
    if integer:
        try:
            return operator.index(value)
        except TypeError:
            return None
    if not isinstance(value, numbers.Real):  # complex numbers, arrays, None
        return None
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):  # an int beyond a float's range
        return None
    return number if math.isfinite(number) else None


def _range(lo: float, hi: float, integer: bool) -> str:
    """The range in words: "an integer from 1 to 10000", "a number of 0 or more"."""
    kind = "an integer" if integer else "a number"
    if lo == -math.inf and hi == math.inf:
        return kind if integer else "a finite number"
    if hi == math.inf:
        return f"{kind} of {lo} or more"
    if lo == -math.inf:
        return f"{kind} of at most {hi}"
    return f"{kind} from {lo} to {hi}"


def check_number(
    name: str,
    value: Any,
    lo: float = -math.inf,
    hi: float = math.inf,
    *,
    integer: bool = False,
    allowed: str | None = None,
) -> Any:
    """`value` if it is a number from `lo` to `hi`: with `integer`, a Python or numpy integer
    (returned as an ``int``); otherwise a finite Python or numpy real number (returned as a
    ``float``). A bool of any kind, a string, a complex number, an array, nan, inf, or an
    integer too large for a float (where a float is asked) is refused with a `ConfigError`
    naming `name`, the value (:func:`shown`) and `allowed` (by default the range in words)."""
    number = _number(value, integer)
    if number is None or not lo <= number <= hi:
        allowed = allowed or _range(lo, hi, integer)
        raise ConfigError(f"{name}={shown(value)} is not allowed; use {allowed}")
    return number


def check_finite(name: str, value: Any) -> float:
    """`value` as a float if it is a finite number (:func:`check_number` without bounds)."""
    return check_number(name, value)


def check_seed_option(name: str, value: Any) -> int:
    """`value` as an int if it is a game seed: a Python or numpy integer from 0 to 2**64 - 1
    (`lastwill_env.engine.check_seed`)."""
    allowed = f"an integer from {SEED_RANGE}"
    return check_number(name, value, 0, MASK64, integer=True, allowed=allowed)
