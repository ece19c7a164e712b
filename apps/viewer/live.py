"""Live games in the browser: one person and bots or policies, saved like ``lastwill play``.

A :class:`LiveGame` wraps a :class:`~apps.play.PlayGame`: after every move of the person the
bots play until the person must decide again or the game ends. A bot's move is computed without
the game's lock (:func:`apps.play.bot_choice`), then applied under it if the game is still at
that decision, so the game's other requests are answered while a bot thinks. A built-in search
player may think at most :data:`~apps.viewer.limits.SEARCH_BUDGETS` per move.
The person sees only their seat's :func:`~lastwill_env.engine.player_view` (docs/RULES.md §10).
A finished game is written to the save folder in the record format of ``lastwill play`` (an
arena row plus ``"type": "play"``), so the replay pages and ``lastwill replay`` open it; a game
can also be saved mid-way (``lastwill play --load`` resumes it). A file is never overwritten.

Another installed game (Money!) is played by :mod:`apps.viewer.tablelive` (``"game"`` in the
setup); :class:`LiveSessions` holds the games of both kinds, which answer the same requests.

Requests that cannot be honoured raise :class:`~apps.viewer.core.ViewError` and change
nothing: an action that is not legal now, a move for a decision that has already been made
(two clicks, two tabs), a move while the game is over, a bad setup.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from agents.registry import PlayerSpecError, make_agent, resolve
from agents.timelimit import DEFAULT_MOVE_TIME_LIMIT, check_time_limit
from gamecore import DEFAULT_GAME, GameNotFound, game_names
from gamecore import load_game as load_game_named
from gamecore.plain import in_words
from lastwill_env.engine import (
    GAME_OVER,
    NUM_ACTIONS,
    PHASE_NAMES,
    ConfigError,
    apply_action,
    describe_action,
    legal_actions,
    new_game,
    player_view,
)
from lastwill_env.engine.text import describe_step

from ..play import (
    HUMAN,
    PlayError,
    PlayGame,
    bot_choice,
    bot_turn,
    choice_label,
    default_out_path,
    finish,
    human_step,
    load_game,
    new_play,
    observers_of,
    ordered_choices,
    play_move,
    save_game,
)
from .core import ViewError, frame
from .limits import SAVE_NAME_RE, SEARCH_BUDGETS, over_budget, shown

NAME_RE = SAVE_NAME_RE
SETUP_KEYS = ("game", "seats", "seed", "starting_money", "board_spaces")


def write_record(game: PlayGame, path: Path) -> Path:
    """Write the game's record to ``path``, which must not exist yet (never overwritten),
    atomically (``apps.play.save_game``: a temporary name, fsync, then a rename)."""
    try:
        save_game(game, path, overwrite=False)
    except FileExistsError as e:
        if not path.exists():  # a file where the save folder should be
            raise ViewError(f"cannot write {path}: {e}", status=500) from None
        raise ViewError(
            f"{path} already exists; refusing to overwrite it: choose another name", status=409
        ) from None
    except OSError as e:
        raise ViewError(f"cannot write {path}: {e}", status=500) from None
    return path


class LiveGame:
    def __init__(self, gid: str, game: PlayGame, save_dir: Path) -> None:
        self.id = gid
        self.game = game
        self.save_dir = save_dir
        self.lock = threading.Lock()  # held to read or change the game, never while a bot thinks
        self._thinker: object | None = None  # the request letting the bots play (advance)
        self.observers = observers_of(game)
        self.problems: list[str] = []
        self.saved: list[str] = []
        self.record_path: Path | None = None
        self.steps: list[tuple[int, int, int, int]] = []  # (seat, action, round, phase)
        self.money: list[list[int]] = []
        shadow = new_game(game.config, game.deal_seed)
        for a in game.state.history:
            self.steps.append((shadow.cur, a, shadow.round, shadow.phase))
            self.money.append(list(shadow.money))
            apply_action(shadow, a)
        self.money.append(list(game.state.money))
        self._finished = False

    # -- moves -------------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.game.state.phase == GAME_OVER

    def _record_step(self, seat: int, action: int, rnd: int, phase: int) -> None:
        self.steps.append((seat, action, rnd, phase))
        self.money.append(list(self.game.state.money))

    def advance(self) -> None:
        """Let the bots play until the person must decide or the game is over. Each move is
        computed outside the game's lock and applied under it (:meth:`apply_bot_move`); while
        one request lets the bots play, another that asks returns at once."""
        me = object()
        with self.lock:
            if self._thinker is not None:
                return
            self._thinker = me
        try:
            while (turn := self._next_bot()) is not None:
                seat, k, view, legal = turn
                choice = bot_choice(self.game.agents[seat], view, legal)  # the lock is free
                self.apply_bot_move((seat, k), choice)
        finally:
            with self.lock:  # only after a failure: _next_bot hands the turn back itself
                if self._thinker is me:
                    self._thinker = None

    def _next_bot(self) -> tuple[int, int, Any, list[int]] | None:
        """``(seat, decision, view, legal)`` of the bot to move next; ``None`` when the person
        must decide or the game is over (then the bots are done, in the same hold of the
        lock, and a finished game is written)."""
        with self.lock:
            s = self.game.state
            if s.phase == GAME_OVER or s.cur == self.game.human_seat:
                self._thinker = None
                self._finish()
                return None
            seat, view, legal = bot_turn(self.game)
            return seat, len(s.history), view, legal

    def apply_bot_move(self, turn: tuple[int, int], choice: tuple[int, str | None]) -> bool:
        """Apply ``choice`` (``(action, problem)``, :func:`apps.play.bot_choice`), computed
        for ``turn`` (``(seat, decision)``), if the game is still there; whether it was."""
        seat, k = turn
        action, problem = choice
        with self.lock:
            g, s = self.game, self.game.state
            if len(s.history) != k or s.phase == GAME_OVER or s.cur != seat:
                return False
            rnd, phase = s.round, s.phase
            play_move(g, seat, action, self.observers)
            if problem is not None:
                self.problems.append(
                    f"decision {len(s.history)}: {g.names[seat]} failed ({problem}) and "
                    f"played {describe_action(action)}"
                )
            self._record_step(seat, action, rnd, phase)
            return True

    def _finish(self) -> None:
        """Once the game is over: tell the bots and write its record to the save folder."""
        g = self.game
        if g.state.phase != GAME_OVER or self._finished:
            return
        self._finished = True
        finish(g, self.observers)
        try:
            self.record_path = write_record(g, default_out_path(self.save_dir))
        except ViewError as e:  # the game stands; say so, and let Save try elsewhere
            self.problems.append(f"the finished game was not saved: {e}")
        else:
            self.saved.append(str(self.record_path))

    def act(self, action: Any, decision: Any) -> None:
        """The person's move ``action`` at decision number ``decision`` (its index, which
        guards against a second click on a decision already made), then the bots' moves."""
        with self.lock:
            self._human_move(action, decision)
        self.advance()

    def _human_move(self, action: Any, decision: Any) -> None:
        g, s = self.game, self.game.state
        now = len(s.history)
        if type(decision) is not int:
            raise ViewError(
                f"'decision' must be the integer index of the decision you answer (now {now})",
                allowed=[now] if not self.over else [],
            )
        if self.over:
            raise ViewError("the game is over; no more moves", status=409, allowed=[])
        if decision != now:
            raise ViewError(
                f"decision {decision} is not the one pending: the game is at decision {now} "
                f"(reload the game)",
                status=409,
                allowed=[now],
            )
        if s.cur != g.human_seat:  # only while a bot thinks for another request
            raise ViewError(f"{g.names[s.cur]} is to act, not you", status=409)
        legal = legal_actions(s)
        if type(action) is not int or action not in legal:
            what = (
                describe_action(action)
                if type(action) is int and 0 <= action < NUM_ACTIONS
                else None
            )
            named = f"action {action!r}" + (f" ({what})" if what else "")
            raise ViewError(
                f"{named} is not legal now ({PHASE_NAMES[s.phase]}); the legal actions are "
                f"listed in 'allowed'",
                allowed=self.choices(),
            )
        seat, rnd, phase = s.cur, s.round, s.phase
        human_step(g, action, self.observers)
        self._record_step(seat, action, rnd, phase)

    def save(self, name: Any = None) -> Path:
        if name is None or name == "":
            return self._save_to(default_out_path(self.save_dir))
        if not isinstance(name, str) or not NAME_RE.match(name):
            raise ViewError(
                f"file name {name!r} is not allowed: use letters, digits, '.', '_' and '-' "
                f"(no folders); it is saved in {self.save_dir}",
                allowed={"pattern": NAME_RE.pattern},
            )
        if not name.endswith(".json"):
            name += ".json"
        return self._save_to(self.save_dir / name)

    def _save_to(self, path: Path) -> Path:
        p = write_record(self.game, path)
        self.saved.append(str(p))
        return p

    # -- what the page shows -----------------------------------------------------------------
    def choices(self) -> list[dict[str, Any]]:
        g, s = self.game, self.game.state
        if s.phase == GAME_OVER or s.cur != g.human_seat:
            return []
        view = player_view(s, g.human_seat)
        return [
            {"action": a, "name": describe_action(a), "label": choice_label(a, view)}
            for a in ordered_choices(legal_actions(s))  # pass last, as at the terminal
        ]

    def snapshot(self) -> dict[str, Any]:
        g, s = self.game, self.game.state
        human = g.human_seat
        fr = frame(s, g.seating, human)
        n = len(s.history)
        fr["k"] = n
        fr["total"] = n
        fr["next"] = None
        return {
            "id": self.id,
            "deal_seed": g.deal_seed,
            "config": g.config.to_dict(),
            "human_seat": human,
            "seats": [
                {"seat": i, "spec": spec, "name": f"P{i} {spec}"}
                for i, spec in enumerate(g.seating)
            ],
            "decision": n,
            "over": s.phase == GAME_OVER,
            "your_turn": s.phase != GAME_OVER and s.cur == human,
            "frame": fr,
            "choices": self.choices(),
            "decisions": [
                {
                    "k": k,
                    "round": rnd,
                    "phase": PHASE_NAMES[phase],
                    "seat": seat,
                    "name": describe_step(a, seat, human),
                }
                for k, (seat, a, rnd, phase) in enumerate(self.steps)
            ],
            "money": [[row[p] for row in self.money] for p in range(g.config.num_players)],
            "problems": list(self.problems),
            "saved": list(self.saved),
            "record": str(self.record_path) if self.record_path else None,
        }


