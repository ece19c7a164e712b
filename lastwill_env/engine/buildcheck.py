"""A compiled module built from an older source: the warning, for the lab's three C modules
(`lastwill_env.engine._cview`, `lastwill_env._cwriter`, `training.allseat._bagrad`; setup.py
builds them). Standard library only, so the engine can use it."""

from __future__ import annotations

import os
import warnings


def warn_if_stale(built: str, source: str) -> None:
    """In a checkout, a `RuntimeWarning` when `source` changed after `built` was built (an
    installed package ships no source: nothing to compare)."""
    try:
        stale = os.path.getmtime(source) > os.path.getmtime(built)
    except OSError:
        return
    if stale:
        warnings.warn(
            f"{built} is older than {source}: rebuild it (pip install -e .)",
            RuntimeWarning,
            stacklevel=3,
        )
