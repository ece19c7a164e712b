"""Write the tested set of the active venv to a constraints file, keeping the file's header.

    python .ci/freeze.py constraints/cpu.txt     # from the main venv
    python .ci/freeze.py constraints/ray.txt     # from .venv-ray

Every installed distribution but the lab itself becomes `name==version`; a local version label
is dropped (`torch==2.13.0+cpu` is written `torch==2.13.0`, which resolves to the CPU wheel
where pip's find-links hold it). The header is the file's leading `#` lines, kept as they are.
"""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

SKIP = {"lastwill-lab", "pip", "setuptools", "wheel"}


def pins() -> list[str]:
    found = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name and name.lower().replace("_", "-") not in SKIP:
            found[name.lower().replace("_", "-")] = dist.version.split("+")[0]
    return [f"{name}=={version}" for name, version in sorted(found.items())]


def main(path: Path) -> None:
    old = path.read_text().splitlines() if path.exists() else []
    header = []
    for line in old:
        if not line.startswith("#"):
            break
        header.append(line)
    path.write_text("\n".join(header + pins()) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python .ci/freeze.py CONSTRAINTS_FILE")
    main(Path(sys.argv[1]))
