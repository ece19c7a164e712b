"""The data behind ``lastwill view``: logs, games, table pictures and policy analyses as JSON.

Everything here returns plain dicts and lists (JSON-ready) and raises :class:`ViewError` for a
bad request: its ``status`` is the HTTP status the server answers with, its message says what
was wrong and ``allowed`` (when given) lists what would have been accepted. Nothing here
changes a log or a game.

Seats are absolute (seat 0 is the first seat of the record). A *view* is either ``"all"``
(omniscient: every hand) or one seat, whose pictures are drawn from that seat's
:func:`~lastwill_env.engine.player_view` alone (docs/RULES.md §10), so nothing hidden from it can
appear; the decisions of other seats are named as that seat saw them (which starting cards a
player keeps is hidden, :func:`~lastwill_env.engine.text.describe_step`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.gamelog import GameFile, GameLogError, read_game_file
from gamecore import DEFAULT_GAME
from lastwill_env.cardref import card_text
from lastwill_env.engine import (
    CATALOGUE,
    COMPANIONS,
    DECKS,
    GAME_OVER,
    PHASE_NAMES,
    PROPERTY_TYPES,
    GameConfig,
    GameState,
    PlayerView,
    decode,
    describe_action,
    legal_actions,
    player_view,
)
from lastwill_env.engine.actions import ERRAND_NAMES
from lastwill_env.engine.game import BREED_PHASE, DRAW_PHASE, TURN_PHASE
from lastwill_env.engine.text import describe_step

from ..replay import ReplayError, all_states, check_record
from . import limits

CARDS = CATALOGUE.cards
ALL = "all"
_LOCK = threading.Lock()


class ViewError(ValueError):
    """A request the viewer cannot answer; ``status`` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400, allowed: Any = None) -> None:
        super().__init__(message)
        self.status = status
        self.allowed = allowed

    def payload(self) -> dict[str, Any]:
        out: dict[str, Any] = {"error": str(self)}
        if self.allowed is not None:
            out["allowed"] = self.allowed
        return out


# ---------------------------------------------------------------------------------------------
# The catalogue (sent once; frames refer to cards by id)


def catalogue() -> dict[str, Any]:
    cards = []
    for c in CARDS:
        cards.append(
            {
                "id": c.id,
                "name": c.name,
                "category": c.category,
                "deck": c.deck,
                "crowns": c.crowns,
                "family": c.family,
                "type": PROPERTY_TYPES[c.prop_type] if c.prop_type >= 0 else None,
                "values": list(c.values),
                "upkeep": c.upkeep,
                "slots": [[COMPANIONS[t], amount] for t, amount in c.slots],
                "companion": COMPANIONS[c.companion] if c.companion >= 0 else None,
                # price, spend, options, companion slots, privilege: docs/CARDS.md's words
                "text": card_text(c.id),
            }
        )
    plans = {
        str(n): [
            {"order": p.order, "cards": p.cards, "errand_boys": p.errand_boys, "actions": p.actions}
            for p in ps
        ]
        for n, ps in CATALOGUE.plans.items()
    }
    return {
        "cards": cards,
        "plans": plans,
        "decks": list(DECKS),
        "companions": list(COMPANIONS),
        "property_types": list(PROPERTY_TYPES),
        "phases": list(PHASE_NAMES),
        "errand_spaces": list(ERRAND_NAMES),
        "extension_capacity": {str(n): k for n, k in CATALOGUE.extension_capacity.items()},
    }


# ---------------------------------------------------------------------------------------------
# Logs


def read_records(path: Path) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """``(header, rows)`` of an arena JSONL log, or ``(None, [record])`` of a game file, read
    and checked by :func:`agents.gamelog.read_game_file` (the reader ``lastwill replay`` uses
    too): every row is a game record or an error row, nothing is nested deeper than
    :data:`~apps.viewer.limits.MAX_DEPTH` levels, and a problem names the file and line."""
    try:
        gf = read_game_file(path, limits.MAX_DEPTH)
    except GameLogError as e:
        raise ViewError(str(e)) from None
    return gf.header, gf.rows