def check_budgets(seats: list[str], game: Any = None) -> None:
    """Refuse (400) a seat whose built-in search player would think longer per move than
    :data:`~apps.viewer.limits.SEARCH_BUDGETS` allows in ``game`` (a `gamecore.Game`; None:
    Last Will). Such a player is built (it is not asked to move) to read its own settings; a
    spec that cannot be built is left to the game's setup to report."""
    for seat, spec in enumerate(seats):
        if spec == HUMAN:
            continue
        try:
            entry, _, _ = resolve(spec, game)
            if entry.origin != "built-in" or entry.name not in SEARCH_BUDGETS:
                continue
            over = over_budget(entry.name, make_agent(spec, seed=0, game=game))
        except PlayerSpecError:
            continue
        if over is not None:
            caps = ", ".join(
                f"{name} at most " + " and ".join(f"{k}={v}" for k, v in budget.items())
                for name, budget in SEARCH_BUDGETS.items()
            )
            raise ViewError(
                f"seat {seat} ({shown(spec)}) would search {over} a move, over the limit of "
                f"the viewer's live games: {caps} a move (each one given); ask for less",
                allowed=SEARCH_BUDGETS,
            )


def pick_game(name: Any) -> Any:
    """The installed game a live setup names (`gamecore.load_game`); a 400 listing the games
    for any other name."""
    if not isinstance(name, str) or len(name) > 32:  # a long value is never echoed whole
        raise ViewError(
            f"game {shown(name)} is not a game name; choose one of {game_names()}",
            allowed=game_names(),
        )
    try:
        return load_game_named(name)
    except GameNotFound as e:
        raise ViewError(str(e), allowed=game_names()) from None


