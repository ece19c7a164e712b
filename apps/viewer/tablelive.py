"""Live games of the games other than Last Will (Money!) in the browser: one person and bots.

The game is an `apps.tableplay.TableGame` (what ``lastwill play --game NAME`` plays at the
terminal), set up by `apps.tableplay.new_table` from the request's seats; after every move of
the person the bots play until the person must decide again or the game ends, each bot's move
computed outside the game's lock (as :mod:`apps.viewer.live` does for Last Will).

What the page gets (:meth:`TableLive.snapshot`) is drawn from the person's seat's
`Game.player_view` alone (:mod:`apps.viewer.tablegame`): the picture, the person's legal
moves said by `Game.move_text`, and the moments of the game as that seat saw them, where a run
of another seat's moves that the game tells nobody of (a card added to a sealed Money! bid) is
one moment whatever its length. Nothing in it counts the others' hidden moves: the deal seed is
sent only once the game is over (it decides every hand), and the number a move must name
(``"decision"``, which guards against a second click) is the count of the person's own
decisions so far. A bot that fails on a hidden move is reported without naming that move.

A finished game is written to the save folder as `apps.tableplay.table_record` writes it (an
arena row plus ``"type": "play"`` and ``"game"``), so the replay pages open it. A file is never
overwritten. Requests that cannot be honoured raise
:class:`~apps.viewer.core.ViewError` and change nothing.
"""

from __future__ import annotations

import contextlib
import json
import threading
from pathlib import Path
from typing import Any

from agents.safeio import write_json
from agents.timelimit import AgentFault
from gamecore.agent import overrides_observe
from gamecore.game import SILENT, Game
from gamecore.plain import in_words

from ..tableplay import (
    HUMAN,
    TableGame,
    TablePlayError,
    bot_choice,
    default_out_path,
    new_table,
    table_record,
)
from .core import ViewError
from .limits import SAVE_NAME_RE as NAME_RE
from .limits import shown
from .tablegame import seat_entries, seat_frame

SETUP_KEYS = ("game", "seats", "seed")


def write_record(record: dict[str, Any], path: Path) -> Path:
    """Write ``record`` to ``path``, which must not exist yet (never overwritten)."""
    try:
        return write_json(path, record, overwrite=False)
    except FileExistsError as e:
        if not path.exists():
            raise ViewError(f"cannot write {path}: {e}", status=500) from None
        raise ViewError(
            f"{path} already exists; refusing to overwrite it: choose another name", status=409
        ) from None
    except OSError as e:
        raise ViewError(f"cannot write {path}: {e}", status=500) from None


