"""Wall-clock time of a training run until its policy first beats the whole panel.

Reads `<run>/state.json` (written by `lastwill train`): every evaluation records its step, the
run's wall-clock seconds so far (warm start and evaluations included, summed over resumed
sessions) and, per player count and panel bot, the win rate of the policy alone against n-1
copies of the bot with its Wilson 95% interval. A row of the output is one evaluation; the
first where every bot's (or every `--bots` bot's) Wilson lower bound at `--players` is above
chance 1/n is the answer.

    python -m labreports.time_to_panel runs/train/reference --players 4 --json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from lastwill_env.engine.config import PLAYER_COUNTS


def table(state: dict, players: int, bots: list[str] | None = None) -> list[dict]:
    rows = []
    for ev in state.get("evals", []):
        vs = ev.get("by_players", {}).get(str(players), {}).get("vs")
        if vs is None and ev.get("num_players") == players:
            vs = ev.get("vs")
        if bots:
            vs = {b: r for b, r in vs.items() if b in bots}
        if not vs:
            continue
        lo = {bot: r["win_rate_lo"] for bot, r in vs.items()}
        rows.append(
            {
                "step": ev["step"],
                "wall_seconds": ev.get("wall_seconds"),
                "win_rate": {bot: round(r["win_rate"], 3) for bot, r in vs.items()},
                "worst_lo": round(min(lo.values()), 3),
                "worst_bot": min(lo, key=lo.get),
                "beats_panel": all(v > 1.0 / players for v in lo.values()),
            }
        )
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run_dir")
    ap.add_argument("--players", type=int, default=4, choices=PLAYER_COUNTS)
    ap.add_argument("--bots", help="only these panel bots, comma-separated (default: all)")
    ap.add_argument("--json", action="store_true", help="print one JSON line")
    args = ap.parse_args()
    bots = [b.strip() for b in args.bots.split(",") if b.strip()] if args.bots else None
    path = Path(args.run_dir) / "state.json"
    try:
        state = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        print(f"error: cannot read {path}: {e}", file=sys.stderr)
        return 2
    every = table(state, args.players)
    have = sorted({b for r in every for b in r["win_rate"]})
    missing = sorted(set(bots or []) - set(have))
    if every and missing:
        print(
            f"error: --bots {', '.join(missing)}: not in the evaluations at {args.players} "
            f"players (they have {', '.join(have)})",
            file=sys.stderr,
        )
        return 2
    rows = table(state, args.players, bots)
    first = next((r for r in rows if r["beats_panel"]), None)
    out = {
        "run_dir": args.run_dir,
        "players": args.players,
        "bots": bots,
        "evaluations": rows,
        "first_beats_panel": first,
        "minutes": round(first["wall_seconds"] / 60, 1)
        if first and first["wall_seconds"] is not None
        else None,
    }
    if args.json:
        print(json.dumps(out))
    else:
        for r in rows:
            wall = "?" if r["wall_seconds"] is None else f"{r['wall_seconds'] / 60:6.1f} min"
            print(
                f"step {r['step']:>9,}  {wall}  worst lower bound {r['worst_lo']:.3f} "
                f"({r['worst_bot']}){'  beats the panel' if r['beats_panel'] else ''}"
            )
        print(
            "first:", "never" if first is None else f"step {first['step']:,}, {out['minutes']} min"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