def game_name_of(path: Path, header: dict[str, Any] | None, rows: list[dict[str, Any]]) -> str:
    """The game of the rows :func:`read_records` read (`agents.gamelog.GameFile.game_name`:
    the header's ``game``, else a single record's own, else Last Will)."""
    single = header is None and len(rows) == 1
    return GameFile(path, header, rows, [], single=single).game_name


def game_index(row: dict[str, Any], position: int) -> int:
    """The index of a game row: its ``game`` field, or its position in the file when that is
    not an integer (a play record may hold its game's name there, `apps.tableplay`)."""
    index = row.get("game", position)
    return index if type(index) is int else position


def game_summary(row: dict[str, Any], position: int) -> dict[str, Any]:
    err = row.get("error")
    if err is not None and not isinstance(err, dict):
        err = {"message": str(err)}
    return {
        "game": game_index(row, position),
        "deal": row.get("deal"),
        "deal_seed": row.get("deal_seed"),
        "seating": list(row.get("seating") or []),
        "kind": "play" if row.get("type") == "play" else "arena",
        "finished": row.get("ranks") is not None,
        "winner": row.get("winner"),
        "winner_spec": row.get("winner_spec"),
        "ranks": row.get("ranks"),
        "money": row.get("money"),
        "totals": row.get("totals"),
        "rounds": row.get("rounds"),
        "decisions": row.get("decisions", len(row.get("actions") or [])),
        "human_seat": row.get("human_seat"),
        "error": err,
    }


@dataclass
class LogSource:
    id: str
    path: Path
    mtime: float
    header: dict[str, Any] | None
    rows: list[dict[str, Any]]
    game_name: str = DEFAULT_GAME  # the game of its rows (`agents.gamelog.GameFile.game_name`)

    @property
    def entrants(self) -> list[str]:
        specs: dict[str, None] = {}
        if self.header and isinstance(self.header.get("entrants"), list):
            specs.update(dict.fromkeys(str(e) for e in self.header["entrants"]))
        for r in self.rows:
            specs.update(dict.fromkeys(str(s) for s in r.get("seating") or []))
        return list(specs)

    def describe(self) -> dict[str, Any]:
        kind = "arena log" if self.header is not None or len(self.rows) > 1 else "game file"
        return {
            "id": self.id,
            "path": str(self.path),
            "name": self.path.name,
            "kind": kind,
            "games": len(self.rows),
            "entrants": self.entrants,
            "game": self.game_name,
        }

    def games(self, entrant: str | None = None, winner: str | None = None) -> dict[str, Any]:
        """The game list, filtered to the games ``entrant`` sat in / ``winner`` won."""
        allowed = self.entrants
        for name, value in (("entrant", entrant), ("winner", winner)):
            if value is not None and value not in allowed:
                raise ViewError(
                    f"{name} {limits.shown(value)} is not an entrant of {self.path.name}",
                    allowed=allowed,
                )
        out = []
        for i, row in enumerate(self.rows):
            if entrant is not None and entrant not in (row.get("seating") or []):
                continue
            if winner is not None and row.get("winner_spec") != winner:
                continue
            summary = game_summary(row, i)
            if self.game_name != DEFAULT_GAME:  # the game's own per-seat results (scores)
                summary["scores"] = row.get("scores")
            out.append(summary)
        return {"log": self.describe(), "entrant": entrant, "winner": winner, "games": out}

    def record(self, game: int) -> dict[str, Any]:
        for i, row in enumerate(self.rows):
            if game_index(row, i) == game:
                return row
        have = [game_index(r, i) for i, r in enumerate(self.rows)]
        raise ViewError(f"{self.path.name} has no game {game}", status=404, allowed=have)


