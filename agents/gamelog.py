"""Reading game logs: the one reader of the lab's arena logs (JSONL) and game files (JSON).

An *arena log* (:mod:`agents.arena`) is one JSON object per line: an optional
``{"type": "header", ...}`` first, then one row per game. A *game file* (``lastwill play``, the
viewer's live games) is one JSON object, an arena row plus ``"type": "play"``. A game record
holds ``config``, ``deal_seed``, ``actions`` and ``seating``; an *error row* (a bot crashed) has
``error`` instead of results.

- :func:`scan_jsonl` splits a log's bytes into its header and rows (with the line of each). A
  torn last line (an interrupted write) is dropped; any other line that is not a JSON object is
  an error naming the file and the line. The arena resumes its own logs through it.
- :func:`read_game_file` opens a log or a game file safely (a missing or unreadable file, text
  that is not UTF-8: the lab's error ladder, :mod:`agents.readfile`; nesting deeper than
  :data:`MAX_DEPTH` levels: each a clear error) and
  checks every game row (:func:`check_row`), so a :class:`GameFile` holds game rows only.
- :func:`check_record` is what a replay needs of one record; :meth:`GameFile.pick` chooses a
  game by its index.

Every problem is a :class:`GameLogError` whose message names the file (and the line) and says
what was wrong; no message repeats what the file holds beyond its field names. ``lastwill
replay`` (:mod:`apps.replay`) and ``lastwill view`` (:mod:`apps.viewer.core`) read through
here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gamecore import DEFAULT_GAME, GameNotFound, load_game

from .readfile import read_text

MAX_DEPTH = 64  # a game record nests four levels; anything far deeper is not one
GAME_TYPES = ("game", "play")
GIVE = "give an arena log (.jsonl) or a game file (.json)"


class GameLogError(ValueError):
    """A log or game record that cannot be read; the message says where and why."""


class TooDeep(ValueError):
    """A JSON document nested deeper than the bound."""


# ---------------------------------------------------------------------------------------------
# Bounded JSON


def depth(obj: Any) -> int:
    """How deep ``obj`` nests lists and dicts (a scalar: 0), counted without recursion."""
    deepest, stack = 0, [(obj, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, level)
        stack.extend((c, level + 1) for c in children)
    return deepest


def loads(text: str | bytes, max_depth: int = MAX_DEPTH, strict: bool = False) -> Any:
    """``json.loads(text)``, refusing a document nested deeper than ``max_depth``; raises
    ``ValueError`` with ``json``'s own message, or :class:`TooDeep`. With ``strict`` the
    non-standard constants ``NaN`` and ``Infinity`` are refused too."""
    try:
        obj = json.loads(text, parse_constant=_refuse_constant if strict else None)
    except RecursionError:
        raise TooDeep(f"it is nested deeper than {max_depth} levels") from None
    if depth(obj) > max_depth:
        raise TooDeep(f"it is nested deeper than {max_depth} levels")
    return obj


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


# ---------------------------------------------------------------------------------------------
# Lines of a log


@dataclass
class Scan:
    """A log split into its lines: the header (or ``None``), the other rows, the line number
    (from 1) of each row, and where the intact part of the file ends (``good_bytes``)."""

    header: dict[str, Any] | None
    rows: list[dict[str, Any]]
    lines: list[int]
    good_bytes: int


def scan_jsonl(
    data: bytes, path: str | Path, error: type[Exception] = GameLogError, max_depth: int = 0
) -> Scan:
    """Split ``data`` (the bytes of the log at ``path``) into its header and rows. A torn last
    line is dropped (a complete object without its newline too: a write cut short); a bad line
    elsewhere, or a second header, raises ``error`` naming the line. ``max_depth`` > 0 also
    refuses a line nested deeper than that."""
    lines = data.split(b"\n")
    scan = Scan(None, [], [], 0)
    pos = 0
    for i, raw in enumerate(lines):
        last = i == len(lines) - 1
        end = pos + len(raw) + (0 if last else 1)
        if not raw.strip():
            pos = end
            continue
        try:
            obj = json.loads(raw)
            if not isinstance(obj, dict):
                raise ValueError("not a JSON object")
        except RecursionError:
            raise error(f"{path}: line {i + 1} is nested too deeply to be a game record") from None
        except ValueError as e:
            if last or all(not ln.strip() for ln in lines[i + 1 :]):
                break  # the truncated tail of an interrupted write
            raise error(f"{path}: line {i + 1} is not a JSON object ({e})") from e
        if last:  # a complete object without its newline: still a torn write, keep it out
            break
        if max_depth and depth(obj) > max_depth:
            raise error(f"{path}: line {i + 1} is nested deeper than {max_depth} levels")
        if obj.get("type") == "header":
            if scan.header is not None or scan.rows:
                raise error(f"{path}: line {i + 1}: a second header")
            scan.header = obj
        else:
            scan.rows.append(obj)
            scan.lines.append(i + 1)
        pos = end
    scan.good_bytes = pos
    return scan


# ---------------------------------------------------------------------------------------------
# Records


def check_record(
    record: Any, where: str = "record", game_name: Any = DEFAULT_GAME
) -> dict[str, Any]:
    """Validate the fields a replay needs (an error row is refused: it has no game to replay)
    for a game of ``game_name`` (a log header's ``game``: an installed game); return the
    record."""
    if not isinstance(record, dict):
        raise GameLogError(f"{where} is not a JSON object")
    if record.get("type") == "header":
        raise GameLogError(f"{where} is an arena log header, not a game")
    err = record.get("error")
    if err is not None:
        e = err if isinstance(err, dict) else {"message": str(err)}
        raise GameLogError(
            f"{where} is an error row: {e.get('player')} at seat {e.get('seat')} failed "
            f"({e.get('message')}); it has no finished game to replay"
        )
    missing = [k for k in ("config", "deal_seed", "actions", "seating") if k not in record]
    if missing:
        raise GameLogError(f"{where} lacks {', '.join(missing)}; it is not a game record")
    try:
        rules = load_game(game_name)
    except GameNotFound as e:
        raise GameLogError(f"{where}: {e}") from None
    try:
        cfg = rules.config_from_dict(record["config"])
    except (TypeError, ValueError, AttributeError) as e:  # ConfigError is a ValueError
        raise GameLogError(f"{where} has a bad config: {e}") from None
    actions = record["actions"]
    if not isinstance(actions, list) or any(type(a) is not int for a in actions):
        raise GameLogError(f"{where}: 'actions' must be a list of action indices")
    seed = record["deal_seed"]
    if type(seed) is not int or not 0 <= seed < 2**64:  # a JSON true is not a seed
        raise GameLogError(f"{where}: 'deal_seed' must be an integer from 0 to 2**64 - 1")
    seating = record["seating"]
    if (
        not isinstance(seating, list)
        or len(seating) != cfg.num_players
        or not all(isinstance(s, str) for s in seating)
    ):
        raise GameLogError(f"{where}: 'seating' must list {cfg.num_players} player specs")
    return record


def check_row(
    row: dict[str, Any], where: str, position: int, game_name: Any = DEFAULT_GAME
) -> None:
    """A row of a log or a game file is a game record (:func:`check_record`) or an error row
    (an integer ``game`` and a ``seating`` of player specs)."""
    if row.get("type", "game") not in GAME_TYPES:
        raise GameLogError(f"{where} is not a game record (its 'type' is not game or play)")
    index = row.get("game", position)
    # a play record names its game there instead (a single game file has no header)
    named = row.get("type") == "play" and isinstance(index, str) and index == game_name
    if type(index) is not int and not named:
        raise GameLogError(f"{where}: 'game' must be an integer index")
    seating = row.get("seating")
    if not isinstance(seating, list) or not all(isinstance(s, str) for s in seating):
        raise GameLogError(f"{where} is not a game record: 'seating' must list player specs")
    if row.get("error") is None:
        check_record(row, where, game_name)


# ---------------------------------------------------------------------------------------------
# Files


@dataclass
class GameFile:
    """The game rows of one file: ``header`` is ``None`` for a game file (one record) and for
    a log written without one; ``lines[i]`` is the line of ``rows[i]``."""

    path: Path
    header: dict[str, Any] | None
    rows: list[dict[str, Any]]
    lines: list[int]
    single: bool  # one JSON object (a game file), not a log

    @property
    def game_name(self) -> Any:
        """The game its rows are of: the header's ``game``, else a single record's own
        ``game`` when it is a name (`apps.tableplay`), else Last Will."""
        if self.header is not None:
            return self.header.get("game", DEFAULT_GAME)
        own = self.rows[0].get("game") if self.single and self.rows else None
        return own if isinstance(own, str) else DEFAULT_GAME

    @property
    def kind(self) -> str:
        if self.single or (self.header is None and len(self.rows) == 1):
            return "game file"
        return "arena log"

    def where(self, i: int) -> str:
        """How messages name row ``i``: the file and its line."""
        if self.single:
            return str(self.path)
        return f"{self.path.name}: line {self.lines[i]}"

    def pick(self, game: int | None = None) -> dict[str, Any]:
        """The record of game ``game`` (its ``game`` field), checked for a replay (an error
        row is refused). ``None`` picks the only game of a file that holds one."""
        if self.single:
            own = self.rows[0].get("game", 0)
            own = own if type(own) is int else 0  # a play record may hold its game's name
            if game is not None and game != own:
                raise GameLogError(
                    f"{self.path} is a single game file (game {own}); there is no game {game} in it"
                )
            return check_record(self.rows[0], str(self.path), self.game_name)
        indices = [r.get("game", i) for i, r in enumerate(self.rows)]
        if game is None:
            if len(self.rows) > 1:
                raise GameLogError(
                    f"{self.path} holds {len(self.rows)} games ({ranges(indices)}); choose one "
                    f"with --game N"
                )
            i = 0
        else:
            found = [i for i, g in enumerate(indices) if g == game]
            if not found:
                raise GameLogError(
                    f"{self.path} has no game {game}; its games are {ranges(indices)}"
                )
            i = found[0]
        return check_record(self.rows[i], f"{self.where(i)} (game {indices[i]})", self.game_name)


def read_game_file(path: str | Path, max_depth: int = MAX_DEPTH) -> GameFile:
    """The game rows of the arena log or game file at ``path``, each checked
    (:func:`check_row`); a log's rows of other types are left out. Nothing nested deeper than
    ``max_depth`` levels is kept."""
    path = Path(path)
    text = read_text(path, error=GameLogError, missing_hint=GIVE)  # the lab's error ladder
    try:
        obj = loads(text, max_depth)
    except TooDeep as e:
        raise GameLogError(f"{path} is not a game file: {e}") from None
    except ValueError:
        obj = None  # several lines: a JSONL log
    if isinstance(obj, dict) and obj.get("type") != "header":
        out = GameFile(path, None, [obj], [1], single=True)
    else:
        scan = scan_jsonl(text.encode("utf-8"), path, max_depth=max_depth)
        keep = [i for i, r in enumerate(scan.rows) if r.get("type", "game") in GAME_TYPES]
        rows = [scan.rows[i] for i in keep]
        if not rows:
            raise GameLogError(f"{path} holds no game rows; it is not an arena log or a game file")
        out = GameFile(path, scan.header, rows, [scan.lines[i] for i in keep], single=False)
    for i, row in enumerate(out.rows):
        check_row(row, out.where(i), i, out.game_name)
    return out


def ranges(indices: Sequence[Any]) -> str:
    """``0-2, 5`` for the game indices ``[0, 1, 2, 5]``."""
    nums = sorted(i for i in indices if isinstance(i, int))
    if not nums:
        return "unnumbered"
    parts, start, prev = [], nums[0], nums[0]
    for x in nums[1:] + [None]:
        if x is not None and x == prev + 1:
            prev = x
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if x is not None:
            start = prev = x
    return ", ".join(parts)
