#!/usr/bin/env bash
# Create the side virtual environment holding the PEER projects used as speed
# reference points by our benchmarks. The peers are NOT dependencies of the lab;
# they live only in this venv.
#
#   bash benchmarks/peers/setup_peers.sh            # -> ./.venv-peers
#   PEERS_VENV=/some/dir bash benchmarks/peers/setup_peers.sh
#
# A relative PEERS_VENV is taken relative to the repository root.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$REPO_ROOT"

VENV="${PEERS_VENV:-.venv-peers}"
PYTHON="${PYTHON:-python3}"

# Pinned peer versions. catanatron 3.2.1 is the pure-Python core engine
# (only dependency: networkx). pettingzoo[classic] pulls rlcard (sdist,
# needed by texas_holdem_no_limit_v6), chess, pygame-ce, shimmy, open_spiel.
PEER_PACKAGES=(
    "catanatron==3.2.1"
    "pettingzoo[classic]==1.27.0"
    "numpy"
)

if [ ! -x "$VENV/bin/python" ]; then
    echo "[setup_peers] creating venv at $VENV"
    "$PYTHON" -m venv "$VENV"
else
    echo "[setup_peers] reusing venv at $VENV"
fi

"$VENV/bin/python" -m pip install --quiet --upgrade pip setuptools wheel
# torch is never requested (directly or transitively) here; pip's global
# config (constraints + find-links) is left as it is.
"$VENV/bin/python" -m pip install "${PEER_PACKAGES[@]}"

# Smoke check: the imports the peer scripts need.
"$VENV/bin/python" - <<'PY'
import importlib.metadata as md
from catanatron.game import Game
from catanatron.models.player import Color, RandomPlayer
from pettingzoo.classic import texas_holdem_no_limit_v6
import numpy, rlcard
for name in ("catanatron", "pettingzoo", "rlcard", "numpy"):
    print(f"[setup_peers] {name}=={md.version(name)}")
PY
echo "[setup_peers] OK: $VENV/bin/python"
