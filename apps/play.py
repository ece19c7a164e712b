"""A person plays Last Will in the terminal against bots or checkpoints (``lastwill play``).

The human's seat is drawn from its :func:`~lastwill_env.engine.player_view` only
(:func:`apps.replay.render_view`), so nothing hidden from it is shown; the other seats'
decisions are printed as they happen (a card another seat keeps from its starting six stays
hidden). The whole table, with the text of every hand card, is drawn at the first decision
(:func:`table_text`); each later one shows what changed since the last (:func:`changes_text`:
money, the new cards with their text, hand sizes, boards, the offer, the market). At each of
the human's decisions the legal actions are listed as numbered, readable choices
(:func:`~lastwill_env.engine.describe_action`). Besides a number, the prompt takes:

- ``save PATH``: write the game so far (config, seed, seats and their specs, agent seeds,
  actions) as JSON; ``lastwill play --load PATH`` resumes it. An existing file is not
  replaced unless asked (``save --force PATH``),
- ``card NAME``: the text of any card (price, spend, actions, companion slots, privilege),
- ``show``: the whole table again, ``help``: what the current phase is, what each kind of
  choice offered now does (:func:`help_text`), and the commands,
- ``quit``: stop; the message says whether anything is lost (:func:`unsaved_note`: nothing
  right after a save or a load, else the decisions since the save, or the whole game).

Each choice about a card carries the card's text, and the hand is listed with it. ``pass``
(end the turn, skip an add-on) is always the last choice. A decision with a single legal action
is applied at once with a one-line note.

Bad input (not a number, out of range, an empty line) gets a message and a new prompt.

Records. A save and the final game file have the shape of an arena row
(:mod:`agents.arena`) plus ``"type": "play"``, ``"human_seat"`` and ``"finished"``; the
human's seat has the spec ``human``. :func:`agents.arena.replay_row` and ``lastwill replay``
read both. Bots are rebuilt from their specs and seeds; on loading, they are shown the moves
made so far (their own decisions are recomputed and the recorded ones kept), so a resumed
game goes on as the uninterrupted one would.

:class:`PlayGame` holds a game, :func:`new_play` / :func:`load_game` make one, :func:`run`
plays it over injectable input and output streams.
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
from agents.arena import derive_seed
from agents.base import BaseAgent
from agents.readfile import read_json
from agents.registry import PlayerSpecError
from agents.safeio import DestinationError, check_destination, fallback_path, write_json
from agents.timelimit import DEFAULT_MOVE_TIME_LIMIT, AgentFault, build_agent, check_time_limit
from lastwill_env.cardref import CardNotFound, card_text
from lastwill_env.engine import (
    CATALOGUE,
    GAME_OVER,
    PASS,
    PHASE_NAMES,
    ConfigError,
    GameConfig,
    GameState,
    PlayerView,
    apply_action,
    check_seed,
    decode,
    describe_action,
    legal_actions,
    new_game,
    player_view,
)
from lastwill_env.engine.actions import ERRAND_NAMES, MAX_OFFER_SPACES
from lastwill_env.engine.cards import PROPERTY_TYPES
from lastwill_env.engine.config import allowed_counts, is_player_count
from lastwill_env.engine.tables import (
    ADDON_PHASE,
    BALL_PHASE,
    BLOCK_PHASE,
    BREED_PHASE,
    DISCARD_PHASE,
    DRAW_PHASE,
    ERRAND_PHASE,
    KEEP_PHASE,
    MARKET_PHASE,
    OPTION_PHASE,
    PLAN_PHASE,
    ROOM_PHASE,
    TURN_PHASE,
    UNKNOWN_PHASE,
    WILD_PHASE,
)
from lastwill_env.engine.text import board_card

from .replay import (
    ReplayError,
    check_record,
    describe_step,
    final_state,
    render_results,
    render_view,
)

HUMAN = "human"
RECORD_VERSION = 1
COMMANDS_HELP = (
    "Enter the number of a choice, or: card NAME (what a card does), save PATH (save the game "
    "so far), show (the whole table), help (what the choices here do), quit. A decision with "
    "one choice is played for you; pass (end the turn) is always the last choice."
)


class PlayError(ValueError):
    """A game that cannot be set up or loaded; the message says what to do."""


@dataclass
class PlayGame:
    config: GameConfig
    deal_seed: int
    human_seat: int
    seating: list[str]  # one spec per seat, HUMAN at human_seat
    agent_seeds: list[int]
    state: GameState
    agents: dict[int, Any] = field(default_factory=dict)
    created: str = field(default_factory=lambda: time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    saved: tuple[str, int] | None = None  # (file, decisions it holds) of the last save or load

    @property
    def names(self) -> list[str]:
        return [f"P{s} {spec}" for s, spec in enumerate(self.seating)]

    @property
    def actions(self) -> list[int]:
        return list(self.state.history)

    @property
    def over(self) -> bool:
        return self.state.phase == GAME_OVER


# ---------------------------------------------------------------------------------------------
# Setting up


def _build_agents(
    seating: list[str],
    human_seat: int,
    seeds: list[int],
    trusted: bool = False,
    move_time_limit: float = DEFAULT_MOVE_TIME_LIMIT,
) -> dict[int, Any]:
    """The bots of every seat but the person's; ``trusted`` as in `agents.registry.make_agent`
    (never for the seats of a saved game: a file's specs are data, docs/TRUST.md). Outside
    agents play under ``move_time_limit`` (`agents.timelimit.build_agent`)."""
    try:
        move_time_limit = check_time_limit(move_time_limit)
    except ValueError as e:
        raise PlayError(str(e)) from None
    agents = {}
    for seat, spec in enumerate(seating):
        if seat == human_seat:
            continue
        try:
            agent = build_agent(spec, seeds[seat], move_time_limit, trusted=trusted)
            agent.reset(seeds[seat])
        except (PlayerSpecError, AgentFault) as e:
            raise PlayError(str(e)) from None
        agents[seat] = agent
    return agents


def new_play(
    opponents: list[str],
    human_seat: int = 0,
    num_players: int | None = None,
    seed: int | None = None,
    starting_money: int | str = 70,
    board_spaces: int = 5,
    trusted: bool = False,
    move_time_limit: float = DEFAULT_MOVE_TIME_LIMIT,
) -> PlayGame:
    """A new game: the human at ``human_seat``, the opponents' specs in seat order around it.

    ``num_players`` defaults to one more than the opponents; a single opponent spec fills
    every other seat. ``trusted``: the specs are the caller's own (typed by the user), so
    `module:Class` specs may import and ``ppo:`` `.zip` files may load (docs/TRUST.md); the
    viewer's live games pass specs from a request and never set it. ``move_time_limit``:
    seconds per call for every outside agent (0: none); one over it, or calling ``sys.exit``,
    is dropped and its seat plays the first legal action (:func:`bot_step`).
    """
    opponents = [o.strip() for o in opponents]
    if not opponents or any(not o for o in opponents):
        raise PlayError("--opponents needs comma-separated player specs, e.g. greedy,planner")
    n = len(opponents) + 1 if num_players is None else num_players
    if not is_player_count(n):
        raise PlayError(f"--num-players={n!r} is not allowed; choose {allowed_counts()}")
    if len(opponents) == 1 and n > 2:
        opponents = opponents * (n - 1)
    if len(opponents) != n - 1:
        raise PlayError(
            f"--opponents lists {len(opponents)} specs but a {n}-player game has {n - 1} "
            f"other seats: give {n - 1} specs (or one, to fill every seat with it)"
        )
    if HUMAN in opponents:
        raise PlayError(f"{HUMAN!r} is the person playing, not an opponent spec")
    if not 0 <= human_seat < n:
        raise PlayError(f"--seat {human_seat} is not at this table; seats are 0..{n - 1}")
    try:
        config = GameConfig(num_players=n, starting_money=starting_money, board_spaces=board_spaces)
    except ConfigError as e:
        raise PlayError(str(e)) from None
    if seed is None:
        seed = random.SystemRandom().randrange(1 << 31)
    try:
        check_seed(seed)
    except ValueError as e:
        raise PlayError(f"--seed: {e}") from None
    seating = list(opponents)
    seating.insert(human_seat, HUMAN)
    seeds = [derive_seed(seed, "agent", s) for s in range(n)]
    agents = _build_agents(seating, human_seat, seeds, trusted, move_time_limit)
    return PlayGame(config, seed, human_seat, seating, seeds, new_game(config, seed), agents)


def game_record(game: PlayGame) -> dict[str, Any]:
    """The game as an arena-style row plus ``type``/``human_seat``/``finished``."""
    s = game.state
    res = s.results
    return {
        "type": "play",
        "version": RECORD_VERSION,
        "created": game.created,
        "saved": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "game": 0,
        "deal": None,
        "deal_seed": game.deal_seed,
        "seating_index": None,
        "seating": list(game.seating),
        "num_players": game.config.num_players,
        "config": game.config.to_dict(),
        "agent_seeds": list(game.agent_seeds),
        "human_seat": game.human_seat,
        "finished": res is not None,
        "winner": res["winner"] if res else None,
        "winner_spec": game.seating[res["winner"]] if res else None,
        "ranks": list(res["ranks"]) if res else None,
        "money": list(res["money"]) if res else None,
        "property_value": list(res["property_value"]) if res else None,
        "totals": list(res["totals"]) if res else None,
        "rounds": res["rounds"] if res else s.round,
        "decisions": len(s.history),
        "error": None,
        "actions": list(s.history),
    }


def save_game(game: PlayGame, path: str | Path, *, overwrite: bool = False) -> Path:
    """Write the game's record atomically (a temporary name, then a rename); an existing file
    raises FileExistsError unless `overwrite`."""
    return write_json(Path(path), game_record(game), overwrite=overwrite)


def save_final(
    game: PlayGame, path: str | Path, *, overwrite: bool = False
) -> tuple[Path | None, str | None]:
    """Write the finished game to `path`; if that fails, to a fallback file (a new name under
    runs/play/, else in the system's temporary directory). Returns ``(where it went, why
    `path` failed or None)``; ``(None, why)`` only if no file could be written at all."""
    try:
        return save_game(game, path, overwrite=overwrite), None
    except OSError as e:
        why = f"{type(e).__name__}: {e}"
    for cand in (default_out_path(), fallback_path(path)):
        with contextlib.suppress(OSError):
            return save_game(game, cand), why
    return None, why


def _overrides_observe(agent: Any) -> bool:
    obs = getattr(type(agent), "observe", None)
    return obs is not None and obs is not BaseAgent.observe


def _feed(agents: dict[int, Any], observers: list[int], n: int, seat: int, action: int) -> None:
    for s in observers:
        if s != seat:
            # an outside agent's fault drops it; its next act says so (bot_step)
            with contextlib.suppress(AgentFault):
                agents[s].observe({"type": "action", "seat": (seat - s) % n, "action": action})


def load_game(path: str | Path, move_time_limit: float = DEFAULT_MOVE_TIME_LIMIT) -> PlayGame:
    """Resume a game saved by ``save PATH`` (or any unfinished play record). Its seats are
    rebuilt from the file's specs as data: registered names and ``.npz`` policies only, never
    a `module:Class` import nor a ``.zip`` pickle (docs/TRUST.md); outside agents play under
    ``move_time_limit`` as in :func:`new_play`."""
    path = Path(path)
    record = read_json(path, error=PlayError, damaged_hint="it is not a saved `lastwill play` game")
    if not isinstance(record, dict) or record.get("type") != "play":
        raise PlayError(f'{path} is not a saved `lastwill play` game (no "type": "play")')
    try:
        check_record(record, str(path))
        state = final_state(record)
    except ReplayError as e:
        raise PlayError(str(e)) from None
    seating = list(record["seating"])
    n = len(seating)
    human = record.get("human_seat")
    if not isinstance(human, int) or not 0 <= human < n or seating[human] != HUMAN:
        raise PlayError(f"{path}: 'human_seat' must name the seat whose spec is {HUMAN!r}")
    if state.phase == GAME_OVER:
        raise PlayError(
            f"{path} holds a finished game; watch it with: lastwill replay {path} --seat {human}"
        )
    seeds = record.get("agent_seeds")
    if not isinstance(seeds, list) or len(seeds) != n:
        seeds = [derive_seed(record["deal_seed"], "agent", s) for s in range(n)]
    config = GameConfig.from_dict(record["config"])
    agents = _build_agents(seating, human, seeds, move_time_limit=move_time_limit)
    # Show the bots the game so far, so their generators and memories match an unbroken game.
    shadow = new_game(config, record["deal_seed"])
    observers = [s for s, a in agents.items() if _overrides_observe(a)]
    for a in record["actions"]:
        seat = shadow.cur
        agent = agents.get(seat)
        if agent is not None:
            view = player_view(shadow, seat) if getattr(agent, "needs_view", True) else None
            with contextlib.suppress(Exception):  # the recorded action is what counts
                agent.act(view, legal_actions(shadow))
        apply_action(shadow, a)
        _feed(agents, observers, n, seat, a)
    return PlayGame(
        config,
        record["deal_seed"],
        human,
        seating,
        [int(x) for x in seeds],
        state,
        agents,
        created=record.get("created") or time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        saved=(str(path), len(state.history)),
    )


def default_out_path(root: str | Path = "runs/play") -> Path:
    return arena_out_path(root, ".json")


# ---------------------------------------------------------------------------------------------
# Playing


@dataclass
class PlayOutcome:
    finished: bool
    quit: bool
    record_path: Path | None
    record: dict[str, Any]


def observers_of(game: PlayGame) -> list[int]:
    """The bot seats that want to be told the other seats' actions (``observe``)."""
    return [s for s, a in game.agents.items() if _overrides_observe(a)]


def bot_turn(game: PlayGame) -> tuple[int, Any, list[int]]:
    """``(seat, view, legal)`` of the bot whose turn it is: its seat, its player view (``None``
    for an agent that needs none) and the legal actions, for :func:`bot_choice`."""
    state = game.state
    seat = state.cur
    if state.phase == GAME_OVER or seat == game.human_seat:
        raise PlayError("bot_turn: no bot is to act")
    agent = game.agents[seat]
    view = player_view(state, seat) if getattr(agent, "needs_view", True) else None
    return seat, view, list(legal_actions(state))


def bot_choice(agent: Any, view: Any, legal: list[int]) -> tuple[int, str | None]:
    """What ``agent`` plays at a decision (``view`` and ``legal`` from :func:`bot_turn`):
    ``(action, problem)``; the game is not touched, so this may run while others read it.

    A bot that raises or answers an illegal action plays the first legal action instead and
    ``problem`` says what went wrong (a bot's fault must not end a person's game). An outside
    agent over its time limit, or calling ``sys.exit``, is dropped (`agents.timelimit`): its
    seat plays the first legal action for the rest of the game, said once in ``problem``."""
    problem = None
    try:
        action = agent.act(view, list(legal))
        if isinstance(action, bool) or not isinstance(action, numbers.Integral):
            raise ValueError(f"action {action!r} is a {type(action).__name__}, not an integer")
        if action not in legal:
            raise ValueError(f"illegal action {action!r}")
    except AgentFault as e:
        action = legal[0]
        if not agent.reported:  # a LimitedAgent: said once
            agent.reported = True
            problem = f"{e}; its seat plays the first legal action for the rest of the game"
    except Exception as e:  # noqa: BLE001 - a bot's fault must not end the game
        action = legal[0]
        problem = f"{type(e).__name__}: {e}"
    return int(action), problem


def play_move(game: PlayGame, seat: int, action: int, observers: list[int] | None = None) -> None:
    """Apply ``seat``'s legal ``action`` and tell the observing bots."""
    apply_action(game.state, action)
    observers = observers_of(game) if observers is None else observers
    _feed(game.agents, observers, game.config.num_players, seat, action)


def bot_step(game: PlayGame, observers: list[int] | None = None) -> tuple[int, str | None]:
    """Let the bot whose turn it is decide (:func:`bot_choice`) and apply its action;
    ``(action, problem)``."""
    seat, view, legal = bot_turn(game)
    action, problem = bot_choice(game.agents[seat], view, legal)
    play_move(game, seat, action, observers)
    return action, problem


def human_step(game: PlayGame, action: int, observers: list[int] | None = None) -> None:
    """Apply the human's ``action`` (legality is checked by the engine: an illegal one raises
    :class:`~lastwill_env.engine.IllegalActionError` and changes nothing) and tell the bots."""
    state = game.state
    if state.phase == GAME_OVER or state.cur != game.human_seat:
        raise PlayError("human_step: it is not the human's turn")
    apply_action(state, action)
    observers = observers_of(game) if observers is None else observers
    _feed(game.agents, observers, game.config.num_players, game.human_seat, action)


def finish(game: PlayGame, observers: list[int] | None = None) -> None:
    """Tell the observing bots that the game is over."""
    observers = observers_of(game) if observers is None else observers
    for s in observers:
        with contextlib.suppress(AgentFault):  # the game is over either way
            results = player_view(game.state, s).results
            game.agents[s].observe({"type": "game_over", "results": results})


_CARD_CHOICES = frozenset(
    {"keep", "play", "use", "sell", "attach_card", "attach_joker", "room", "wild_party", "discard"}
)


def _card_body(card: int) -> str:
    """A card's text without its name (docs/CARDS.md, `lastwill_env.cardref`)."""
    return card_text(card).split(": ", 1)[1]


def count_of(k: int, noun: str) -> str:
    """The count with its noun in the right number: "1 action", "2 actions"."""
    return f"{k} {noun if k == 1 else noun + 's'}"


def choice_label(action: int, view: PlayerView | None = None) -> str:
    """``describe_action`` plus the card's text (price, spend, actions, companion slots,
    privilege) for a choice about a card, what a plan space gives, which card an offer space
    holds, and the amount of a use option."""
    text = describe_action(action)
    kind, arg = decode(action)
    if kind in _CARD_CHOICES:
        return f"{text}  [{_card_body(arg)}]"
    if view is None:
        return text
    if kind in ("plan", "block"):
        p = CATALOGUE.plans[view.num_players][arg]
        text += (
            f" (turn order {p.order}, {count_of(p.cards, 'plan card')}, "
            f"{count_of(p.errand_boys, 'errand boy')}, {count_of(p.actions, 'action')})"
        )
    elif kind == "errand" and arg < len(view.offer) and view.offer[arg] >= 0:
        c = view.offer[arg]
        text += f" ({CATALOGUE.cards[c].name}: {_card_body(c)})"
    elif kind == "use_option" and getattr(view, "using", -1) >= 0:
        spec = CATALOGUE.cards[view.using]
        if arg == 0:
            amount = spec.upkeep if spec.category == "property" else spec.spend
        else:
            amount = spec.slots[arg - 1][1]
        text += f" of {spec.name}: £{amount}"
    return text


def ordered_choices(legal: list[int]) -> list[int]:
    """The legal actions in the order they are offered: ``pass`` last, so typing 1 out of habit
    never ends a turn."""
    return [a for a in legal if a != PASS] + [a for a in legal if a == PASS]


def choices_text(legal: list[int], view: PlayerView | None = None) -> str:
    return "\n".join(f"  {i + 1:>3}) {choice_label(a, view)}" for i, a in enumerate(legal))


def hand_text(view: PlayerView) -> str:
    """The viewer's hand, one card and its text per line."""
    if not view.hand:
        return "your cards: none"
    return "your cards:\n" + "\n".join(f"    {card_text(c)}" for c in view.hand)


def table_text(view: PlayerView, viewer: int, names: list[str]) -> str:
    """The whole table as ``viewer`` sees it and every card of its hand with its text: the
    first decision's picture, and the answer to ``show``."""
    return render_view(view, viewer, names) + "\n" + hand_text(view)


# ---------------------------------------------------------------------------------------------
# What changed since the person's last decision


def _card_names(cards) -> str:
    return ", ".join(CATALOGUE.cards[c].name for c in cards) or "-"


def _money_lines(old: PlayerView, new: PlayerView, who) -> list[str]:
    moved = [
        f"{who(r)} £{a} -> £{b}"
        for r, (a, b) in enumerate(zip(old.money, new.money, strict=True))
        if a != b
    ]
    return [f"money: {', '.join(moved)}"] if moved else []


def _hand_lines(old: PlayerView, new: PlayerView, who) -> list[str]:
    """New cards of the viewer's hand with their text, the cards that left it, and the other
    seats' hand sizes that changed."""
    lines = []
    came = [c for c in new.hand if c not in old.hand]
    if came:
        lines += ["new in your hand:", *(f"  {card_text(c)}" for c in came)]
    gone = [c for c in old.hand if c not in new.hand]
    if gone:
        lines.append(f"left your hand: {_card_names(gone)}")
    sizes = [
        f"{who(r)} {a} -> {b}"
        for r, (a, b) in enumerate(zip(old.hand_sizes, new.hand_sizes, strict=True))
        if r and a != b
    ]
    if sizes:
        lines.append(f"cards in hand: {', '.join(sizes)}")
    return lines


def _board_lines(old: PlayerView, new: PlayerView, who) -> list[str]:
    """The board of every seat whose cards, values or tokens changed."""

    def marks(view: PlayerView, rel: int) -> list[tuple[int, int, int]]:
        return [(c, view.value_step[c], view.filled_slots[c]) for c in view.boards[rel]]

    lines = []
    for rel in range(new.num_players):
        if marks(old, rel) != marks(new, rel):
            whose = "your" if rel == 0 else f"{who(rel)}'s"
            cards = ", ".join(board_card(new, c) for c in new.boards[rel]) or "-"
            lines.append(f"{whose} board: {cards}")
    return lines


def _offer_line(view: PlayerView, who) -> str:
    spaces = []
    for i, c in enumerate(view.offer):
        taken = view.offer_taken_by[i]
        name = CATALOGUE.cards[c].name if c >= 0 else "-"
        spaces.append(f"{i + 1}:{name}{f' [{who(taken)}]' if taken >= 0 else ''}")
    return "offer: " + (" ".join(spaces) or "-")


def _supply_lines(old: PlayerView, new: PlayerView, who) -> list[str]:
    """The offer board, the market's modifier tiles and the extensions, where they changed."""
    lines = []
    if (old.offer, old.offer_taken_by) != (new.offer, new.offer_taken_by):
        lines.append(_offer_line(new, who))
    if old.modifiers != new.modifiers:
        mods = " ".join(f"{PROPERTY_TYPES[t]} {m:+d}" for t, m in enumerate(new.modifiers))
        lines.append(f"market: {mods}")
    ext = [
        f"{who(r)} {a} -> {b}"
        for r, (a, b) in enumerate(zip(old.extensions, new.extensions, strict=True))
        if a != b
    ]
    if ext:
        lines.append(f"board extensions: {', '.join(ext)}")
    return lines


def changes_text(old: PlayerView, new: PlayerView, viewer: int, names: list[str]) -> str:
    """What changed between two views of seat ``viewer`` (its last decision and this one), one
    indented line each: a new round, money, the viewer's new cards (with their text) and the
    cards that left its hand, the other hands' sizes, boards, the offer, the market and the
    extensions. "" when nothing did."""
    n = new.num_players

    def who(rel: int) -> str:
        return "you" if rel == 0 else names[(viewer + rel) % n]

    lines = []
    if new.round != old.round:
        lines.append(f"round {new.round} began; start player {who(new.start_player)}")
    for part in (_money_lines, _hand_lines, _board_lines, _supply_lines):
        lines += part(old, new, who)
    return "\n".join(f"  {line}" for line in lines)


_CONTEXT = ("your hand (", "kept so far:", "pending:")


def decision_text(old: PlayerView, view: PlayerView, viewer: int, names: list[str]) -> str:
    """A later decision's picture: the table's heading, what changed since ``old`` (the view at
    the viewer's last decision), then its hand and what is pending (draws, actions left)."""
    picture = render_view(view, viewer, names).splitlines()
    lines = [picture[0]]
    changes = changes_text(old, view, viewer, names)
    if changes:
        lines += ["since your last decision:", changes]
    lines += [line for line in picture if line.startswith(_CONTEXT)]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# help: the phase and each kind of choice

PHASE_HELP = {
    KEEP_PHASE: "round 1: you keep 2 of your 6 starting cards, one at a time; the other 4 are "
    "discarded face down.",
    BLOCK_PHASE: "2 players: each puts a neutral marker on a plan space, which nobody may then "
    "choose this round.",
    PLAN_PHASE: "the plan space you take sets the cards you draw now, your errand boys, your "
    "actions and your place in the turn order (order 1 acts first).",
    DRAW_PHASE: "choose the deck of each card your plan draws, one at a time, before any is "
    "seen; the cards are dealt when all are chosen.",
    ERRAND_PHASE: "in turn order each errand boy goes to a free errand space and does its "
    "errand at once.",
    MARKET_PHASE: "put the four modifier tiles under the property types in a new order; a "
    "tile is added to its type's buy and sale prices.",
    UNKNOWN_PHASE: "draw the top card of one normal deck into your hand.",
    TURN_PHASE: "play cards from your hand and use cards on your board, each for its actions, "
    "until you pass. The aim is to be rid of your money; while you own a property you may not "
    "go below £0.",
    OPTION_PHASE: "the board card you use spends its printed amount or that of a filled "
    "companion slot.",
    ADDON_PHASE: "the event you play may take the companion its next symbol shows, from your "
    "hand (or a joker), to spend its extra amount.",
    BALL_PHASE: "invest 2 or more actions in the Ball to spend the amount of that row.",
    ROOM_PHASE: "your board is full: discard a placed helper or expense (never a property) to "
    "place the new card.",
    WILD_PHASE: "Wild Party: each step takes one value step off one of your houses (three in all).",
    BREED_PHASE: "Breeders' Fair: attach up to two horses or dogs from your hand to your "
    "farms, no action each.",
    DISCARD_PHASE: "end of round: discard down to your hand limit (2; some helpers raise it).",
}

KIND_HELP = {
    "keep": "keep CARD: keep that starting card",
    "block": "block space N: nobody may choose that plan space this round",
    "plan": "plan space N: take that plan (its cards now, then its errand boys, actions and "
    "turn order)",
    "draw": "draw from DECK: one of your plan cards comes from that deck",
    "errand offer": "errand offer space N: take the card on that space into your hand (the "
    "others see which)",
    "errand board extension": "errand board extension: one more card space on your board, for good",
    "errand property market": "errand property market: rearrange the four modifier tiles next",
    "errand unknown card": "errand unknown card: draw the top card of a normal deck of your "
    "choice next (once a round)",
    "errand opera": "errand opera: spend £2",
    "market": "market order (a, b, c, d): the modifier tiles' new order",
    "play": "play CARD: an event spends its money and is discarded; a helper, expense or "
    "property goes onto your board (a property is bought for its price plus its modifier)",
    "use": "use CARD: once a round, spend a board card's money (maintaining a house keeps its "
    "value this round)",
    "sell": "sell CARD: the property leaves your board and you receive its value plus its modifier",
    "attach_card": "attach_card CARD: a companion from your hand becomes a token on that "
    "card's next slot, whose larger amount it may then spend",
    "attach_joker": "attach_joker CARD: the same with a joker as the companion",
    "addon_card": "addon_card: add the matching companion from your hand; the event spends its "
    "extra amount",
    "addon_joker": "addon_joker: the same with a joker",
    "ball": "ball invest K actions: spend the amount of that row of the Ball table",
    "room": "room CARD: discard that helper or expense from your board to make room",
    "wild_party": "wild_party HOUSE: that house loses one step of value",
    "discard": "discard CARD: that card goes to its discard pile",
    "discard_companion": "discard a TYPE: one companion of that type goes to its discard pile",
    "use_option": "use option: spend the printed amount, or that of a filled companion slot",
}

PASS_HELP = {
    TURN_PHASE: "end your turn (actions left are lost)",
    ADDON_PHASE: "skip this add-on",
    DRAW_PHASE: "take no more of the extra cards",
    BREED_PHASE: "attach no more companions",
    ERRAND_PHASE: "no errand space is open: this errand boy stays home",
}


def _help_key(action: int) -> str:
    kind, arg = decode(action)
    if kind == "errand":
        return "errand offer" if arg < MAX_OFFER_SPACES else f"errand {ERRAND_NAMES[arg]}"
    return kind


def help_text(view: PlayerView, legal: list[int]) -> str:
    """``help`` at the prompt: what the current phase is, what each kind of choice offered now
    does, and the commands."""
    lines = [f"{PHASE_NAMES[view.phase]}: {PHASE_HELP[view.phase]}", "Your kinds of choice:"]
    for key in dict.fromkeys(map(_help_key, legal)):
        if key == "pass":
            lines.append(f"  pass: {PASS_HELP.get(view.phase, 'skip this choice')}")
        else:
            lines.append(f"  {KIND_HELP[key]}")
    lines.append(COMMANDS_HELP)
    return "\n".join(lines)


def parse_choice(line: str, count: int) -> tuple[str, Any]:
    """``("choose", index)``, ``("save", path)``, ``("card", name)``,
    ``("quit"|"show"|"help", None)`` or ``("error", message)`` for one line of input
    (``count`` choices)."""
    text = line.strip()
    if not text:
        return "error", f"empty input: type a number from 1 to {count}, or help"
    word, _, rest = text.partition(" ")
    low = word.lower()
    if low in ("quit", "exit", "q"):
        return "quit", None
    if low in ("help", "?", "h"):
        return "help", None
    if low in ("show", "s", "table"):
        return "show", None
    if low == "card":
        if not rest.strip():
            return "error", "card needs a card name: card NAME (e.g. card Farm_3)"
        return "card", rest.strip()
    if low == "save":
        target = rest.strip()
        kind = "save"
        for flag in ("--force ", "-f "):
            if target.startswith(flag):
                kind, target = "save_force", target[len(flag) :].strip()
        if not target or target in ("--force", "-f"):
            return "error", "save needs a file name: save PATH (or save --force PATH)"
        return kind, target
    try:
        k = int(text)
    except ValueError:
        return "error", f"{text!r} is not a choice: type a number from 1 to {count}, or help"
    if not 1 <= k <= count:
        return "error", f"{k} is out of range: choose a number from 1 to {count}"
    return "choose", k - 1


def run(
    game: PlayGame,
    inp: TextIO,
    out: TextIO,
    out_path: str | Path | None = None,
    overwrite: bool = False,
) -> PlayOutcome:
    """Play until the game ends (then write the record to ``out_path``, when given: never
    over an existing file unless ``overwrite``, and to a fallback file, named in the output,
    if that write fails) or the human quits (or input ends)."""
    n = game.config.num_players
    human = game.human_seat
    names = game.names
    observers = observers_of(game)
    state = game.state

    def say(text: str) -> None:
        out.write(text + "\n")

    say(
        f"Last Will, {n} players, seed {game.deal_seed}; you are {names[human]}. "
        f"Seats: {', '.join(names)}"
    )
    if state.history:
        say(f"(resumed after {count_of(len(state.history), 'decision')})")
    say(COMMANDS_HELP)
    seen = None  # the view at the person's last decision
    while state.phase != GAME_OVER:
        seat = state.cur
        legal = legal_actions(state)
        if seat != human:
            action, problem = bot_step(game, observers)
            if problem is not None:
                say(f"  ({names[seat]} failed: {problem}; it plays {action})")
            say(f"  {names[seat]}: {describe_step(action, seat, human)}")
            continue
        if len(legal) == 1:  # a forced move: applied with a note, no prompt
            action = legal[0]
            human_step(game, action, observers)
            say(f"  you ({names[human]}): {describe_action(action)} (the only choice)")
            continue
        action, seen = _decide(game, ordered_choices(legal), seen, inp, out, say)
        if action is None:
            return PlayOutcome(False, True, None, game_record(game))
        human_step(game, action, observers)
        say(f"  you ({names[human]}): {describe_action(action)}")

    finish(game, observers)
    say("")
    say(render_view(player_view(state, human), human, names))
    say("")
    say(render_results(state, names))
    record = game_record(game)
    path = None if out_path is None else _write_final(game, record, out_path, overwrite, say)
    out.flush()
    return PlayOutcome(True, False, path, record)


def _decide(game: PlayGame, legal: list[int], seen, inp: TextIO, out: TextIO, say):
    """One of the person's decisions: the whole table the first time (``seen`` None), else
    what changed since ``seen``; the choices; the prompt. ``(action or None, this view)``."""
    human, names = game.human_seat, game.names
    view = player_view(game.state, human)
    say("")
    if seen is None:
        say(table_text(view, human, names))
    else:
        say(decision_text(seen, view, human, names))
    say(f"Your choices ({len(legal)}):")
    say(choices_text(legal, view))
    return _ask(game, legal, view, inp, out, say), view


def unsaved_note(game: PlayGame) -> str:
    """What leaving the game now loses: nothing after a save (or a load) with no decision
    since, else the decisions since the save, or the whole game when it was never saved."""
    if game.saved is None:
        return "the game is not finished and not saved (use save PATH first to keep it)"
    path, at = game.saved
    since = len(game.state.history) - at
    if since <= 0:
        return (
            f"the game is not finished and is saved in {path} (resume with: lastwill play "
            f"--load {path})"
        )
    return (
        f"the game is not finished; {count_of(since, 'decision')} since the save to {path} "
        f"{'is' if since == 1 else 'are'} not saved (save again first to keep them)"
    )


def _ask(game: PlayGame, legal: list[int], view, inp: TextIO, out: TextIO, say) -> int | None:
    """Prompt until the human picks one of ``legal`` (the action) or quits or input ends
    (None); the other commands (help, show, card NAME, save PATH) are answered meanwhile."""
    human, names = game.human_seat, game.names
    while True:
        out.write(f"choose 1-{len(legal)} (or card NAME, save PATH, show, help, quit): ")
        out.flush()
        line = inp.readline()
        if not line:
            say("")
            say(f"input ended; {unsaved_note(game)}")
            return None
        kind, arg = parse_choice(line, len(legal))
        if kind == "error":
            say(f"  {arg}")
        elif kind == "help":
            say(help_text(view, legal))
        elif kind == "show":
            say(table_text(view, human, names))
            say(choices_text(legal, view))
        elif kind == "card":
            try:
                say(f"  {card_text(arg)}")
            except CardNotFound as e:
                say(f"  {e}")
        elif kind in ("save", "save_force"):
            _save_command(game, arg, kind == "save_force", say)
        elif kind == "quit":
            say(f"quit: {unsaved_note(game)}")
            return None
        else:
            return legal[arg]


def _save_command(game: PlayGame, arg: str, replace: bool, say) -> None:
    """``save PATH`` (``save --force PATH``: ``replace``) at the prompt; says what happened."""
    try:
        check_destination(
            arg,
            "saved game",
            exists_ok=replace,
            hint="type save --force PATH to replace it, or choose another name",
        )
        p = save_game(game, arg, overwrite=replace)
    except FileExistsError:
        say(f"  {arg} already exists; not saved (save --force PATH replaces it)")
        return
    except (DestinationError, OSError) as e:
        say(f"  not saved: {e}")
        return
    game.saved = (str(p), len(game.state.history))
    say(f"  saved to {p} (resume with: lastwill play --load {p})")


def _write_final(game: PlayGame, record, out_path, overwrite: bool, say) -> Path | None:
    """Write the finished game's record to ``out_path`` (or a fallback file, or print it when
    both fail); the path written, if any."""
    human = game.human_seat
    path, why = save_final(game, out_path, overwrite=overwrite)
    if why is not None and path is not None:
        say(f"could not write the game record to {out_path} ({why}); it was written to {path}")
    elif why is not None:
        say(f"could not write the game record to {out_path} ({why}) nor to a fallback file;")
        say("here it is, to keep:")
        say(json.dumps(record))
    if path is not None:
        say(f"game record: {path} (watch it with: lastwill replay {path} --seat {human})")
    return path
