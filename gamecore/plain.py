"""What counts as a number where a value is read from plain data (a card file, a saved state,
settings, a run's files) or given by a caller: an integer is an ``int`` that is not a ``bool``,
and a number a finite ``int`` or ``float`` that is not a ``bool``. And `in_words`, the choices
of an error message.

``True == 1`` in Python, but a flag is not a count, so every such check refuses booleans; these
are the tests they share.
"""

from __future__ import annotations

import math
from typing import Any


def is_int(v: Any) -> bool:
    """True for an ``int`` (or a subclass of it) that is not a ``bool``."""
    return isinstance(v, int) and not isinstance(v, bool)


def is_number(v: Any) -> bool:
    """True for a finite ``int`` or ``float`` (or a subclass of either) that is not a ``bool``."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def in_words(choices: Any) -> str:
    """Choices in words for an error message: ``"2, 3, 4 or 5"``."""
    *head, last = (str(k) for k in choices)
    return f"{', '.join(head)} or {last}" if head else last