class Sources:
    """The logs the server has opened, by id (``"1"``, ``"2"``, ...). Thread-safe."""

    def __init__(self) -> None:
        self._by_id: dict[str, LogSource] = {}
        self._lock = threading.Lock()

    def open(self, path: str | Path) -> LogSource:
        """Open (or re-read, when it changed on disk) the log at ``path``."""
        p = Path(path).expanduser()
        try:
            p = p.resolve()
        except OSError as e:
            raise ViewError(f"{path}: not a usable path ({e})") from None
        header, rows = read_records(p)
        name = game_name_of(p, header, rows)
        try:
            mtime = p.stat().st_mtime
        except OSError as e:  # removed since it was read
            raise ViewError(f"{p}: cannot read it ({e.strerror})") from None
        with self._lock:
            for src in self._by_id.values():
                if src.path == p:
                    src.header, src.rows, src.mtime, src.game_name = header, rows, mtime, name
                    return src
            sid = str(len(self._by_id) + 1)
            src = LogSource(sid, p, mtime, header, rows, name)
            self._by_id[sid] = src
            return src

    def get(self, sid: str) -> LogSource:
        with self._lock:
            src = self._by_id.get(sid)
            if src is None:
                raise ViewError(
                    f"no open log {limits.shown(sid)}", status=404, allowed=list(self._by_id)
                )
            # an arena log that is still being written grows: re-read it when it changed
            try:
                changed = src.path.stat().st_mtime != src.mtime
            except OSError:
                changed = False
        if changed:
            return self.open(src.path)
        return src

    def list(self) -> list[dict[str, Any]]:
        with self._lock:
            return [s.describe() for s in self._by_id.values()]


# ---------------------------------------------------------------------------------------------
# One game


def parse_view(value: str | None, n: int) -> int | None:
    """``"all"`` -> ``None`` (every hand); ``"0"``..``"n-1"`` -> that seat."""
    allowed = [ALL] + [str(s) for s in range(n)]
    if value is None:
        raise ViewError(
            "say whose view to show: seat=all (omniscient: every hand) or seat=S, the view of "
            "seat S (docs/RULES.md §10)",
            allowed=allowed,
        )
    if value == ALL:
        return None
    if value in allowed:
        return int(value)
    raise ViewError(
        f"seat={limits.shown(value)} is not a view of this {n}-player game", allowed=allowed
    )


