"""A person plays any game in the terminal against bots (``lastwill play --game NAME``).

The loop knows a game only through `gamecore.Game`: it draws the person's seat from
``game.player_view(state, human_seat)`` alone, so nothing another seat hides (a sealed bid, a
hand) can reach the screen, and it words everything through the game's text methods:

- `Game.view_text(view)`: the picture of what the seat may know, at each of its decisions;
- `Game.change_text(before, after)`: what changed, asked after every action between two views
  of the person's seat one action apart, and shown at its next decision as "since your last
  decision" (a game that says nothing there gets each public action, `Game.public_action`,
  as ``P1 spec: text``; a `SILENT` one is not mentioned at all);
- `Game.move_text(view, action)`: each legal move, numbered 1..k;
- `Game.help_text(view)`: ``h`` or ``?`` at the prompt (the rules page and the phase).

A decision with one legal move is played at once with a note. At the prompt: a number; ``h``,
``?`` or ``help``; ``q``, ``quit`` or ``exit``. Bad input (not a number, out of range, an empty
line) gets a message and a new prompt. Quitting, the end of input (Ctrl-D) and Ctrl-C stop the
game and still write the record, marked unfinished. At the end: the final picture, the results
(places, shared places said so, and the game's per-seat result fields such as scores) and the
record.

Opponents are built from their specs with `agents.registry.make_agent` for the game (outside
agents under the move time limit, `agents.timelimit`); a bot that fails, or answers an illegal
move, plays the first legal move instead, and that is said.

The record (:func:`table_record`) is an arena row (`agents.arena`) plus ``"type": "play"``,
``"human_seat"`` and ``"finished"``, with ``"game"`` naming the game (a single game file has no
header; `agents.gamelog.GameFile.game_name` reads it there). ``Game.replay(config, deal_seed,
actions)`` rebuilds its state.
"""

from __future__ import annotations

import contextlib
import json
import numbers
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from agents.arena import default_out_path as arena_out_path
from agents.deals import derive_seed
from agents.registry import PlayerSpecError
from agents.safeio import fallback_path, write_json
from agents.timelimit import DEFAULT_MOVE_TIME_LIMIT, AgentFault, build_agent, check_time_limit
from gamecore.agent import overrides_observe
from gamecore.game import SILENT, Game
from gamecore.plain import in_words

HUMAN = "human"
RECORD_VERSION = 1
COMMANDS_HELP = (
    "Type the number of a move, h or ? for help (the rules and this phase), q to quit (the "
    "game so far is still written, marked unfinished)."
)


class TablePlayError(ValueError):
    """A game that cannot be set up; the message says what to do."""


@dataclass
class TableGame:
    game: Game
    config: Any
    deal_seed: int
    human_seat: int
    seating: list[str]  # one spec per seat, HUMAN at human_seat
    agent_seeds: list[int]
    state: Any
    agents: dict[int, Any] = field(default_factory=dict)
    created: str = field(default_factory=lambda: time.strftime("%Y-%m-%dT%H:%M:%S%z"))

    @property
    def names(self) -> list[str]:
        return [f"P{s} {spec}" for s, spec in enumerate(self.seating)]

    @property
    def over(self) -> bool:
        return self.game.is_over(self.state)

    def label(self, seat: int) -> str:
        """``you (P0 human)`` for the person, ``P1 value`` for another seat."""
        name = self.names[seat]
        return f"you ({name})" if seat == self.human_seat else name


# ---------------------------------------------------------------------------------------------
# Setting up


def _seating(game: Game, opponents: list[str], human_seat: int, n: int | None) -> list[str]:
    """The spec of every seat, HUMAN at ``human_seat``; one opponent spec fills every seat."""
    opponents = [o.strip() for o in opponents]
    if not opponents or any(not o for o in opponents):
        raise TablePlayError(
            "--opponents needs comma-separated player specs, e.g. "
            f"{','.join(game.default_panel) or 'random,random'}"
        )
    n = len(opponents) + 1 if n is None else n
    if type(n) is not int or n not in game.player_counts:
        lo, hi = min(game.player_counts) - 1, max(game.player_counts) - 1
        raise TablePlayError(
            f"{game.title} is for {in_words(game.player_counts)} players, not {n}: give "
            f"{lo} to {hi} opponent specs (or one spec and --num-players)"
        )
    if len(opponents) == 1 and n > 2:
        opponents = opponents * (n - 1)
    if len(opponents) != n - 1:
        raise TablePlayError(
            f"--opponents lists {len(opponents)} specs but a {n}-player game has {n - 1} other "
            f"seats: give {n - 1} specs (or one, to fill every seat with it)"
        )
    if HUMAN in opponents:
        raise TablePlayError(f"{HUMAN!r} is the person playing, not an opponent spec")
    if type(human_seat) is not int or not 0 <= human_seat < n:
        raise TablePlayError(f"--seat {human_seat} is not at this table; seats are 0..{n - 1}")
    return opponents[:human_seat] + [HUMAN] + opponents[human_seat:]


