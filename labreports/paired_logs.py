"""Two players compared on the same games of two logs: the paired difference of their win
rates over deals (`agents.stats.paired_comparison`).

Two evaluation logs played on one schedule (the same seed, deal set, player count and
opponents; player A sits in log A where player B sits in log B) pair game by game: a game of
one is matched with the game of the other that has the same deal and seat rotation. This is the
honest head-to-head claim between two players that never met, for example the search over two
critics, each alone against the same two references:

    python -m labreports.paired_logs docs/results/games/mcts256vf_3p_ref_test.jsonl \\
        docs/results/games/mcts256_3p_ref_test.jsonl --players 3 --table vs_ppo:reference \\
        --table-b vs_ppo:agents/policies/reference.npz

`--players` and `--table` keep one table of each log (a log of several counts or panels;
`--table-b` names log B's table where its name differs, as `vs_ppo:reference` and
`vs_ppo:agents/policies/reference.npz` do);
`--a` and `--b` default to the player each log seats alone (against n-1 copies).

With one log, the two players are two entrants of its games (a head-to-head evaluation: the
player alone against one copy of the other at 2 players): `--a` defaults to the player the
evaluation's header names (else the one seated alone) and `--b` to the one other entrant;
every game pairs with itself, so the difference is over the log's deals and McNemar's test
(2 players) pairs each deal's two seatings.

    python -m labreports.paired_logs docs/results/games/vf2s08_2p_ref_test.jsonl --players 2

Prints the
win rates over the paired games, the difference with its paired bootstrap 95% interval over
deals and McNemar's exact test over the paired games; `--json` prints one JSON object (with
the deal set and seed of the logs' headers). A log that cannot be read, two logs of different
deal sets, or two logs with no game in common, is an error (exit code 2).
"""

from __future__ import annotations

import argparse
import json
import sys

from agents.arena import ArenaError, read_log
from agents.gamelog import GameLogError, check_row
from agents.registry import display_name
from agents.stats import paired_comparison


def kept(rows: list[dict], players: int | None, table: str | None) -> list[dict]:
    """The games of one table: the rows of `players` players and of `table` (when given)."""
    return [
        r
        for r in rows
        if (players is None or r.get("num_players") == players)
        and (table is None or r.get("table") == table)
    ]


def keyed(rows: list[dict]) -> list[dict]:
    """The rows with `game` replaced by (deal seed, seat rotation), the key that pairs a game of
    one log with its twin in the other whatever the games' numbers in their logs."""
    return [{**r, "game": (r.get("deal_seed"), r.get("seating_index"))} for r in rows]


def compare(rows_a: list[dict], rows_b: list[dict], a: str, b: str, seed: int = 0) -> dict:
    """The paired comparison of `a` in `rows_a` with `b` in `rows_b`."""
    return paired_comparison(keyed(rows_a), a, b, rows_b=keyed(rows_b), seed=seed)


def _read(path: str, what: str) -> tuple[dict, list[dict]]:
    """The header and game rows of a log, each row checked as a game record (a clear error
    naming the line otherwise: the rows are data from a file, and nothing unchecked is used)."""
    try:
        header, rows, _ = read_log(path)
        for i, row in enumerate(rows):
            where = f"{path}: game row {i + 1}"
            check_row(row, where, i)
            if row.get("error") is None and type(row.get("winner")) is not int:
                raise GameLogError(f"{where}: 'winner' must be a seat index")
            if type(row.get("seating_index")) is not int:
                raise GameLogError(f"{where}: 'seating_index' must be an integer")
    except (OSError, ArenaError, GameLogError) as e:
        raise ValueError(f"{what} {path}: cannot be read as a game log ({e})") from None
    return header or {}, rows