@dataclass
class GameReplay:
    """Every state of one recorded game (``states[k]`` is the state before decision ``k``;
    ``states[-1]`` the state after the last one)."""

    record: dict[str, Any]
    config: GameConfig
    states: list[GameState]
    seats: list[int]  # who decided each decision
    actions: list[int]
    specs: list[str] = field(default_factory=list)
    series: dict[int, Any] = field(default_factory=dict)  # the policy's values, by seat

    @classmethod
    def build(cls, record: dict[str, Any], where: str = "record") -> GameReplay:
        try:
            check_record(record, where)
        except ReplayError as e:
            raise ViewError(str(e), status=422) from None
        config = GameConfig.from_dict(record["config"])
        try:
            states, seats = all_states(record)
        except ReplayError as e:
            raise ViewError(f"{where}: {e}", status=422) from None
        except (TypeError, ValueError) as e:
            raise ViewError(f"{where}: its deal cannot be made ({e})", status=422) from None
        actions = list(record["actions"])
        return cls(record, config, states, seats, actions, list(record["seating"]))

    @property
    def n(self) -> int:
        return self.config.num_players

    @property
    def total(self) -> int:
        return len(self.actions)

    def names(self) -> list[str]:
        return [f"P{s} {spec}" for s, spec in enumerate(self.specs)]

    def check_decision(self, k: Any) -> int:
        if type(k) is not int or not 0 <= k <= self.total:
            raise ViewError(
                f"decision {k!r} is not in this game: it has decisions 0..{self.total - 1} "
                f"and {self.total} (after the last)",
                allowed={"min": 0, "max": self.total},
            )
        return k

    def decision(self, k: int, viewer: int | None) -> dict[str, Any]:
        """Decision ``k`` (made in ``states[k]``), named as ``viewer`` saw it."""
        s = self.states[k]
        seat, action = self.seats[k], self.actions[k]
        name = describe_step(action, seat, viewer)
        hidden = viewer is not None and seat != viewer and decode(action)[0] == "keep"
        return {
            "k": k,
            "round": s.round,
            "phase": PHASE_NAMES[s.phase],
            "seat": seat,
            "action": None if hidden else action,
            "name": name,
        }

    def detail(self, viewer: int | None) -> dict[str, Any]:
        """The whole game: seats, every decision (named for ``viewer``), money over the
        decisions, the first decision of each round, the results."""
        money = [[st.money[p] for st in self.states] for p in range(self.n)]
        starts: dict[int, int] = {}
        for k in range(self.total):
            starts.setdefault(self.states[k].round, k)
        final = self.states[-1]
        r = self.record
        return {
            "game": r.get("game", 0),
            "kind": "play" if r.get("type") == "play" else "arena",
            "deal_seed": r["deal_seed"],
            "config": self.config.to_dict(),
            "num_players": self.n,
            "human_seat": r.get("human_seat"),
            "seats": [
                {"seat": s, "spec": spec, "name": f"P{s} {spec}", "policy": is_policy(spec)}
                for s, spec in enumerate(self.specs)
            ],
            "view": ALL if viewer is None else viewer,
            "total": self.total,
            "decisions": [self.decision(k, viewer) for k in range(self.total)],
            "money": money,
            "round_starts": {str(rd): k for rd, k in sorted(starts.items())},
            "finished": final.phase == GAME_OVER,
            "results": _results(final),
        }

    def frame(self, k: int, viewer: int | None) -> dict[str, Any]:
        k = self.check_decision(k)
        out = frame(self.states[k], self.specs, viewer)
        out["k"] = k
        out["total"] = self.total
        out["next"] = self.decision(k, viewer) if k < self.total else None
        return out


class ReplayCache:
    """The last few :class:`GameReplay` objects, by (log id, game, log modification time).
    A game other than Last Will is built by ``others(record, game_name, index, where)`` (the
    server's :func:`apps.viewer.tablegame.build_replay`); without it, it is refused."""

    def __init__(self, size: int = 6, others: Any = None) -> None:
        self.size = size
        self.others = others
        self._items: OrderedDict[tuple, GameReplay] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, src: LogSource, game: int) -> GameReplay:
        key = (src.id, game, src.mtime)
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        where = f"{src.path.name} game {game}"
        if src.game_name == DEFAULT_GAME:
            rep = GameReplay.build(src.record(game), where)
        elif self.others is not None:
            rep = self.others(src.record(game), src.game_name, game, where)
        else:
            raise ViewError(f"{where} is a game of {src.game_name!r}; it has no pages here")
        with self._lock:
            self._items[key] = rep
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return rep


# ---------------------------------------------------------------------------------------------
# The table picture


def _results(state: GameState) -> dict[str, Any] | None:
    r = state.results
    if r is None:
        return None
    keys = ("winner", "ranks", "money", "property_value", "totals", "bankrupt", "rounds")
    out = {k: r[k] for k in keys}
    out["decided_by"] = r["decided_by"]
    return out


def _view_results(view: PlayerView, viewer: int) -> dict[str, Any] | None:
    r = view.results
    if r is None:
        return None
    n = view.num_players

    def back(seq: list) -> list:  # relative seats -> absolute
        return [seq[(p - viewer) % n] for p in range(n)]

    return {
        "winner": view.absolute(viewer, r["winner"]),
        "ranks": back(r["ranks"]),
        "money": back(r["money"]),
        "property_value": back(r["property_value"]),
        "totals": back(r["totals"]),
        "bankrupt": back(r["bankrupt"]),
        "rounds": r["rounds"],
        "decided_by": r["decided_by"],
    }