def _build_agents(
    game: Game, seating: list[str], human: int, seeds: list[int], trusted: bool, limit: float
) -> dict[int, Any]:
    agents = {}
    for seat, spec in enumerate(seating):
        if seat == human:
            continue
        try:
            agent = build_agent(spec, seeds[seat], limit, trusted=trusted, game=game)
            agent.reset(seeds[seat])
        except (PlayerSpecError, AgentFault) as e:
            raise TablePlayError(str(e)) from None
        agents[seat] = agent
    return agents


def new_table(
    game: Game,
    opponents: list[str],
    human_seat: int = 0,
    num_players: int | None = None,
    seed: int | None = None,
    options: dict[str, Any] | None = None,
    trusted: bool = False,
    move_time_limit: float = DEFAULT_MOVE_TIME_LIMIT,
) -> TableGame:
    """A new game of ``game``: the person at ``human_seat``, the opponents' specs in seat order
    around it (``num_players`` defaults to one more than the opponents; a single spec fills
    every other seat); ``options`` go to `Game.make_config`; ``seed`` None draws one.
    ``trusted``: the specs were typed by the user (docs/TRUST.md)."""
    seating = _seating(game, opponents, human_seat, num_players)
    n = len(seating)
    try:
        limit = check_time_limit(move_time_limit)
        config = game.make_config(n, **(options or {}))
    except ValueError as e:
        raise TablePlayError(str(e)) from None
    if seed is None:
        seed = random.SystemRandom().randrange(1 << 31)
    if type(seed) is not int or not 0 <= seed < 2**64:
        raise TablePlayError(f"--seed {seed!r}: a deal seed is an integer from 0 to 2**64 - 1")
    seeds = [derive_seed(seed, "agent", s) for s in range(n)]
    agents = _build_agents(game, seating, human_seat, seeds, trusted, limit)
    state = game.new_game(config, seed)
    return TableGame(game, config, seed, human_seat, seating, seeds, state, agents)


# ---------------------------------------------------------------------------------------------
# The record


def table_record(tg: TableGame) -> dict[str, Any]:
    """The game as an arena row plus ``type``, ``human_seat``, ``finished``; ``game`` is the
    game's registry name (module docstring)."""
    game, state = tg.game, tg.state
    finished = tg.over
    ranks = game.ranks(state) if finished else None
    first = [s for s, r in enumerate(ranks or ()) if r == 1]
    winner = first[0] if len(first) == 1 else None
    record = {
        "type": "play",
        "version": RECORD_VERSION,
        "created": tg.created,
        "saved": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "game": game.name,
        "deal": None,
        "deal_seed": tg.deal_seed,
        "seating_index": None,
        "seating": list(tg.seating),
        "num_players": len(tg.seating),
        "config": tg.config.to_dict(),
        "agent_seeds": list(tg.agent_seeds),
        "human_seat": tg.human_seat,
        "finished": finished,
        "winner": winner,
        "winner_spec": tg.seating[winner] if winner is not None else None,
        "ranks": ranks,
    }
    record.update(dict.fromkeys(game.result_fields))
    record.update(game.row_fields(state))
    actions = game.history(state)
    record.update(decisions=len(actions), error=None, actions=actions)
    return record


def default_out_path(root: str | Path = "runs/play") -> Path:
    """``runs/play/<date-time>.json``, never an existing file."""
    return arena_out_path(root, ".json")


def write_record(
    record: dict[str, Any], path: str | Path, overwrite: bool = False
) -> tuple[Path | None, str | None]:
    """Write ``record`` to ``path``, else to a fallback file (a new name under runs/play/, else
    in the system's temporary directory): ``(where it went, why path failed or None)``."""
    try:
        return write_json(Path(path), record, overwrite=overwrite), None
    except OSError as e:
        why = f"{type(e).__name__}: {e}"
    for cand in (default_out_path(), fallback_path(path)):
        with contextlib.suppress(OSError):
            return write_json(cand, record, overwrite=False), why
    return None, why


# ---------------------------------------------------------------------------------------------
# Moves


