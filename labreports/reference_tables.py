"""The reference policy's strength tables: alone against copies of each panel bot, and the
reverse, one copy of each bot against copies of the policy.

At each player count n and for each bot of the panel, two tables on the arena's paired deals
(seats rotated, the same deals for every table at that count, `agents.evaluate.play_tables`):

- `vs_<bot>`: the policy and n-1 copies of the bot; the policy's win rate should be above 1/n;
- `<bot>_vs`: the bot and n-1 copies of the policy; the bot's win rate should be below 1/n.

Each line gives the first entrant's wins, win rate, Wilson 95% interval and chance, and whether
the interval clears chance in the wanted direction. `--json` prints one JSON object; `--markdown`
the table of docs/RESULTS.md. The games go to `--out` as JSONL, a new file: a header with the
settings and the tables, then one arena row per game as it finishes, each with its `table` (so
two logs on the same deals can be paired, `labreports.paired_logs`); `--resume` continues
an interrupted log of the same run, checked game by game, and plays only what it lacks. The
tables are reported figures, so they play test deals (`agents.deals`), never the validation
deals that training and screening chose on; `--deals validation` is there for screening only.

    python -m labreports.reference_tables --policy ppo:agents/policies/reference.npz \\
        --players 2,3,4,5 --games 1000 --workers 2 --seed 2026 --out runs/eval/ref_tables.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import labreports.onethread  # noqa: F401  (first: one BLAS thread, before numpy loads)
from agents.evaluate import PANEL, EvalError, Table, log_header, play_logged
from agents.registry import PlayerSpecError, make_agent
from agents.stats import summarize
from labreports.text import interval, pct, rate_text
from lastwill_env.engine.config import allowed_counts, is_player_count


def tables(policy: str, panel: list[str], counts: list[int], reverse: bool) -> list[Table]:
    out = []
    for n in counts:
        for bot in panel:
            out.append(Table(f"vs_{bot}", n, (policy, *[bot] * (n - 1))))
            if reverse:
                out.append(Table(f"{bot}_vs", n, (bot, *[policy] * (n - 1))))
    return out


def table_line(table: Table, rows: list[dict]) -> dict:
    mine = [r for r in rows if r["table"] == table.name and r["num_players"] == table.num_players]
    first = table.entrants[0]
    e = next(x for x in summarize(mine) if x["spec"] == first)
    chance = 1.0 / table.num_players
    reverse = table.name.endswith("_vs")
    return {
        "num_players": table.num_players,
        "table": table.name,
        "first": first,
        "opponents": list(table.entrants[1:]),
        "games": e["games"],
        "wins": e["wins"],
        "win_rate": e["win_rate"],
        "ci_lo": e["ci_lo"],
        "ci_hi": e["ci_hi"],
        "chance": chance,
        "errors": sum(1 for r in mine if r.get("error") is not None),
        # the policy's side of the table clears chance: lower bound above it, or for a reverse
        # table the bot's upper bound below it
        "clears_chance": (e["ci_hi"] < chance) if reverse else (e["ci_lo"] > chance),
    }


def markdown(lines: list[dict]) -> str:
    by = {(x["num_players"], x["table"]): x for x in lines}
    bots = list(dict.fromkeys(x["table"][3:] for x in lines if x["table"].startswith("vs_")))
    counts = sorted({x["num_players"] for x in lines})
    out = [
        "| players | bot | policy alone vs n-1 bots | Wilson 95% | bot alone vs n-1 policies "
        "| Wilson 95% | chance |",
        "|---|---|---:|---|---:|---|---:|",
    ]
    for n in counts:
        for bot in bots:
            d = by.get((n, f"vs_{bot}"))
            r = by.get((n, f"{bot}_vs"))

            def cell(x: dict | None) -> tuple[str, str]:
                if x is None:
                    return "", ""
                return pct(x["win_rate"]), interval(x["ci_lo"], x["ci_hi"])

            dw, dc = cell(d)
            rw, rc = cell(r)
            out.append(f"| {n} | {bot} | {dw} | {dc} | {rw} | {rc} | {100 / n:.0f}% |")
    return "\n".join(out)


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--policy", default="ppo:agents/policies/reference.npz")
    ap.add_argument("--panel", default=",".join(PANEL), help="comma-separated bot specs")
    ap.add_argument("--players", default="2,3,4,5", help="player counts, e.g. 2,3,4,5")
    ap.add_argument("--games", type=int, default=1000, help="games per table")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--deals", default="test", choices=("test", "validation"))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--no-reverse", action="store_true", help="only the policy-alone tables")
    ap.add_argument("--out", help="JSONL log of the games (a new file)")
    ap.add_argument("--resume", action="store_true", help="continue the --out log of the same run")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--markdown", action="store_true", help="print the table as markdown")
    return ap


def _counts(players: str) -> list[int] | str:
    """The player counts of ``--players``, or the error message saying why they are not."""
    try:
        counts = [int(x) for x in players.split(",")]
    except ValueError:
        return f"--players {players!r}: use counts, each one of {allowed_counts()}, e.g. 2,3,4,5"
    distinct = len(set(counts)) == len(counts)
    if not counts or not all(is_player_count(n) for n in counts) or not distinct:
        return (
            f"--players {players!r}: use distinct counts, each one of {allowed_counts()}, e.g. 2,4"
        )
    return counts


def _check_args(args: argparse.Namespace, panel: list[str]) -> str | None:
    """Why the options after ``--players`` cannot run (an error message), or None."""
    if not panel:
        return "--panel is empty: name at least one bot, e.g. racer"
    if args.games < 1 or args.workers < 1:
        return "--games and --workers must be at least 1"
    if args.resume and args.out is None:
        return "--resume needs --out, the log to continue"
    try:
        for spec in dict.fromkeys([args.policy, *panel]):
            make_agent(spec, 0)
    except PlayerSpecError as e:
        return str(e)
    if args.policy in panel:
        return (
            f"the policy {args.policy!r} is also in the panel; give it a display "
            f"name, e.g. {args.policy}@me"
        )
    return None


def _print_result(args: argparse.Namespace, result: dict) -> None:
    """The result on stdout: one JSON object (--json), the markdown table (--markdown), or
    one line per table."""
    lines = result["tables"]
    if args.json:
        print(json.dumps(result))
    if args.markdown:
        print(markdown(lines))
    if not args.json and not args.markdown:
        for x in lines:
            print(
                f"{x['num_players']}p {x['table']:<16} {x['first']:<40.40} "
                f"{rate_text(x)} chance {100 * x['chance']:.0f}%  "
                f"{'ok' if x['clears_chance'] else 'NOT'}"
            )


def main() -> int:
    args = _parser().parse_args()
    panel = [b.strip() for b in args.panel.split(",") if b.strip()]
    counts = _counts(args.players)
    error = counts if isinstance(counts, str) else _check_args(args, panel)
    if error is not None:
        print(f"error: {error}", file=sys.stderr)
        return 2
    ts = tables(args.policy, panel, counts, not args.no_reverse)
    header = log_header(
        "reference_tables",
        ts,
        policy=args.policy,
        panel=panel,
        seed=args.seed,
        deals=args.deals,
        games_per_table=args.games,
    )
    t0 = time.perf_counter()
    try:
        rows = play_logged(
            ts,
            args.games,
            args.out,
            header,
            on_note=lambda text: print(text, file=sys.stderr),
            resume=args.resume,
            seed=args.seed,
            deals=args.deals,
            workers=args.workers,
        )
    except EvalError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    lines = [table_line(t, rows) for t in ts]
    result = {
        "policy": args.policy,
        "seed": args.seed,
        "deals": args.deals,
        "games_per_table": args.games,
        "seconds": round(time.perf_counter() - t0, 1),
        "tables": lines,
    }
    _print_result(args, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