def _board_card(view: PlayerView, c: int) -> dict[str, Any]:
    spec = CARDS[c]
    step = view.value_step[c]
    return {
        "card": c,
        "step": step,
        "value": spec.values[step] if spec.values else None,
        "filled": view.filled_slots[c],
        "used": bool(view.used[c]),
        "privilege_left": view.privilege_left[c],
    }


def _seats(
    state: GameState, view: PlayerView, specs: list[str], viewer: int | None, base: int
) -> list[dict[str, Any]]:
    """Each seat of :func:`frame`, in absolute order; its hand only where ``viewer`` may see
    it (every hand when ``viewer`` is None)."""
    n = state.n
    seats = []
    for seat in range(n):
        rel = (seat - base) % n
        if viewer is None:
            hand: list[int] | None = sorted(state.hands[seat])
        elif seat == viewer:
            hand = list(view.hand)
        else:
            hand = None
        seats.append(
            {
                "seat": seat,
                "spec": specs[seat],
                "name": f"P{seat} {specs[seat]}",
                "money": view.money[rel],
                "hand_size": view.hand_sizes[rel],
                "hand": hand,
                # offer cards seen going into this hand (public, docs/RULES.md §10)
                "known": list(view.known_hands[rel]),
                "extensions": view.extensions[rel],
                "plan": view.plans[rel] if view.plans[rel] >= 0 else None,
                "errand_boys_left": view.errand_boys_left[rel],
                "unknown_used": bool(view.unknown_used[rel]),
                "board": [_board_card(view, c) for c in view.boards[rel]],
            }
        )
    return seats


def _pending(state: GameState, view: PlayerView, viewer: int | None, over: bool) -> dict[str, Any]:
    """What :func:`frame`'s turn has under way: actions left, the card being used and its
    steps, the draws, the cards kept."""
    if viewer is None:
        kept = sorted(state.keep_sel) if state.keep_sel and not over else []
    else:
        kept = list(view.keep_selected)
    using = view.using
    return {
        "actions": view.actions if TURN_PHASE <= view.phase <= BREED_PHASE and not over else None,
        "using": using if using >= 0 else None,
        "resolving": view.resolving if view.resolving >= 0 else None,
        "spend": view.resolving_spend,
        "addon": view.resolving_addon,
        "steps_left": view.resolving_left,
        "draw": (
            {"left": view.draws_left, "queue": [DECKS[d] for d in view.draw_queue]}
            if view.phase == DRAW_PHASE
            else None
        ),
        "kept": kept,
    }


def frame(state: GameState, specs: list[str], viewer: int | None) -> dict[str, Any]:
    """The table picture of ``state``: from ``player_view(state, viewer)`` alone, or (viewer
    ``None``) the same public picture plus every hand."""
    n = state.n
    base = 0 if viewer is None else viewer
    view = player_view(state, base)

    def ab(rel: int) -> int | None:
        return None if rel < 0 else view.absolute(base, rel)

    over = view.phase == GAME_OVER
    plans = CATALOGUE.plans[n]
    taken_plans = {view.plans[rel]: ab(rel) for rel in range(n) if view.plans[rel] >= 0}
    seats = _seats(state, view, specs, viewer, base)
    pending = _pending(state, view, viewer, over)
    return {
        "view": ALL if viewer is None else viewer,
        "round": view.round,
        "final_round": view.final_round,
        "phase": view.phase,
        "phase_name": PHASE_NAMES[view.phase],
        "over": over,
        "to_act": None if over else ab(view.to_act),
        "start_player": ab(view.start_player),
        "modifiers": list(view.modifiers),
        "tokens": list(view.tokens),
        "deck_sizes": list(view.deck_sizes),
        "special_deck": view.special_deck_size,
        "jokers": view.jokers_in_supply,
        "extensions_left": view.extensions_left,
        "offer": [
            {"space": i, "card": c if c >= 0 else None, "taken_by": ab(view.offer_taken_by[i])}
            for i, c in enumerate(view.offer)
        ],
        "discards": [
            {"deck": DECKS[d], "cards": list(view.discards[d]), "hidden": view.hidden_discards[d]}
            for d in range(4)
        ],
        "box": list(view.box),
        "plans": [
            {
                "space": i,
                **{k: getattr(p, k) for k in ("order", "cards", "errand_boys", "actions")},
                "taken_by": taken_plans.get(i),
                "blocked": i in view.blocked_plans,
            }
            for i, p in enumerate(plans)
        ],
        "plan_order": [ab(r) for r in view.plan_order],
        "errands": {
            "market_used": view.market_used,
            "opera_used": view.opera_used,
            "extension_used": view.extension_errands,
            "extension_capacity": CATALOGUE.extension_capacity[n],
        },
        "seats": seats,
        "pending": pending,
        "results": _results(state) if viewer is None else _view_results(view, viewer),
    }