def bot_choice(agent: Any, view: Any, legal: list[int]) -> tuple[int, str | None]:
    """``(action, problem)``: what ``agent`` plays; one that raises or answers an illegal move
    plays the first legal move instead (``problem`` says why); an outside agent over its time
    limit is dropped for the rest of the game (said once)."""
    problem = None
    try:
        action = agent.act(view, list(legal))
        if isinstance(action, bool) or not isinstance(action, numbers.Integral):
            raise ValueError(f"action {action!r} is a {type(action).__name__}, not an integer")
        if action not in legal:
            raise ValueError(f"illegal action {action!r}")
    except AgentFault as e:
        action = legal[0]
        if not getattr(agent, "reported", True):
            agent.reported = True
            problem = f"{e}; its seat plays the first legal move for the rest of the game"
    except Exception as e:  # noqa: BLE001 - a bot's fault must not end the person's game
        action = legal[0]
        problem = f"{type(e).__name__}: {e}"
    return int(action), problem


def _observers(tg: TableGame) -> list[int]:
    return [s for s, a in tg.agents.items() if overrides_observe(a)]


def _apply(tg: TableGame, seat: int, action: int, observers: list[int]) -> None:
    """Play ``seat``'s ``action`` and tell the watching bots what the game shows of it."""
    tg.game.apply_action(tg.state, action)
    shown = tg.game.public_action(action)
    if shown is SILENT:
        return
    n = len(tg.seating)
    for s in observers:
        if s != seat:
            with contextlib.suppress(AgentFault):  # a dropped agent says so at its next move
                tg.agents[s].observe({"type": "action", "seat": (seat - s) % n, "action": shown})


def _finish(tg: TableGame, observers: list[int]) -> None:
    for s in observers:
        with contextlib.suppress(AgentFault):
            results = tg.game.seat_results(tg.state, s)
            tg.agents[s].observe({"type": "game_over", "results": results})


def _public_line(tg: TableGame, seat: int, action: int) -> str | None:
    """``P1 spec: text`` of another seat's action as the game shows it, or None (`SILENT`)."""
    shown = tg.game.public_action(action)
    if shown is SILENT:
        return None
    if shown is None:
        return f"{tg.label(seat)} acted"
    return f"{tg.label(seat)}: {tg.game.action_text(shown)}"


# ---------------------------------------------------------------------------------------------
# Input


def parse_choice(line: str, count: int) -> tuple[str, Any]:
    """``("choose", index)``, ``("help", None)``, ``("quit", None)`` or ``("error", message)``
    for one line of input when ``count`` moves are offered."""
    text = line.strip()
    if not text:
        return "error", f"empty input: type a number from 1 to {count}, h for help or q to quit"
    low = text.lower()
    if low in ("q", "quit", "exit"):
        return "quit", None
    if low in ("h", "?", "help"):
        return "help", None
    try:
        k = int(text)
    except ValueError:
        return "error", f"{text!r} is not a move: type a number from 1 to {count}, or h for help"
    if not 1 <= k <= count:
        return "error", f"{k} is out of range: choose a number from 1 to {count}"
    return "choose", k - 1


def _help(tg: TableGame, view: Any) -> str:
    text = tg.game.help_text(view)
    return "\n".join([text or f"{tg.game.title}: no rules summary here", COMMANDS_HELP])


def _ask(tg: TableGame, view: Any, legal: list[int], inp: TextIO, out: TextIO) -> int | None:
    """Prompt until the person picks a move (its index in ``legal``) or quits, input ends or
    Ctrl-C is pressed (None); help is answered meanwhile."""
    while True:
        out.write(f"choose 1-{len(legal)} (h: help, q: quit): ")
        out.flush()
        try:
            line = inp.readline()
        except KeyboardInterrupt:
            out.write("\ninterrupted\n")
            return None
        if not line:
            out.write("\ninput ended\n")
            return None
        kind, arg = parse_choice(line, len(legal))
        if kind == "error":
            out.write(f"  {arg}\n")
        elif kind == "help":
            out.write(_help(tg, view) + "\n")
        elif kind == "quit":
            return None
        else:
            return arg


# ---------------------------------------------------------------------------------------------
# Playing


@dataclass
class TableOutcome:
    finished: bool
    quit: bool
    record_path: Path | None
    record: dict[str, Any]


def count_of(k: int, noun: str) -> str:
    """The count with its noun in the right number: "1 decision", "2 decisions"."""
    return f"{k} {noun if k == 1 else noun + 's'}"


def ordinal(k: int) -> str:
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def results_text(tg: TableGame) -> str:
    """Each seat by place (a shared place said so) with the game's per-seat result fields
    (`Game.row_fields`, e.g. its score) and the others (e.g. the rounds played)."""
    n = len(tg.seating)
    ranks = tg.game.ranks(tg.state)
    fields = tg.game.row_fields(tg.state)
    per_seat = {k: v for k, v in fields.items() if isinstance(v, list) and len(v) == n}
    rest = ", ".join(f"{k} {v}" for k, v in fields.items() if k not in per_seat)
    lines = [f"Results{f' ({rest})' if rest else ''}:"]
    for s in sorted(range(n), key=lambda s: (ranks[s], s)):
        shared = " (shared)" if ranks.count(ranks[s]) > 1 else ""
        extra = "".join(f", {k[:-1] if k.endswith('s') else k} {v[s]}" for k, v in per_seat.items())
        lines.append(f"  {ordinal(ranks[s])} place{shared}: {tg.label(s)}{extra}")
    return "\n".join(lines)


