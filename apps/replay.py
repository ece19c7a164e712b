"""Replays: step through a recorded game, from one seat's view or from the whole table.

A *record* is one game as plain JSON: an arena row (one line of an :mod:`agents.arena` JSONL
log) or a game file written by ``lastwill play`` (the same shape plus ``"type": "play"``; a
mid-game save has ``"finished": false`` and no results yet). ``(config, deal_seed, actions)``
rebuilds every state with :func:`lastwill_env.engine.replay`.

Everything here returns text, so tests can read it; ``lastwill replay`` prints it.

- :func:`load_record` reads a record from a ``.json`` game file or a JSONL arena log
  (``game=N`` picks the row whose ``game`` is ``N``). Problems raise :class:`ReplayError` with
  a message meant for the user.
- :func:`iter_steps` yields every decision with the state *before* it.
- the pictures come from :mod:`lastwill_env.engine.text` (shared with the env's rendering):
  :func:`render_view` draws the table from a :class:`~lastwill_env.engine.PlayerView` only, so
  a seat's picture can never show another seat's hand; :func:`render_table` adds every hand;
  :func:`describe_step` names a decision, hiding from other seats which starting cards a
  player keeps (docs/RULES.md §10).
- :func:`replay_text` is the compact listing (one line per decision, the last picture and the
  results); :func:`step_text` is one page of the ``--step`` pager; :func:`page` runs the pager
  over injectable input and output streams.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from agents.gamelog import GameLogError, check_record, read_game_file  # noqa: F401 - replay API
from lastwill_env.engine import (
    CATALOGUE,
    GAME_OVER,
    PHASE_NAMES,
    GameConfig,
    GameState,
    IllegalActionError,
    apply_action,
    new_game,
    player_view,
)
from lastwill_env.engine.text import (  # noqa: F401 - part of the replay API
    _names,
    describe_step,
    render_seat,
    render_table,
    render_view,
)

CARDS = CATALOGUE.cards


# A record that cannot be replayed; the message says why and what to do. The records are read
# and checked in one place, agents.gamelog, for this module and the viewer alike.
ReplayError = GameLogError


# ---------------------------------------------------------------------------------------------
# Records


def load_record(path: str | Path, game: int | None = None) -> dict[str, Any]:
    """One game record from a game file (``.json``, one object) or an arena JSONL log.

    In a log, ``game`` picks the row whose ``game`` field is ``game``; it may be left out when
    the log holds a single game. A game file holds one game (``game`` may be ``None`` or its
    own index). A game of another game than Last Will (a log header's or the record's
    ``game``) is a `GameLogError`: these pictures are Last Will's.
    """
    found = read_game_file(path)
    if found.game_name != "lastwill":
        raise GameLogError(
            f"{path} holds games of {found.game_name!r}; replay draws Last Will's table only "
            f"(a record of another game replays in Python: "
            f"gamecore.load_game({found.game_name!r}).replay(...))"
        )
    return found.pick(game)


def record_config(record: dict[str, Any]) -> GameConfig:
    return GameConfig.from_dict(record["config"])


def player_names(record: dict[str, Any]) -> list[str]:
    """``P<seat> <spec>`` per seat (the human of a play record is ``human``)."""
    return [f"P{s} {spec}" for s, spec in enumerate(record["seating"])]


# ---------------------------------------------------------------------------------------------
# Stepping


@dataclass(frozen=True)
class Step:
    index: int  # index of the decision, from 0 (shown to people as decision index + 1)
    state: GameState  # the state before the decision
    seat: int  # absolute seat that decided
    action: int


def _apply(state: GameState, i: int, action: int, total: int) -> None:
    if state.phase == GAME_OVER:
        raise ReplayError(f"the record has {total - i} actions after the end of the game")
    try:
        apply_action(state, action)
    except (IllegalActionError, ValueError) as e:
        raise ReplayError(
            f"decision {i + 1} (action index {i}): the recorded action {action} is not legal "
            f"here ({e}); the record does not match this version of the rules engine"
        ) from None


def iter_steps(record: dict[str, Any], copy: bool = True) -> Iterator[Step]:
    """Every decision of the record, with the state before it.

    With ``copy=False`` the yielded state is the live one, changed by the next step: read it
    before asking for the next step. An action the engine refuses raises :class:`ReplayError`.
    """
    state = new_game(record_config(record), record["deal_seed"])
    actions = record["actions"]
    for i, a in enumerate(actions):
        if state.phase == GAME_OVER:
            _apply(state, i, a, len(actions))  # raises
        yield Step(i, state.clone() if copy else state, state.cur, a)
        _apply(state, i, a, len(actions))


def all_states(record: dict[str, Any]) -> tuple[list[GameState], list[int]]:
    """``(states, seats)``: every state of the record (``states[k]`` is the state before
    decision ``k``, ``states[-1]`` the one after the last) and the seat that made each
    decision; an action the engine refuses raises :class:`ReplayError`."""
    state = new_game(record_config(record), record["deal_seed"])
    actions = record["actions"]
    states, seats = [state.clone()], []
    for i, a in enumerate(actions):
        seats.append(state.cur)
        _apply(state, i, a, len(actions))
        states.append(state.clone())
    return states, seats


def final_state(record: dict[str, Any]) -> GameState:
    """The state after the last recorded action (each action checked)."""
    state = new_game(record_config(record), record["deal_seed"])
    actions = record["actions"]
    for i, a in enumerate(actions):
        _apply(state, i, a, len(actions))
    return state


def round_starts(record: dict[str, Any]) -> dict[int, int]:
    """Round -> index of its first decision."""
    out: dict[int, int] = {}
    for step in iter_steps(record, copy=False):
        out.setdefault(step.state.round, step.index)
    return out


# ---------------------------------------------------------------------------------------------
# Text


def render_results(state: GameState, names: Sequence[str] | None = None) -> str:
    """Winner, then one line per seat by rank: money, property value, total."""
    n = state.n
    names = list(names) if names is not None else [f"P{s}" for s in range(n)]
    r = state.results
    if r is None:
        return (
            f"game not finished: {len(state.history)} decisions recorded; next: "
            f"{names[state.cur]} ({PHASE_NAMES[state.phase]}, round {state.round})"
        )
    lines = [
        f"Result after {r['rounds']} rounds: winner {names[r['winner']]} "
        f"(decided by {r['decided_by']})"
    ]
    width = max(len(x) for x in names)
    for seat in sorted(range(n), key=lambda p: (r["ranks"][p], p)):
        bank = "  bankrupt" if r["bankrupt"][seat] else ""
        lines.append(
            f"  {r['ranks'][seat]}. {names[seat]:<{width}}  money £{r['money'][seat]}  "
            f"property £{r['property_value'][seat]}  total £{r['totals'][seat]}{bank}"
        )
    return "\n".join(lines)


def record_header(record: dict[str, Any], seat: int | None = None) -> str:
    names = player_names(record)
    kind = "play" if record.get("type") == "play" else "arena"
    lines = [
        f"Game {record.get('game', 0)} ({kind} record): {len(names)} players, "
        f"deal seed {record['deal_seed']}, {len(record['actions'])} decisions, "
        f"config {json.dumps(record['config'], sort_keys=True)}",
        "seats: " + ", ".join(names),
    ]
    if seat is None:
        lines.append("view: the whole table (every hand)")
    else:
        lines.append(f"view: {names[seat]} only (what that seat may see)")
    return "\n".join(lines)


def _check_seat(record: dict[str, Any], seat: int | None) -> None:
    n = len(record["seating"])
    if seat is not None and not (type(seat) is int and 0 <= seat < n):
        raise ReplayError(f"seat {seat} is not at this table; seats are 0..{n - 1}")


def first_decision(record: dict[str, Any], from_round: int | None) -> int:
    """Index of the first decision of ``from_round`` (0 when ``None``)."""
    if from_round is None:
        return 0
    starts = round_starts(record)
    if from_round not in starts:
        have = f"rounds {min(starts)}-{max(starts)}" if starts else "no decisions"
        raise ReplayError(f"round {from_round} is not in this game; it has {have}")
    return starts[from_round]


def _line(step: Step, names: Sequence[str], viewer: int | None) -> str:
    s = step.state
    return (
        f"{step.index + 1:5d}  R{s.round}  {PHASE_NAMES[s.phase]:<25} {names[step.seat]:<16} "
        f"{describe_step(step.action, step.seat, viewer)}"
    )


def _round_banner(state: GameState, names: Sequence[str], viewer: int | None) -> list[str]:
    n = state.n
    money = " ".join(f"{names[p].split()[0]} £{state.money[p]}" for p in range(n))
    out = [f"--- round {state.round} ---", f"  money: {money}"]
    if viewer is None:
        hands = "; ".join(
            f"{names[p].split()[0]}: {_names(sorted(state.hands[p]))}" for p in range(n)
        )
        out.append(f"  hands: {hands}")
    else:
        out.append(f"  your hand: {_names(player_view(state, viewer).hand)}")
    return out


def replay_text(
    record: dict[str, Any], seat: int | None = None, from_round: int | None = None
) -> str:
    """The compact listing: header, one line per decision (round banners between), then the
    final picture (the seat's or the table's) and the results."""
    _check_seat(record, seat)
    start = first_decision(record, from_round)
    names = player_names(record)
    lines = [record_header(record, seat)]
    if start:
        lines.append(f"(jumping to round {from_round}: decision {start + 1})")
    last_round = None
    for step in iter_steps(record, copy=False):
        if step.index < start:
            continue
        if step.state.round != last_round:
            last_round = step.state.round
            lines.extend(_round_banner(step.state, names, seat))
        lines.append(_line(step, names, seat))
    state = final_state(record)
    lines.append("")
    lines.append(render_table(state, names) if seat is None else render_seat(state, seat, names))
    lines.append("")
    lines.append(render_results(state, names))
    return "\n".join(lines)


def step_text(step: Step, names: Sequence[str], seat: int | None = None, total: int = 0) -> str:
    """One page of the pager: the picture before the decision, then the decision."""
    pic = render_table(step.state, names) if seat is None else render_seat(step.state, seat, names)
    of = f" of {total}" if total else ""
    return (
        f"=== decision {step.index + 1}{of} ===\n{pic}\n"
        f"--> {names[step.seat]}: {describe_step(step.action, step.seat, seat)}"
    )


PAGER_HELP = "[Enter] next decision, c: continue to the end, q: quit"


def page(
    record: dict[str, Any],
    seat: int | None = None,
    from_round: int | None = None,
    inp: TextIO | None = None,
    out: TextIO | None = None,
) -> int:
    """Show the game one decision at a time, waiting for Enter between them (``c`` runs to
    the end without waiting, ``q`` or the end of input stops). Returns the pages shown."""
    inp = sys.stdin if inp is None else inp
    out = sys.stdout if out is None else out
    _check_seat(record, seat)
    start = first_decision(record, from_round)
    names = player_names(record)
    total = len(record["actions"])
    out.write(record_header(record, seat) + "\n" + PAGER_HELP + "\n")
    shown = 0
    waiting = True
    for step in iter_steps(record, copy=False):
        if step.index < start:
            continue
        out.write(step_text(step, names, seat, total) + "\n")
        shown += 1
        if waiting:
            out.write("> ")
            out.flush()
            line = inp.readline()
            if not line:  # end of input
                out.write("\n")
                return shown
            cmd = line.strip().lower()
            if cmd in ("q", "quit"):
                return shown
            if cmd in ("c", "continue"):
                waiting = False
    state = final_state(record)
    pic = render_table(state, names) if seat is None else render_seat(state, seat, names)
    out.write(f"=== end ===\n{pic}\n\n{render_results(state, names)}\n")
    out.flush()
    return shown