class TableLive:
    """One live game of a `gamecore.Game` (the interface of :class:`apps.viewer.live.
    LiveGame`: ``lock``, :meth:`advance`, :meth:`act`, :meth:`save`, :meth:`snapshot`)."""

    def __init__(self, gid: str, tg: TableGame, save_dir: Path) -> None:
        self.id = gid
        self.tg = tg
        self.game: Game = tg.game
        self.save_dir = save_dir
        self.lock = threading.Lock()  # held to read or change the game, never while a bot thinks
        self._thinker: object | None = None
        self.observers = [s for s, a in tg.agents.items() if overrides_observe(a)]
        self.problems: list[str] = []
        self.saved: list[str] = []
        self.record_path: Path | None = None
        self.seats: list[int] = []  # who made each decision
        self.actions: list[int] = []
        self.views = [self.game.player_view(tg.state, tg.human_seat)]  # the person's, per step
        self.mine = 0  # the person's decisions so far
        self._finished = False

    @property
    def over(self) -> bool:
        return self.game.is_over(self.tg.state)

    # -- moves -------------------------------------------------------------------------------
    def _play(self, seat: int, action: int) -> None:
        """Apply ``seat``'s ``action``, tell the watching bots what the game shows of it and
        keep the person's view after it."""
        tg, game = self.tg, self.game
        game.apply_action(tg.state, action)
        self.seats.append(seat)
        self.actions.append(action)
        self.views.append(game.player_view(tg.state, tg.human_seat))
        public = game.public_action(action)
        if public is SILENT:
            return
        n = len(tg.seating)
        for s in self.observers:
            if s != seat:
                with contextlib.suppress(AgentFault):
                    event = {"type": "action", "seat": (seat - s) % n, "action": public}
                    tg.agents[s].observe(event)

    def advance(self) -> None:
        """Let the bots play until the person must decide or the game is over; while one
        request lets them play, another that asks returns at once."""
        me = object()
        with self.lock:
            if self._thinker is not None:
                return
            self._thinker = me
        try:
            while (turn := self._next_bot()) is not None:
                seat, k, view, legal = turn
                choice = bot_choice(self.tg.agents[seat], view, legal)  # the lock is free
                self.apply_bot_move((seat, k), choice)
        finally:
            with self.lock:
                if self._thinker is me:
                    self._thinker = None

    def _next_bot(self) -> tuple[int, int, Any, list[int]] | None:
        with self.lock:
            tg, game = self.tg, self.game
            seat = None if self.over else game.current_player(tg.state)
            if seat is None or seat == tg.human_seat:
                self._thinker = None
                self._finish()
                return None
            agent = tg.agents[seat]
            view = game.player_view(tg.state, seat) if getattr(agent, "needs_view", True) else None
            return seat, len(self.actions), view, game.legal_actions(tg.state)

    def apply_bot_move(self, turn: tuple[int, int], choice: tuple[int, str | None]) -> bool:
        """Apply ``choice`` (``(action, problem)``) computed for ``turn`` (``(seat,
        decision)``) if the game is still there; whether it was."""
        seat, k = turn
        action, problem = choice
        with self.lock:
            tg = self.tg
            if len(self.actions) != k or self.over or self.game.current_player(tg.state) != seat:
                return False
            hidden = self.game.public_action(action) is SILENT
            self._play(seat, action)
            if problem is not None:
                name = tg.names[seat]
                self.problems.append(
                    f"{name} failed on a move hidden from you and played its first legal move"
                    if hidden
                    else f"{name} failed ({problem}) and played {self.game.action_text(action)}"
                )
            return True

    def _finish(self) -> None:
        """Once the game is over: tell the bots and write its record to the save folder."""
        if not self.over or self._finished:
            return
        self._finished = True
        tg = self.tg
        for s in self.observers:
            with contextlib.suppress(AgentFault):
                results = self.game.seat_results(tg.state, s)
                tg.agents[s].observe({"type": "game_over", "results": results})
        try:
            self.record_path = write_record(table_record(tg), default_out_path(self.save_dir))
        except ViewError as e:
            self.problems.append(f"the finished game was not saved: {e}")
        else:
            self.saved.append(str(self.record_path))

    def act(self, action: Any, decision: Any) -> None:
        """The person's move ``action`` at their decision number ``decision`` (how many they
        have made: a second click on a decision already made is refused), then the bots'."""
        with self.lock:
            self._human_move(action, decision)
        self.advance()

    def _human_move(self, action: Any, decision: Any) -> None:
        tg, game = self.tg, self.game
        now = self.mine
        if type(decision) is not int:
            raise ViewError(
                f"'decision' must be the integer number of your decisions so far (now {now})",
                allowed=[now] if not self.over else [],
            )
        if self.over:
            raise ViewError("the game is over; no more moves", status=409, allowed=[])
        if decision != now:
            raise ViewError(
                f"decision {decision} is not the one pending: you are at your decision {now} "
                f"(reload the game)",
                status=409,
                allowed=[now],
            )
        if game.current_player(tg.state) != tg.human_seat:
            who = tg.names[game.current_player(tg.state)]
            raise ViewError(f"{who} is to act, not you", status=409)
        legal = game.legal_actions(tg.state)
        if type(action) is not int or action not in legal:
            raise ViewError(
                f"action {shown(action)} is not legal now; the legal actions are listed in "
                f"'allowed'",
                allowed=self.choices(),
            )
        self._play(tg.human_seat, action)
        self.mine += 1

    # -- saving ------------------------------------------------------------------------------
    def save(self, name: Any = None) -> Path:
        if name is None or name == "":
            path = default_out_path(self.save_dir)
        elif not isinstance(name, str) or not NAME_RE.match(name):
            raise ViewError(
                f"file name {name!r} is not allowed: use letters, digits, '.', '_' and '-' "
                f"(no folders); it is saved in {self.save_dir}",
                allowed={"pattern": NAME_RE.pattern},
            )
        else:
            path = self.save_dir / (name if name.endswith(".json") else name + ".json")
        p = write_record(table_record(self.tg), path)
        self.saved.append(str(p))
        return p

    # -- what the page shows -----------------------------------------------------------------
    def choices(self) -> list[dict[str, Any]]:
        tg, game = self.tg, self.game
        if self.over or game.current_player(tg.state) != tg.human_seat:
            return []
        view = self.views[-1]
        return [
            {"action": a, "name": game.action_text(a), "label": game.move_text(view, a)}
            for a in game.legal_actions(tg.state)
        ]

    def snapshot(self) -> dict[str, Any]:
        """What the person may know now (module docstring)."""
        tg, game, human = self.tg, self.game, self.tg.human_seat
        over = self.over
        frame = seat_frame(game, self.views[-1], tg.seating, human)
        frame["k"] = self.mine
        entries = seat_entries(
            game, self.seats, self.actions, self.views.__getitem__, tg.seating, human
        )
        return {
            "id": self.id,
            "game": game.name,
            "title": game.title,
            "deal_seed": tg.deal_seed if over else None,
            "config": tg.config.to_dict(),
            "human_seat": human,
            "seats": [
                {"seat": i, "spec": spec, "name": f"P{i} {spec}"}
                for i, spec in enumerate(tg.seating)
            ],
            "decision": self.mine,
            "over": over,
            "your_turn": not over and game.current_player(tg.state) == human,
            "frame": frame,
            "choices": self.choices(),
            "decisions": entries,
            "problems": list(self.problems),
            "saved": list(self.saved),
            "record": str(self.record_path) if self.record_path else None,
            "resumable": False,
        }


