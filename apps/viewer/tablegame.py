"""Replays of the games other than Last Will (Money!), through the `gamecore.Game` seam alone.

Last Will keeps its own pages (:mod:`apps.viewer.core`); a log or game file of another game
(its game read by :mod:`agents.gamelog`: a log header's ``game``, else a play record's own) is
replayed here and drawn by that game's renderer in the page (``"game_name"`` in every answer).

A seat's view of a game is a list of *moments*, what that seat could tell apart: each decision
of its own, each decision of another seat that the game makes public (`Game.public_action`),
and one moment for each run of another seat's moves that the game tells nobody of (`SILENT`:
a card added to a sealed Money! bid, its commit). A run counts as one moment whatever its
length, so not even the size of a hidden bid shows in the numbering. A moment is named from the
watching seat's views alone: its own move by `Game.move_text`, the others' by
`Game.change_text` between its views before and after (a reveal, an exchange, a new round).
Its picture (:func:`seat_frame`) is ``Game.view_text`` of that seat's `Game.player_view` and the
game's structured board read from the same view (:mod:`apps.viewer.money`), nothing else.
The omniscient view (``seat=all``) has one moment per decision and every seat's own view.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.gamelog import GameLogError, check_record
from gamecore import load_game
from gamecore.game import SILENT, Game

from . import money
from .core import ALL, ViewError


@dataclass(frozen=True)
class Rendering:
    """What the viewer knows of one game beyond the `Game` seam: its structured boards (from
    one view; from every seat's view), how a hidden run of moves is said, its phase names."""

    seat_board: Callable[[Any, Sequence[str]], dict[str, Any]] | None = None
    all_board: Callable[[Sequence[Any], Sequence[str]], dict[str, Any]] | None = None
    hidden_words: str = "moves in secret"
    phase_names: tuple[str, ...] = ()


RENDERINGS: dict[str, Rendering] = {
    "money": Rendering(
        money.seat_board,
        money.all_board,
        "bids in secret (nothing of a bid shows until the reveal)",
        ("bid", "exchange", "over"),
    ),
}


def rendering(game: Game) -> Rendering:
    return RENDERINGS.get(game.name, Rendering())


def _phase(game: Game, view: Any) -> str | None:
    names, phase = rendering(game).phase_names, getattr(view, "phase", None)
    return names[phase] if isinstance(phase, int) and 0 <= phase < len(names) else None


# ---------------------------------------------------------------------------------------------
# Pictures


def seat_frame(game: Game, view: Any, specs: Sequence[str], seat: int) -> dict[str, Any]:
    """The picture of what ``seat`` may know, from its view ``view`` alone."""
    board = rendering(game).seat_board
    return {
        "game_name": game.name,
        "view": seat,
        "text": game.view_text(view),
        "board": board(view, specs) if board else None,
    }


def all_frame(game: Game, state: Any, specs: Sequence[str]) -> dict[str, Any]:
    """The omniscient picture: every seat's view, its hand and hidden bid among them."""
    views = [game.player_view(state, s) for s in range(len(specs))]
    board = rendering(game).all_board
    if game.is_over(state):
        text = game.view_text(views[0])  # the end shows every hand to every seat
    else:
        text = "\n\n".join(
            f"== P{s} {specs[s]} sees ==\n{game.view_text(v)}" for s, v in enumerate(views)
        )
    return {
        "game_name": game.name,
        "view": ALL,
        "text": text,
        "board": board(views, specs) if board else None,
    }


# ---------------------------------------------------------------------------------------------
# Moments


@dataclass
class Moment:
    start: int  # its first decision
    end: int  # one past its last decision
    seat: int  # who decides
    hidden: bool  # a run of another seat's moves the watching seat is told nothing of


def moments(game: Game, seats: Sequence[int], actions: Sequence[int], viewer: int | None):
    """The moments of ``viewer`` (None: every decision its own moment), in order."""
    out: list[Moment] = []
    for k, (seat, action) in enumerate(zip(seats, actions, strict=True)):
        hidden = viewer is not None and seat != viewer and game.public_action(action) is SILENT
        last = out[-1] if out else None
        if hidden and last and last.hidden and last.seat == seat and last.end == k:
            last.end = k + 1
        else:
            out.append(Moment(k, k + 1, seat, hidden))
    return out


def entry(
    game: Game,
    i: int,
    m: Moment,
    action: int | None,
    views: tuple[Any, Any],
    specs: Sequence[str],
    viewer: int | None,
) -> dict[str, Any]:
    """Moment ``i`` as the watching seat tells it, from ``views`` (its views before and after
    the moment; the acting seat's for the omniscient view). ``action`` is read only for a move
    of the watching seat itself, or of anyone in the omniscient view, or a public one."""
    before, after = views
    who = "you" if m.seat == viewer else f"P{m.seat} {specs[m.seat]}"
    change = [ln for ln in game.change_text(before, after).splitlines() if ln.strip()]
    if m.hidden:
        name = f"{who} {rendering(game).hidden_words}"
    elif viewer is None or m.seat == viewer:
        name = f"{who}: {game.move_text(before, action)}"
    elif change:
        name, change = change[0], change[1:]
    else:
        shown = game.public_action(action)
        name = f"{who} acted" if shown is None else f"{who}: {game.action_text(shown)}"
    return {
        "k": i,
        "round": getattr(before, "round", None),
        "phase": _phase(game, before),
        "seat": m.seat,
        "hidden": m.hidden,
        "name": name,
        "change": change,
    }


def seat_entries(
    game: Game,
    seats: Sequence[int],
    actions: Sequence[int],
    view_at: Callable[[int], Any],
    specs: Sequence[str],
    viewer: int,
) -> list[dict[str, Any]]:
    """Every moment of ``viewer``; ``view_at(k)`` is its view before decision ``k``."""
    out = []
    for i, m in enumerate(moments(game, seats, actions, viewer)):
        action = None if m.hidden else actions[m.start]
        out.append(entry(game, i, m, action, (view_at(m.start), view_at(m.end)), specs, viewer))
    return out


# ---------------------------------------------------------------------------------------------
# A recorded game


def build_replay(record: dict[str, Any], game_name: str, index: int, where: str) -> TableReplay:
    """The replay of game ``index`` (``record``) of a file of ``game_name`` (the
    :class:`~apps.viewer.core.ReplayCache`'s builder of the games other than Last Will)."""
    return TableReplay.build(record, load_game(game_name), index, where)


def _clone(state: Any) -> Any:
    clone = getattr(state, "clone", None)
    return clone() if callable(clone) else copy.deepcopy(state)


def all_states(game: Game, config: Any, seed: int, actions: Sequence[int], where: str):
    """``(states, seats)``: the state before each decision and after the last, and who made
    each decision; an action the rules refuse is a 422 naming it."""
    try:
        state = game.new_game(config, seed)
    except (TypeError, ValueError) as e:
        raise ViewError(f"{where}: its deal cannot be made ({e})", status=422) from None
    states, seats = [_clone(state)], []
    for i, a in enumerate(actions):
        if game.is_over(state):
            raise ViewError(
                f"{where}: the record has {len(actions) - i} actions after the end of the game",
                status=422,
            )
        seats.append(game.current_player(state))
        try:
            game.apply_action(state, a)
        except ValueError as e:
            raise ViewError(
                f"{where}: decision {i + 1}: the recorded action {a} is not legal here ({e}); "
                f"the record does not match this version of the rules",
                status=422,
            ) from None
        states.append(_clone(state))
    return states, seats


@dataclass
class TableReplay:
    """Every state of one recorded game of ``game`` and its moments, per watching seat."""

    game: Game
    index: int
    record: dict[str, Any]
    config: Any
    states: list[Any]
    seats: list[int]
    actions: list[int]
    specs: list[str]
    _entries: dict[Any, list[dict[str, Any]]] = field(default_factory=dict)

    @classmethod
    def build(cls, record: dict[str, Any], game: Game, index: int, where: str) -> TableReplay:
        try:
            check_record(record, where, game.name)
        except GameLogError as e:
            raise ViewError(str(e), status=422) from None
        config = game.config_from_dict(record["config"])
        actions = list(record["actions"])
        states, seats = all_states(game, config, record["deal_seed"], actions, where)
        return cls(game, index, record, config, states, seats, actions, list(record["seating"]))

    @property
    def n(self) -> int:
        return len(self.specs)

    def moments(self, viewer: int | None) -> list[Moment]:
        return moments(self.game, self.seats, self.actions, viewer)

    def entries(self, viewer: int | None) -> list[dict[str, Any]]:
        """The moments of ``viewer`` named as it saw them (kept once computed)."""
        if viewer in self._entries:
            return self._entries[viewer]
        g = self.game
        if viewer is None:
            out = []
            for i, m in enumerate(self.moments(None)):
                views = tuple(g.player_view(self.states[k], m.seat) for k in (m.start, m.end))
                out.append(entry(g, i, m, self.actions[m.start], views, self.specs, None))
        else:
            out = seat_entries(
                g,
                self.seats,
                self.actions,
                lambda k: g.player_view(self.states[k], viewer),
                self.specs,
                viewer,
            )
        self._entries[viewer] = out
        return out

    def results(self) -> dict[str, Any] | None:
        """The results of a finished game (public at the end): places (shared on ties) and the
        game's per-seat result fields (Money!'s scores)."""
        final = self.states[-1]
        if not self.game.is_over(final):
            return None
        ranks = self.game.ranks(final)
        out: dict[str, Any] = {"ranks": ranks, "shared": [ranks.count(r) > 1 for r in ranks]}
        out.update(self.game.row_fields(final))
        return out

    def detail(self, viewer: int | None) -> dict[str, Any]:
        """The whole game as ``viewer`` saw it: seats, its moments, the first moment of each
        round, the results at the end."""
        entries = self.entries(viewer)
        starts: dict[str, int] = {}
        for e in entries:
            if e["round"] is not None:
                starts.setdefault(str(e["round"]), e["k"])
        r = self.record
        return {
            "game_name": self.game.name,
            "title": self.game.title,
            "game": self.index,
            "kind": "play" if r.get("type") == "play" else "arena",
            "deal_seed": r["deal_seed"],
            "config": self.config.to_dict(),
            "num_players": self.n,
            "human_seat": r.get("human_seat"),
            "seats": [
                {"seat": s, "spec": spec, "name": f"P{s} {spec}", "policy": False}
                for s, spec in enumerate(self.specs)
            ],
            "view": ALL if viewer is None else viewer,
            "total": len(entries),
            "decisions": entries,
            "round_starts": starts,
            "finished": self.game.is_over(self.states[-1]),
            "results": self.results(),
        }

    def frame(self, i: Any, viewer: int | None) -> dict[str, Any]:
        """The picture before moment ``i`` of ``viewer`` (``i`` = the number of its moments:
        after the last)."""
        ms = self.moments(viewer)
        if type(i) is not int or not 0 <= i <= len(ms):
            raise ViewError(
                f"decision {i!r} is not in this view of the game: it has decisions 0.."
                f"{len(ms) - 1} and {len(ms)} (after the last)",
                allowed={"min": 0, "max": len(ms)},
            )
        state = self.states[ms[i].start if i < len(ms) else len(self.actions)]
        if viewer is None:
            out = all_frame(self.game, state, self.specs)
        else:
            view = self.game.player_view(state, viewer)
            out = seat_frame(self.game, view, self.specs, viewer)
        out["k"] = i
        out["total"] = len(ms)
        out["next"] = self.entries(viewer)[i] if i < len(ms) else None
        return out