# ---------------------------------------------------------------------------------------------
# What a policy thought


def is_policy(spec: str) -> bool:
    return isinstance(spec, str) and spec.strip().startswith("ppo:")


def policy_path(spec: str) -> tuple[str, str, bool]:
    """``(path, mode, alone)`` of a ``ppo:PATH[:sample|:det][:net]`` spec
    (`agents.registry.ppo_options`)."""
    from agents.registry import PlayerSpecError, parse_spec, ppo_options

    name, pos, _ = parse_spec(spec)
    if name != "ppo" or not pos or not pos[0]:
        raise ViewError(f"{spec!r} is not a ppo:PATH policy spec")
    try:
        return ppo_options(pos[0])
    except PlayerSpecError as e:
        raise ViewError(str(e)) from None


def resolve_checkpoint(path: str, log_dir: Path | None) -> Path:
    """The policy file a log's ``ppo:PATH`` seat names, looked up only where the viewer serves
    policies from: relative to the working directory, to the log's folder, or to the folder
    holding the ``agents`` package (so the shipped ``agents/policies/...`` paths resolve wherever
    the lab is installed), an absolute path likewise, and only if the file found lies inside
    one of those folders. A log is data (docs/TRUST.md): a path elsewhere, directly or through
    ``..`` or a link, gets the same answer
    as a missing file, so no answer tells whether a file outside exists. A policy name
    (``ppo:reference``) is the lab's own file (`agents.policyfiles.lab_file`)."""
    from agents.policyfiles import lab_file

    named = lab_file(path) if len(path) <= 4096 else None
    if named is not None:
        return named
    p = Path(path)
    roots = [Path.cwd()]
    if log_dir is not None:
        roots.append(Path(log_dir))
    roots.append(Path(__file__).resolve().parents[2])
    if len(path) <= 4096 and "\0" not in path:
        for root in roots:
            try:
                base = root.resolve()
                found = (p if p.is_absolute() else root / p).resolve()
                if found.is_relative_to(base) and found.is_file():
                    return found
            except (OSError, ValueError, RuntimeError):
                continue
    raise ViewError(
        f"the policy file of this seat is not available to the viewer: it plays policies only "
        f"from inside its working directory, the log's folder or the lab's shipped "
        f"agents/policies/ (seat spec path {path[:120]!r})",
        status=404,
    )


def _policy_decision(rep: GameReplay, k: Any, viewer: int | None) -> tuple[int, int]:
    """``(k, seat)`` of decision ``k`` when a ``ppo:PATH`` seat made it and ``viewer`` may see
    that seat's hand; a :class:`ViewError` otherwise."""
    k = rep.check_decision(k)
    if k == rep.total:
        raise ViewError(
            f"decision {k} is after the last one: no one decides there",
            allowed={"min": 0, "max": rep.total - 1},
        )
    seat = rep.seats[k]
    spec = rep.specs[seat]
    if not is_policy(spec):
        policies = [s for s, sp in enumerate(rep.specs) if is_policy(sp)]
        raise ViewError(
            f"decision {k} is made by seat {seat} ({spec}), not by a ppo:PATH policy; "
            + (f"policy seats: {policies}" if policies else "no seat of this game is a policy"),
            allowed=policies,
        )
    if viewer is not None and viewer != seat:
        raise ViewError(
            f"the analysis of decision {k} shows what seat {seat} knows (its hand); it is hidden "
            f"from seat {viewer}: view it as seat {seat} or with seat=all",
            status=403,
            allowed=[ALL, str(seat)],
        )
    return k, seat


