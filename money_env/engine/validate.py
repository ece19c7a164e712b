"""Validation of a game state loaded from plain data (`GameState.from_dict`).

Two layers, as in Last Will's engine:
- `FIELDS`: one check per state field on its JSON value alone (type, length, range), given the
  configuration; every number is bounded (card ids 0..73, seats, rounds up to `MAX_ROUNDS`,
  a history no longer than `MAX_DECISIONS_PER_GAME`), and nothing is ever evaluated.
- `RELATIONS`: checks across fields, each named after the field it blames: every note and coin
  in play in exactly one place and each bluff in its own seat's hand (docs/games/MONEY.md §3),
  the hidden bids inside their hands, the public knowledge of hands inside them (§9), the
  pending decision agreeing with the phase (§4), the end reached only after the last round
  (§5) and, last, the history replayed from the seed's deal reaching this very state (skipped
  for seed null: a determinized or hand-arranged state has no deal to replay from).

A problem raises `StateError` (a ValueError) naming the field.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gamecore.plain import is_int

from .actions import NUM_ACTIONS
from .cards import NUM_CARDS, bluff_of, in_play, is_bluff
from .config import MASK64, ConfigError, GameConfig
from .tables import BID_PHASE, GAME_OVER, MAX_DECISIONS_PER_GAME, MAX_ROUNDS


class StateError(ValueError):
    """A game state that is malformed or that the rules cannot reach; names the field."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"game state field {field!r}: {problem}")
        self.field = field


def _int_in(name: str, v: Any, lo: int, hi: int) -> int:
    if not is_int(v):
        raise StateError(name, f"{v!r} is not an integer")
    if not lo <= v <= hi:
        raise StateError(name, f"{v} is out of range {lo}..{hi}")
    return int(v)


def _cards(name: str, v: Any, ordered: bool = True) -> list[int]:
    """A list of distinct card ids; ascending when `ordered`."""
    if not isinstance(v, list):
        raise StateError(name, f"must be a list of card ids, not {type(v).__name__}")
    if len(v) > NUM_CARDS:
        raise StateError(name, f"{len(v)} cards, more than the {NUM_CARDS} of the game")
    out = [_int_in(name, c, 0, NUM_CARDS - 1) for c in v]
    if len(set(out)) != len(out):
        raise StateError(name, "a card appears twice")
    if ordered and out != sorted(out):
        raise StateError(name, "must be in ascending order")
    return out


def _per_seat(name: str, v: Any, n: int, item: Callable[[str, Any], Any]) -> list:
    if not isinstance(v, list) or len(v) != n:
        raise StateError(name, f"must be a list with one entry per seat ({n})")
    return [item(f"{name}[{p}]", x) for p, x in enumerate(v)]


def _bool(name: str, v: Any) -> bool:
    if not isinstance(v, bool):
        raise StateError(name, f"{v!r} is not a bool")
    return v


def _seed(name: str, v: Any) -> int | None:
    return None if v is None else _int_in(name, v, 0, MASK64)


def _history(name: str, v: Any) -> list[int]:
    if not isinstance(v, list):
        raise StateError(name, f"must be a list of action ints, not {type(v).__name__}")
    if len(v) > MAX_DECISIONS_PER_GAME:
        raise StateError(name, f"{len(v)} decisions, more than {MAX_DECISIONS_PER_GAME}")
    return [_int_in(name, a, 0, NUM_ACTIONS - 1) for a in v]


def _fields(n: int) -> dict[str, Callable[[str, Any], Any]]:
    seat_cards = lambda k, v: _per_seat(k, v, n, _cards)  # noqa: E731
    return {
        "n": lambda k, v: _int_in(k, v, n, n),
        "seed": _seed,
        "round": lambda k, v: _int_in(k, v, 1, MAX_ROUNDS),
        "phase": lambda k, v: _int_in(k, v, BID_PHASE, GAME_OVER),
        "cur": lambda k, v: _int_in(k, v, -1, n - 1),
        "nbid": lambda k, v: _int_in(k, v, 0, n - 1),
        "hands": seat_cards,
        "sel": seat_cards,
        "table": seat_cards,
        "revealed": seat_cards,
        "bluffed": lambda k, v: _per_seat(k, v, n, _bool),
        "acted": lambda k, v: _per_seat(k, v, n, _bool),
        "right": _cards,
        "left": _cards,
        "pile": lambda k, v: _cards(k, v, ordered=False),
        "known": seat_cards,
        "history": _history,
    }


def load_fields(data: Any, names: tuple[str, ...]) -> tuple[GameConfig, dict[str, Any]]:
    """The configuration and each field of a `to_dict` dict, checked one by one and copied."""
    if not isinstance(data, dict) or "config" not in data:
        raise StateError("config", "a game state dict needs a 'config' entry (see to_dict)")
    try:
        cfg = GameConfig.from_dict(data["config"])
    except (ConfigError, TypeError) as e:
        raise StateError("config", str(e)) from None
    missing = [k for k in names if k not in data]
    if missing:
        raise StateError(missing[0], f"missing (the dict lacks {missing})")
    unknown = sorted(str(k) for k in set(data) - set(names) - {"config"})
    if unknown:
        raise StateError(unknown[0], f"not a field of a game state (unknown: {unknown})")
    checks = _fields(cfg.num_players)
    return cfg, {k: checks[k](k, data[k]) for k in names}