def _since(events: list[str]) -> str:
    return "\n".join(["Since your last decision:"] + [f"  {e}" for e in events])


def _decide(tg: TableGame, events: list[str], inp: TextIO, out: TextIO) -> int | None:
    """One of the person's decisions: what changed, the picture, the numbered moves, the
    prompt. The action chosen, or None to stop."""
    game, seat = tg.game, tg.human_seat
    view = game.player_view(tg.state, seat)
    legal = game.legal_actions(tg.state)
    out.write("\n")
    if events:
        out.write(_since(events) + "\n")
    out.write(game.view_text(view) + "\n")
    out.write(f"Your moves ({len(legal)}):\n")
    for i, a in enumerate(legal):
        out.write(f"  {i + 1:>2}. {game.move_text(view, a)}\n")
    k = _ask(tg, view, legal, inp, out)
    return None if k is None else legal[k]


def _turn(tg: TableGame, events: list[str], observers: list[int], inp: TextIO, out: TextIO) -> bool:
    """Play the next decision (a bot's, a forced one or the person's); False when the person
    stops."""
    game, state, human = tg.game, tg.state, tg.human_seat
    seat = game.current_player(state)
    legal = game.legal_actions(state)
    if seat != human:
        view = (
            game.player_view(state, seat) if getattr(tg.agents[seat], "needs_view", True) else None
        )
        action, problem = bot_choice(tg.agents[seat], view, legal)
        if problem is not None:
            events.append(f"({tg.names[seat]} failed: {problem})")
    elif len(legal) == 1:
        action = legal[0]
        text = game.move_text(game.player_view(state, human), action)
        out.write(f"  you: {text} (the only move)\n")
    else:
        action = _decide(tg, events, inp, out)
        if action is None:
            return False
        out.write(f"  you: {game.move_text(game.player_view(state, human), action)}\n")
        events.clear()
    before = game.player_view(state, human)
    _apply(tg, seat, action, observers)
    change = game.change_text(before, game.player_view(state, human))
    if change:
        events.extend(change.splitlines())
    elif seat != human:
        line = _public_line(tg, seat, action)
        if line:
            events.append(line)
    return True


def run(
    tg: TableGame,
    inp: TextIO,
    out: TextIO,
    out_path: str | Path | None = None,
    overwrite: bool = False,
) -> TableOutcome:
    """Play until the game ends or the person stops; write the record (finished or not) to
    ``out_path`` when given (never over an existing file unless ``overwrite``; a fallback file,
    named in the output, when that write fails)."""
    game = tg.game
    out.write(
        f"{game.title}, {len(tg.seating)} players, seed {tg.deal_seed}; you are "
        f"{tg.names[tg.human_seat]}. Seats: {', '.join(tg.names)}\n{COMMANDS_HELP}\n"
    )
    observers = _observers(tg)
    events: list[str] = []
    while not tg.over:
        try:
            going = _turn(tg, events, observers, inp, out)
        except KeyboardInterrupt:  # Ctrl-C while the bots play: stop as with q
            out.write("\ninterrupted\n")
            going = False
        if not going:
            done = count_of(len(game.history(tg.state)), "decision")
            out.write(f"the game is not finished ({done} so far)\n")
            return _end(tg, out, out_path, overwrite, quit=True)
    _finish(tg, observers)
    out.write("\n")
    if events:
        out.write(_since(events) + "\n")
    out.write(game.view_text(game.player_view(tg.state, tg.human_seat)) + "\n\n")
    out.write(results_text(tg) + "\n")
    return _end(tg, out, out_path, overwrite, quit=False)


def _end(
    tg: TableGame, out: TextIO, out_path: str | Path | None, overwrite: bool, quit: bool
) -> TableOutcome:
    """Write the record (when ``out_path`` is given) and say where it went."""
    record = table_record(tg)
    path = None
    if out_path is not None:
        path, why = write_record(record, out_path, overwrite)
        if why is not None:
            out.write(f"could not write the game record to {out_path} ({why})\n")
        if path is None:
            out.write("here it is, to keep:\n" + json.dumps(record) + "\n")
        else:
            state = "finished" if record["finished"] else "unfinished"
            out.write(f"game record ({state}): {path}\n")
    out.flush()
    return TableOutcome(record["finished"], quit, path, record)