def analyse(
    rep: GameReplay, k: int, viewer: int | None, top: int = 5, log_dir: Path | None = None
) -> dict[str, Any]:
    """At decision ``k`` of a ``ppo:PATH`` seat: the policy's probabilities over the legal
    actions (the ``top`` most likely, and the one recorded) and its value estimate, computed
    now from the checkpoint on the seat's own observation. For a policy over a prior bot, each
    action also carries the network's own probability (``net_prob``, without the bot's bonus)
    and whether it is the bot's pick (``prior``: the bot, its bonus and its pick)."""
    if type(top) is not int or not 1 <= top <= 50:
        raise ViewError(f"top={top!r}: ask for 1 to 50 actions", allowed={"min": 1, "max": 50})
    k, seat = _policy_decision(rep, k, viewer)
    state, spec = rep.states[k], rep.specs[seat]
    import numpy as np

    from lastwill_env.encoding import encode_observation

    from ..play import choice_label

    policy, meta, ckpt, mode = load_seat_policy(spec, log_dir)
    view = player_view(state, seat)
    legal = list(legal_actions(state))
    obs = encode_observation(view)
    probs, value = policy.evaluate(obs, legal, view)
    net, prior = network_alone(policy, obs, legal, view)
    order = sorted(range(len(legal)), key=lambda i: (-probs[i], legal[i]))
    chosen = rep.actions[k]
    rank = next(r for r, i in enumerate(order) if legal[i] == chosen)

    def item(i: int, r: int) -> dict[str, Any]:
        return {
            "action": legal[i],
            "name": choice_label(legal[i], view),
            "prob": float(probs[i]),
            "net_prob": None if net is None else float(net[i]),
            "prior_pick": prior is not None and legal[i] == prior["action"],
            "rank": r + 1,
            "chosen": legal[i] == chosen,
        }

    if prior is not None:
        prior["name"] = describe_action(prior["action"])

    cfg = meta.get("config") if isinstance(meta.get("config"), dict) else {}
    note = None
    if value is None:
        note = (
            f"{ckpt.name} holds the policy network only (no critic), and the viewer never "
            f"reads the .zip checkpoint (a pickle) for it; checkpoints written by this version "
            f"of `lastwill train` carry the critic in the .npz"
        )
    return {
        "k": k,
        "seat": seat,
        "spec": spec,
        "checkpoint": str(ckpt),
        "estimate": None
        if value is None
        else estimate(evaluator(policy, meta), value, state, seat),
        "step": meta.get("step"),
        "mode": mode,
        "legal": len(legal),
        "top": [item(i, r) for r, i in enumerate(order[:top])],
        "chosen": item(order[rank], rank),
        "argmax": legal[int(np.argmax(probs))],
        "prior": prior,
        "net_argmax": None if net is None else legal[int(np.argmax(net))],
        "value": value,
        "value_note": note,
        "reward": cfg.get("reward"),
        "shaping": cfg.get("shaping"),
    }


def network_alone(
    policy: Any, obs: Any, legal: list[int], view: PlayerView
) -> tuple[Any, dict[str, Any] | None]:
    """For a policy over a prior bot: ``(the network's own probabilities over legal, {"bot",
    "weight", "action"})``, the distribution without the bonus ``weight`` that the bot's
    choice ``action`` gets (what ``ppo:PATH:net`` plays, `agents.policy.without_prior`);
    ``(None, None)`` for a policy without a prior, whose distribution is its network's."""
    from agents.policy import without_prior

    if not policy.prior:
        return None, None
    probs, _ = without_prior(policy).evaluate(obs, legal)
    pick = policy.prior_choice(view, legal)
    return probs, {"bot": policy.prior, "weight": policy.prior_weight, "action": pick}


