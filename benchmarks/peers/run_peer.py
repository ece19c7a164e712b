"""Run a peer speed script in the side virtual environment (stdlib only).

The peer projects (catanatron, PettingZoo texas_holdem_no_limit_v6) are NOT lab
dependencies: they live in a side venv made by ``setup_peers.sh``.  Our
benchmarks import this module and call :func:`run_peer` to measure a peer in
the same run, on the same machine, then report ratios against it::

    from benchmarks.peers.run_peer import run_peer   # repo root on sys.path
    peer = run_peer("catanatron_speed.py", seconds=10)
    if peer is not None:
        ratio = ours_decisions_per_s / peer["decisions_per_s"]

:func:`run_peer` returns ``None`` (and explains on stderr) when the side venv
is missing; it raises ``RuntimeError`` if the peer script itself fails.

Run as a script to measure both peers with medians over repeats::

    python benchmarks/peers/run_peer.py --seconds 10 --repeat 3
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

PEERS_DIR = Path(__file__).resolve().parent
REPO_ROOT = PEERS_DIR.parent.parent
DEFAULT_VENV = ".venv-peers"
SETUP_HINT = "bash benchmarks/peers/setup_peers.sh"

# Headline metric of each peer script (used by the CLI summary).
PEER_SCRIPTS = {
    "catanatron_speed.py": "decisions_per_s",
    "holdem_speed.py": "steps_per_s",
}


def peers_venv() -> Path:
    """Directory of the side venv: $PEERS_VENV (relative to the repo root) or .venv-peers."""
    venv = Path(os.environ.get("PEERS_VENV") or DEFAULT_VENV)
    return venv if venv.is_absolute() else REPO_ROOT / venv


def peer_python() -> str | None:
    """Path of the side venv's python, or None if the venv has not been set up."""
    venv = peers_venv()
    for candidate in (venv / "bin" / "python", venv / "Scripts" / "python.exe"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def run_peer(script_name: str, seconds: float, extra_args: Iterable[str] = ()) -> dict | None:
    """Run ``benchmarks/peers/<script_name>`` for ``seconds`` with the side venv python.

    Returns the parsed JSON line the script prints, or None (with a message on
    stderr) when the side venv is missing.  Raises RuntimeError if the script
    fails or prints no JSON line.
    """
    python = peer_python()
    if python is None:
        print(
            f"[peers] side venv not found at {peers_venv()}; peer '{script_name}' skipped. "
            f"Set it up with: {SETUP_HINT}",
            file=sys.stderr,
        )
        return None

    script = PEERS_DIR / script_name
    if not script.suffix:
        script = script.with_suffix(".py")
    if not script.is_file():
        raise FileNotFoundError(f"no peer script {script}")

    cmd = [python, str(script), "--seconds", str(seconds), *map(str, extra_args)]
    env = dict(os.environ)
    env.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    env.pop("PYTHONPATH", None)  # keep the lab's paths out of the side venv
    # Imports take a few seconds and catanatron finishes its last game after
    # the deadline: leave a wide margin before calling the run hung.
    timeout = float(seconds) * 3 + 120
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, cwd=REPO_ROOT, env=env
        )
    except subprocess.TimeoutExpired as exc:
        raise RuntimeError(f"peer {script_name} timed out after {timeout:.0f}s") from exc
    if proc.returncode != 0:
        raise RuntimeError(
            f"peer {script_name} exited {proc.returncode}:\n{proc.stderr.strip()[-2000:]}"
        )
    for line in reversed(proc.stdout.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                continue
    raise RuntimeError(
        f"peer {script_name} printed no JSON line; stdout was:\n{proc.stdout[-2000:]}"
    )


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="Measure the peers (medians over repeats).")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", choices=sorted(PEER_SCRIPTS), action="append")
    args = parser.parse_args(argv)

    if peer_python() is None:
        run_peer(next(iter(PEER_SCRIPTS)), args.seconds)  # prints the hint
        return 1
    summary = {}
    for script, metric in PEER_SCRIPTS.items():
        if args.only and script not in args.only:
            continue
        runs = []
        for _ in range(args.repeat):  # sequential: never overlap peer runs
            res = run_peer(script, args.seconds, ["--seed", str(args.seed)])
            print(json.dumps(res), flush=True)
            runs.append(res)
        keys = [
            k for k, v in runs[0].items() if k.endswith("_per_s") and isinstance(v, (int, float))
        ]
        summary[runs[0]["peer"]] = {
            "metric": metric,
            "runs": len(runs),
            **{f"median_{k}": statistics.median(r[k] for r in runs) for k in keys},
            f"all_{metric}": [r[metric] for r in runs],
        }
    print(json.dumps({"summary": summary}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
