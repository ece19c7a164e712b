"""Write the lowest versions the package metadata allows, as pins for `pip install -c`.

Each dependency of `[project] dependencies` in pyproject.toml becomes `name==floor`, its `>=`
bound. One exception: torch. Its floor (2.8, the floor of stable-baselines3 2.9) exists on
PyPI only as a CUDA build of several GB, so the lowest install keeps torch 2.13.0, the oldest
CPU wheel this CI's package index holds. A dependency without a `>=` floor is an error, so a
new one cannot join without one.

    python .ci/lowest.py > /tmp/lowest.txt
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import tomllib

KEEP = {"torch": "2.13.0"}  # name: the version installed instead of the floor (docstring)
_REQ = re.compile(r"^([A-Za-z0-9_.\[\]-]+?)(\[[^\]]*\])?\s*(>=|==)\s*([0-9][^,;\s]*)")


def floors(pyproject: Path) -> list[str]:
    deps = tomllib.loads(pyproject.read_text())["project"]["dependencies"]
    pins = []
    for dep in deps:
        requirement, _, marker = dep.partition(";")
        if marker and "python_version" in marker and sys.version_info >= (3, 11):
            continue  # tomli, for Python 3.10 only
        m = _REQ.match(requirement.strip())
        if m is None:
            raise SystemExit(f"{dep!r} has no >= floor; give it one in pyproject.toml")
        name = m.group(1).lower()
        pins.append(f"{name}=={KEEP.get(name, m.group(4))}")
    return pins


if __name__ == "__main__":
    root = Path(__file__).resolve().parent.parent
    print("\n".join(floors(root / "pyproject.toml")))