def load_seat_policy(spec: str, log_dir: Path | None) -> tuple[Any, dict[str, Any], Path, str]:
    """``(policy, sidecar, checkpoint path, mode)`` of a ``ppo:PATH`` seat, loaded with its
    critic from the ``.npz`` only (a log's ``.zip`` is a pickle, never read: docs/TRUST.md)."""
    from agents.policy import CheckpointError, load_policy, without_prior

    path, mode, alone = policy_path(spec)
    ckpt = resolve_checkpoint(path, log_dir)
    try:
        policy, meta = load_policy(ckpt, need_value=True, allow_pickle=False)
    except CheckpointError as e:
        raise ViewError(str(e), status=422) from None
    return (without_prior(policy) if alone else policy), meta, ckpt, mode


_EVALUATORS: OrderedDict[int, tuple[Any, Any]] = OrderedDict()  # id(policy) -> (policy, ev)


def evaluator(policy: Any, meta: dict[str, Any]) -> Any:
    """The search's reader of ``policy``'s critic (:class:`agents.leafeval.LeafEvaluator`), kept
    for the last few policies; ``None`` without a critic or for a reward the lab does not
    know."""
    from agents.leafeval import LeafEvaluator

    if not policy.has_value:
        return None
    with _LOCK:
        hit = _EVALUATORS.get(id(policy))
        if hit is not None and hit[0] is policy:
            return hit[1]
    try:
        ev = LeafEvaluator(policy, meta)
    except ValueError:
        return None
    with _LOCK:
        _EVALUATORS[id(policy)] = (policy, ev)
        while len(_EVALUATORS) > 4:
            _EVALUATORS.popitem(last=False)
    return ev


def estimate(ev: Any, value: float | None, state: GameState, seat: int) -> dict[str, Any] | None:
    """The critic's ``value`` at ``seat``'s decision as a win chance (``zero_sum`` policies)
    or an expected rank (``rank``): the search's rule for a critic value
    (:meth:`agents.leafeval.LeafEvaluator.score`: shaping added back, clipped to the reward's
    range), read by :func:`agents.winchance.outcome`."""
    from agents.winchance import outcome

    if ev is None or value is None:
        return None
    return outcome(ev.score(value, state, seat), state.n, ev.reward)


def _seat_values(rep: GameReplay, seat: int, log_dir: Path | None) -> dict[str, Any]:
    from lastwill_env.encoding import encode_state_sparse

    try:
        policy, meta, _, _ = load_seat_policy(rep.specs[seat], log_dir)
    except ViewError as e:
        return {"points": [], "measure": None, "note": str(e)}
    ev = evaluator(policy, meta)
    if ev is None:
        note = "this policy file holds no critic (or no known reward mode): no value to show"
        return {"points": [], "measure": None, "note": note}
    key = "win_chance" if ev.reward == "zero_sum" else "expected_rank"
    points = []
    for k, who in enumerate(rep.seats):
        if who == seat:
            state = rep.states[k]
            value = policy.value(encode_state_sparse(state, seat))
            points.append([k, estimate(ev, value, state, seat)[key]])
    return {"points": points, "measure": key, "note": None}


def value_series(rep: GameReplay, viewer: int | None, log_dir: Path | None) -> dict[str, Any]:
    """For every ``ppo:PATH`` seat the viewer may look into (its own seat, or every seat with
    ``viewer`` None): the policy's estimate at each of that seat's decisions, as
    ``[k, win chance or expected rank]`` pairs (``measure`` says which), for the replay page's
    chart. A seat whose policy cannot be read or has no critic gets a ``note`` instead."""
    seats = range(rep.n) if viewer is None else [viewer]
    out = {}
    for s in seats:
        if is_policy(rep.specs[s]):
            if s not in rep.series:  # computed once per game and seat
                rep.series[s] = _seat_values(rep, s, log_dir)
            out[str(s)] = rep.series[s]
    return {"view": ALL if viewer is None else viewer, "seats": out}