# ---------------------------------------------------------------------------------------------
# Relations


def _check_places(s: Any) -> None:
    """Every note and coin in play exactly once (§3); each bluff in its own seat's hand."""
    seen: dict[int, str] = {}
    places = [(f"hands[{p}]", h) for p, h in enumerate(s.hands)]
    places += [(f"table[{p}]", t) for p, t in enumerate(s.table)]
    places += [("right", s.right), ("left", s.left), ("pile", s.pile)]
    want = set(in_play(s.n))
    for name, cards in places:
        for c in cards:
            if c in seen:
                raise StateError(name, f"card {c} is also in {seen[c]}")
            if c not in want and not (name.startswith("hands") and is_bluff(c)):
                raise StateError(name, f"card {c} is not in play in a {s.n}-player game")
            seen[c] = name
    for p, h in enumerate(s.hands):
        if [c for c in h if is_bluff(c)] != [bluff_of(p)]:
            raise StateError(f"hands[{p}]", f"must hold bluff {bluff_of(p)} and no other bluff")
    missing = sorted(want - set(seen))
    if missing:
        raise StateError("pile", f"card {missing[0]} of the game is nowhere")


def _check_subsets(s: Any) -> None:
    for p in range(s.n):
        hand = set(s.hands[p])
        if not set(s.sel[p]) <= hand:
            raise StateError(f"sel[{p}]", "a bid being built must come from the hand")
        if not set(s.known[p]) <= hand or bluff_of(p) not in s.known[p]:
            raise StateError(f"known[{p}]", "known cards must be in the hand, its bluff included")
    seen: set[int] = set()
    for p, r in enumerate(s.revealed):
        if any(is_bluff(c) or c in seen for c in r):
            raise StateError(f"revealed[{p}]", "a bluff or a card revealed by two seats")
        seen.update(r)


def _check_bid_phase(s: Any) -> None:
    n = s.n
    first = (s.round - 1) % n
    if s.cur != (first + s.nbid) % n:
        raise StateError("cur", f"seat {s.cur} does not bid now; seat {(first + s.nbid) % n}")
    for i in range(n):
        p = (first + i) % n
        if i < s.nbid and not s.sel[p]:
            raise StateError(f"sel[{p}]", "a committed bid is never empty")
        if i > s.nbid and s.sel[p]:
            raise StateError(f"sel[{p}]", "a seat that has not bid yet has no bid")
    for name in ("table", "revealed"):
        if any(getattr(s, name)):
            raise StateError(name, "must be empty while the bids are hidden")
    for name in ("bluffed", "acted"):
        if any(getattr(s, name)):
            raise StateError(name, "must be all false while the bids are hidden")


def _check_table(s: Any) -> None:
    over = s.phase == GAME_OVER
    if s.nbid:
        raise StateError("nbid", "must be 0 after the reveal")
    if any(s.sel):
        raise StateError("sel", "must be empty after the reveal")
    for p in range(s.n):
        if s.acted[p] and (s.table[p] or not s.revealed[p]):
            raise StateError(f"acted[{p}]", "a seat that acted has bid and has no bid left")
        if s.table[p] and (s.acted[p] or not s.revealed[p] or over):
            raise StateError(f"table[{p}]", "a bid stays on the table only until its seat acts")
        if not s.revealed[p] and not s.bluffed[p]:
            raise StateError(f"bluffed[{p}]", "a seat with nothing revealed bid its bluff alone")
        if over and s.acted[p] != bool(s.revealed[p]):
            raise StateError(f"acted[{p}]", "at the end every seat that bid has acted")
    waiting = [p for p in range(s.n) if s.table[p] and not s.acted[p]]
    if over:
        if s.cur != -1:
            raise StateError("cur", "must be -1 once the game is over")
        if s.pile and s.round < MAX_ROUNDS:
            raise StateError("phase", "the game ends only after the last round")
    elif s.cur not in waiting:
        raise StateError("cur", f"seat {s.cur} has no bid waiting on the table")


def check_state(s: Any, replay: Callable[[GameConfig, int, list[int]], Any]) -> None:
    """Every relation of a loaded state; `replay` is the engine's (handed in, so this module
    does not import the rules)."""
    if s.phase != GAME_OVER and (not s.right or not s.left):
        raise StateError("right" if not s.right else "left", "a group is never empty")
    _check_places(s)
    _check_subsets(s)
    if s.phase == BID_PHASE:
        _check_bid_phase(s)
    else:
        _check_table(s)
    if s.seed is None:  # arranged by hand or determinized: no deal to replay from
        return
    try:
        real = replay(s.cfg, s.seed, s.history)
    except ValueError as e:
        problem = f"does not replay from the deal of seed {s.seed}: {e}"
        raise StateError("history", problem) from None
    mine, theirs = s.to_dict(), real.to_dict()
    if mine != theirs:
        diff = [k for k, v in theirs.items() if mine[k] != v]
        raise StateError(diff[0], "differs from the state the history reaches from the deal")