class LiveSessions:
    """The live games of a server, by id; the oldest are dropped beyond ``limit``. Outside
    agents play under ``move_time_limit`` seconds per call (0: none; `agents.timelimit`): one
    over it is dropped and its seat plays the first legal action, said in the game's problems."""

    def __init__(
        self, save_dir: Path, limit: int = 50, move_time_limit: float = DEFAULT_MOVE_TIME_LIMIT
    ) -> None:
        self.save_dir = save_dir
        self.limit = limit
        self.move_time_limit = check_time_limit(move_time_limit)
        self._games: OrderedDict[str, LiveGame] = OrderedDict()
        self._lock = threading.Lock()

    def _add(self, game: Any) -> Any:
        """Hold a new live game: a Last Will :class:`~apps.play.PlayGame`, or an
        `apps.tableplay.TableGame` of another game (:mod:`apps.viewer.tablelive`)."""
        from .tablelive import TableLive

        gid = secrets.token_hex(6)
        if isinstance(game, PlayGame):
            live: Any = LiveGame(gid, game, self.save_dir)
        else:
            live = TableLive(gid, game, self.save_dir)
        with self._lock:
            self._games[gid] = live
            while len(self._games) > self.limit:
                self._games.popitem(last=False)
        live.advance()
        return live

    def create(self, body: Any) -> Any:
        """A new game from ``{"game", "seats": [...], "seed", "starting_money",
        "board_spaces"}``: ``game`` names an installed game (Last Will when left out; another
        game takes ``game``, ``seats`` and ``seed`` only, :mod:`apps.viewer.tablelive`);
        ``seats`` lists a spec per seat, exactly one of them ``"human"``."""
        if not isinstance(body, dict):
            raise ViewError("the request body must be a JSON object", allowed=list(SETUP_KEYS))
        game = pick_game(body.get("game", DEFAULT_GAME))
        if game.name != DEFAULT_GAME:
            from .tablelive import new_table_live

            table = new_table_live(game, body, self.move_time_limit, check_budgets)
            return self._add(table)
        extra = sorted(set(body) - set(SETUP_KEYS))
        if extra:
            raise ViewError(f"unknown field(s) {extra}", allowed=list(SETUP_KEYS))
        seats = body.get("seats")
        counts = list(game.player_counts)
        if (
            not isinstance(seats, list)
            or len(seats) not in counts
            or not all(isinstance(x, str) and x.strip() for x in seats)
        ):
            raise ViewError(
                f"'seats' must list {in_words(counts)} player specs, one per seat, exactly one "
                f'of them {HUMAN!r}, e.g. ["human", "greedy", "planner"]',
                allowed={"min": min(counts), "max": max(counts)},
            )
        seats = [x.strip() for x in seats]
        humans = [i for i, x in enumerate(seats) if x == HUMAN]
        if len(humans) != 1:
            raise ViewError(
                f"'seats' must hold exactly one {HUMAN!r} (the person playing); it holds "
                f"{len(humans)}"
            )
        seed = body.get("seed")
        if seed is not None and (type(seed) is not int or not 0 <= seed < 2**63):
            raise ViewError(f"'seed' must be a non-negative integer or null, got {seed!r}")
        money = body.get("starting_money", 70)
        spaces = body.get("board_spaces", 5)
        if type(spaces) is not int:
            raise ViewError(f"'board_spaces' must be an integer, got {spaces!r}")
        human = humans[0]
        check_budgets(seats)
        try:
            game = new_play(
                [x for i, x in enumerate(seats) if i != human],
                human_seat=human,
                num_players=len(seats),
                seed=seed,
                starting_money=money,
                board_spaces=spaces,
                move_time_limit=self.move_time_limit,
            )
        except (PlayError, ConfigError) as e:
            raise ViewError(str(e)) from None
        return self._add(game)

    def resume(self, path: Path, seating: list[str]) -> LiveGame:
        """Continue an unfinished game saved from ``lastwill play`` or this page, whose seats
        (read from the file) are ``seating``."""
        check_budgets(seating)
        try:
            game = load_game(path, move_time_limit=self.move_time_limit)
        except PlayError as e:
            raise ViewError(str(e)) from None
        return self._add(game)

    def get(self, gid: str) -> LiveGame:
        with self._lock:
            live = self._games.get(gid)
        if live is None:
            raise ViewError(f"no live game {gid!r} (it may have been closed)", status=404)
        return live
