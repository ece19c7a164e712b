"""Bot ladder through the panel evaluation (`agents.evaluate`: the arena's paired deals, seats
rotated, Wilson 95% intervals).

    python -m labreports.bot_ladder [--game lastwill] [--games 400] [--players 4] [--json]
        [--workers 2]
        [--bots greedy,speculator,planner,combiner,racer]
        [--extra ppo:agents/policies/reference.npz] [--only-extra] [--skip-random]
        [--mixed SPEC,SPEC,...] [--ratings]

Each bot (and each `--extra` entrant) is evaluated like `lastwill eval`: against
`players - 1` random players (unless `--skip-random`) and `players - 1` copies of every other
bot of `--bots` (`--bots` defaults to the game's panel, `Game.default_panel`; `--game money`
plays Money!'s bots). Then one mixed table of the bots
(the first `players` of them) and each `--mixed` table. `--only-extra` keeps the tables of the
`--extra` entrants (and the `--mixed` ones). Prints one line per table: the first entrant's win
rate, Wilson interval, mean rank (with `--json`, one JSON object per table); `--ratings` adds
the lab's ratings over the mixed tables' games (`agents.stats.fit_ratings`: one Plackett-Luce
fit, order-free, on the Elo scale, centred on their mean, with a standard error and a 95%
interval from a bootstrap over deals seeded by `--seed`; with `--json`, one last object
`{"ratings": ...}`). The ladder is a reported figure, so it plays test deals (`agents.deals`)
unless `--deals validation` is given.
"""

from __future__ import annotations

import argparse
import json

from agents.deals import deals_of
from agents.evaluate import Table, evaluate, play_tables
from agents.stats import fit_ratings, summarize
from gamecore import DEFAULT_GAME, game_names, load_game


def line(res: dict, n: int, mixed: bool) -> str:
    vs = "mixed" if mixed else f"vs {n - 1}x {res['table'][1]}"
    return (
        f"{res['spec']:<40} {vs:<18} games {res['games']:>5}  win "
        f"{res['win_rate']:6.1%} [{res['ci_lo']:6.1%}, {res['ci_hi']:6.1%}]  "
        f"mean rank {res['mean_rank']:.2f}  errors {res['errors']}"
    )


def head_entry(entrants: tuple[str, ...], rows: list[dict]) -> dict:
    """The first entrant's line of one table (plus every entrant's, under "all")."""
    out = {e["spec"]: e for e in summarize(rows)}
    head = out[entrants[0]]
    return {
        "table": list(entrants),
        "spec": entrants[0],
        "games": head["games"],
        "win_rate": head["win_rate"],
        "ci_lo": head["ci_lo"],
        "ci_hi": head["ci_hi"],
        "chance": head["chance"],
        "mean_rank": head["mean_rank"],
        "errors": sum(1 for r in rows if r.get("error") is not None),
        "deals": deals_of(rows[0]["deal_seed"]) if rows else None,
        "all": {k: (v["win_rate"], v["ci_lo"], v["ci_hi"], v["mean_rank"]) for k, v in out.items()},
    }


def _num(x: float | None, spec: str) -> str:
    return "-" if x is None else format(x, spec)


def rating_lines(rated: dict) -> list[str]:
    """`--ratings` as text: what they are, then one line per entrant, best first (the rating, its
    standard error and interval; `-` where there is none)."""
    out = [
        f"ratings: one Plackett-Luce fit over the mixed tables' games (order-free, Elo scale, "
        f"mean 0); ±: standard error, [{rated['level']:.0%} interval], over "
        f"{rated['resamples']} bootstrap resamples of the {rated['deals']} deals"
    ]
    for spec, r in rated["ratings"].items():
        interval = "" if r["ci_lo"] is None else f"  [{r['ci_lo']:+.1f}, {r['ci_hi']:+.1f}]"
        out.append(
            f"rating {spec:<40} {_num(r['rating'], '+7.1f')} ± {_num(r['se'], '5.1f')}"
            f"{interval}  games {r['games']}"
        )
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--game", default=DEFAULT_GAME, choices=game_names())
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--players", type=int, default=4, choices=range(2, 6), metavar="N")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--deals", default="test", choices=("test", "validation"))
    ap.add_argument("--bots", help="comma-separated bot specs (default: the game's panel)")
    ap.add_argument("--extra", action="append", default=[], help="more entrants (e.g. ppo:PATH)")
    ap.add_argument("--skip-random", action="store_true", help="no tables against random")
    ap.add_argument("--only-extra", action="store_true", help="only the --extra entrants' tables")
    ap.add_argument("--mixed", action="append", default=[], help="a mixed table: SPEC,SPEC,...")
    ap.add_argument(
        "--ratings", action="store_true", help="Plackett-Luce ratings over the mixed tables"
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    game = load_game(args.game)
    if args.players not in game.player_counts:
        ap.error(f"--players {args.players}: {game.title} is played by {game.player_counts}")
    bots = [b for b in (args.bots or ",".join(game.default_panel)).split(",") if b]
    n = args.players
    mixed_tables: list[tuple[str, ...]] = []
    if len(bots) >= n and not args.only_extra:
        mixed_tables.append(tuple(bots[:n]))
    for m in args.mixed:
        t = tuple(x for x in m.split(",") if x)
        if len(t) != n:
            ap.error(f"--mixed {m!r} names {len(t)} players; give exactly {n}")
        mixed_tables.append(t)

    def emit(res: dict, mixed: bool) -> None:
        print(json.dumps(res) if args.json else line(res, n, mixed), flush=True)

    for me in args.extra if args.only_extra else [*args.extra, *bots]:
        panel = ([] if args.skip_random else ["random"]) + [b for b in bots if b != me]
        result = evaluate(
            me,
            panel=panel,
            num_players=[n],
            games=args.games,
            seed=args.seed,
            deals=args.deals,
            mixed=False,
            workers=args.workers,
            game_name=game.name,
        )
        for table in result.tables:
            emit(head_entry(table.entrants, result.table_rows(table)), mixed=False)
    mixed_rows: list[dict] = []
    for t in mixed_tables:
        rows = play_tables(
            [Table("mixed", n, t)],
            args.games,
            seed=args.seed,
            deals=args.deals,
            workers=args.workers,
            game_name=game.name,
        )
        mixed_rows += rows
        for spec in dict.fromkeys(t):  # one line per entrant of a mixed table
            emit(head_entry((spec, *[x for x in t if x != spec]), rows), mixed=True)
    if args.ratings and mixed_rows:
        rated = fit_ratings(mixed_rows, anchor=None, seed=args.seed)
        print(json.dumps({"ratings": rated}) if args.json else "\n".join(rating_lines(rated)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
