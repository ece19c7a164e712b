"""How the lab starts Ray: with Ray's usage telemetry off unless the user chose otherwise.

Ray reports anonymous usage statistics to its makers unless ``RAY_USAGE_STATS_ENABLED=0``.
Every place the lab starts or joins Ray (``lastwill arena --ray``, ``lastwill train --backend
rllib``) calls :func:`init_ray`, which sets that variable to ``0`` before ``ray.init`` when it
is absent; a value the user set (``1`` to report) is left as it is. A Ray cluster started
elsewhere (``ray start --head``) keeps the setting it was started with.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping
from typing import Any

USAGE_STATS_VAR = "RAY_USAGE_STATS_ENABLED"


def usage_stats_off_by_default(environ: MutableMapping[str, str] | None = None) -> bool:
    """Set ``RAY_USAGE_STATS_ENABLED=0`` in ``environ`` (default ``os.environ``) unless it is
    set already; True when this call set it."""
    env = os.environ if environ is None else environ
    if USAGE_STATS_VAR in env:
        return False
    env[USAGE_STATS_VAR] = "0"
    return True


def init_ray(ray: Any, **kwargs: Any) -> Any:
    """``ray.init(**kwargs)`` with usage telemetry off unless the user set
    ``RAY_USAGE_STATS_ENABLED`` (module docstring)."""
    usage_stats_off_by_default()
    return ray.init(**kwargs)