def new_table_live(
    game: Game, body: dict[str, Any], move_time_limit: float, check_budgets: Any
) -> TableGame:
    """A new game of ``game`` from ``{"game", "seats": [...], "seed"}``: ``seats`` lists a
    spec per seat, exactly one of them ``"human"``, as many as the game allows players."""
    extra = sorted(set(body) - set(SETUP_KEYS))
    if extra:
        raise ViewError(
            f"unknown field(s) {shown(extra)} for {game.title}", allowed=list(SETUP_KEYS)
        )
    counts = list(game.player_counts)
    seats = body.get("seats")
    if (
        not isinstance(seats, list)
        or len(seats) not in counts
        or not all(isinstance(x, str) and x.strip() for x in seats)
    ):
        got = f"{len(seats)} seats" if isinstance(seats, list) else shown(seats)
        example = json.dumps([HUMAN, *game.default_panel[: min(counts) - 1]])
        raise ViewError(
            f"{game.title} is for {in_words(counts)} players: 'seats' must list that many "
            f"player specs, one per seat, exactly one of them {HUMAN!r}, e.g. {example} "
            f"(got {got})",
            allowed=counts,
        )
    seats = [x.strip() for x in seats]
    humans = [i for i, x in enumerate(seats) if x == HUMAN]
    if len(humans) != 1:
        raise ViewError(
            f"'seats' must hold exactly one {HUMAN!r} (the person playing); it holds {len(humans)}"
        )
    seed = body.get("seed")
    if seed is not None and (type(seed) is not int or not 0 <= seed < 2**63):
        raise ViewError(f"'seed' must be a non-negative integer or null, got {shown(seed)}")
    check_budgets(seats, game)
    human = humans[0]
    try:
        return new_table(
            game,
            [x for i, x in enumerate(seats) if i != human],
            human_seat=human,
            num_players=len(seats),
            seed=seed,
            move_time_limit=move_time_limit,
        )
    except TablePlayError as e:
        raise ViewError(str(e)) from None