def deal_set(header_a: dict, header_b: dict) -> dict:
    """The deal set and seed both logs' headers name (an error when they differ)."""
    a = {"deals": header_a.get("deals"), "seed": header_a.get("seed")}
    b = {"deals": header_b.get("deals"), "seed": header_b.get("seed")}
    if a != b:
        raise ValueError(f"the logs were played on different deals: {a} and {b}")
    return a


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("log_a", help="the log where player A plays")
    ap.add_argument(
        "log_b",
        nargs="?",
        default=None,
        help="the log where player B plays, on the same schedule (none: B is in log A's games)",
    )
    ap.add_argument("--a", default=None, help="player A's spec (default: the one seated alone)")
    ap.add_argument("--b", default=None, help="player B's spec (default: the one seated alone)")
    ap.add_argument("--players", type=int, default=None, help="keep the games of this count")
    ap.add_argument("--table", default=None, help="keep the games of this table, e.g. vs_sprinter")
    ap.add_argument(
        "--table-b", default=None, help="log B's name of that table, where it differs (--table)"
    )
    ap.add_argument("--seed", type=int, default=0, help="seed of the bootstrap")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    try:
        if args.log_b is None:
            header, a, b, result = _one_log(args)
        else:
            header, a, b, result = _two_logs(args)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    result.update(
        a_name=display_name(a),
        b_name=display_name(b),
        header=header,
        log_a=args.log_a,
        log_b=args.log_b,
        players=args.players,
        table=args.table,
        table_b=(args.table_b or args.table) if args.log_b else None,
    )
    if args.json:
        print(json.dumps(result))
        return 0
    rates = f"A {100 * result['a_value']:.1f}%, B {100 * result['b_value']:.1f}%"
    print(f"{result['games']} paired games over {result['deals']} deals: {rates}")
    print(result["verdict"])
    return 0


def _two_logs(args: argparse.Namespace) -> tuple[dict, str, str, dict]:
    """Player A in log A's games against player B in log B's twins of them."""
    header_a, rows_a = _read(args.log_a, "log A")
    header_b, rows_b = _read(args.log_b, "log B")
    header = deal_set(header_a, header_b)
    rows_a = kept(rows_a, args.players, args.table)
    rows_b = kept(rows_b, args.players, args.table_b or args.table)
    for rows, path in ((rows_a, args.log_a), (rows_b, args.log_b)):
        if not rows:
            raise ValueError(f"{path} holds no game of the table asked for")
    a = args.a or _first_entrant(rows_a)
    b = args.b or _first_entrant(rows_b)
    result = compare(rows_a, rows_b, a, b, seed=args.seed)
    if not result["games"]:
        raise ValueError(
            f"no game is in both logs with {a!r} in log A and {b!r} in log B: "
            "are they the same schedule (seed, deals, count, opponents)?"
        )
    return header, a, b, result


def _one_log(args: argparse.Namespace) -> tuple[dict, str, str, dict]:
    """Two entrants of the same games of one log."""
    if args.table_b is not None:
        raise ValueError("--table-b names log B's table: give log B, or leave --table-b out")
    header, rows = _read(args.log_a, "log A")
    rows = kept(rows, args.players, args.table)
    if not rows:
        raise ValueError(f"{args.log_a} holds no game of the table asked for")
    seated = {s for r in rows for s in r["seating"]}
    evaluated = header.get("spec")  # an evaluation log's player, whatever the count
    a = args.a or (evaluated if evaluated in seated else _first_entrant(rows))
    others = sorted(seated - {a})
    if args.b is None and len(others) != 1:
        raise ValueError(f"the games seat {len(others)} players besides {a!r}: give --b")
    b = args.b or others[0]
    if a == b:
        raise ValueError(f"--a and --b name the same player {a!r}: give two entrants")
    result = paired_comparison(rows, a, b, seed=args.seed)
    if not result["games"]:
        raise ValueError(f"no game of {args.log_a} seats both {a!r} and {b!r}")
    return {"deals": header.get("deals"), "seed": header.get("seed")}, a, b, result


def _first_entrant(rows: list[dict]) -> str:
    """The entrant of the table: the spec every kept game seats exactly once."""
    counts: dict[str, int] = {}
    for s in rows[0]["seating"]:
        counts[s] = counts.get(s, 0) + 1
    once = [s for s, k in counts.items() if k == 1]
    if len(once) != 1:
        raise ValueError("cannot tell the player of the table: give --a and --b")
    return once[0]


if __name__ == "__main__":
    raise SystemExit(main())
