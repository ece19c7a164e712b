"""Game configuration: player count and the options of docs/RULES.md §9.

Options (docs/RULES.md §9 "option" column):
- `starting_money`: `70` (default; the seeds' first-game rule), `"will-shared"` (one will card
  drawn for all players) or `"will-each"` (each player draws a will card; the Chinese text).
- `board_spaces`: card spaces on a player board before extensions (default 5).

Every other §9 ruling has no option and is fixed in the engine.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from gamecore.options import ConfigError
from gamecore.plain import in_words, is_int

MIN_PLAYERS = 2
MAX_PLAYERS = 5
# every allowed player count, smallest first: the one home of the range (docs/RULES.md §2-3)
PLAYER_COUNTS: tuple[int, ...] = tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))
STARTING_MONEY_CHOICES: tuple[int | str, ...] = (70, "will-shared", "will-each")
BOARD_SPACES_RANGE = (1, 12)


def is_player_count(n: Any) -> bool:
    """True for an int (not a bool) in `PLAYER_COUNTS`."""
    return is_int(n) and n in PLAYER_COUNTS


def allowed_counts() -> str:
    """The player counts in words for an error message: "2, 3, 4 or 5"."""
    return in_words(PLAYER_COUNTS)


def check_player_count(n: Any, name: str = "num_players") -> int:
    """`n` when it is an allowed player count; otherwise a `ConfigError` naming `name`, the
    value and the choices."""
    if not is_player_count(n):
        raise ConfigError(f"{name}={n!r} is not allowed; choose {allowed_counts()}")
    return n


@dataclass(frozen=True, slots=True)
class GameConfig:
    num_players: int = 4
    starting_money: int | str = 70
    board_spaces: int = 5

    def __post_init__(self) -> None:
        check_player_count(self.num_players)
        sm = self.starting_money
        if isinstance(sm, str) and sm.strip() == "70":
            object.__setattr__(self, "starting_money", 70)
            sm = 70
        if type(sm) not in (int, str) or sm not in STARTING_MONEY_CHOICES:
            allowed = ", ".join(repr(c) for c in STARTING_MONEY_CHOICES)
            raise ConfigError(f"starting_money={sm!r} is not allowed; choose one of {allowed}")
        bs = self.board_spaces
        lo, hi = BOARD_SPACES_RANGE
        if not is_int(bs) or not lo <= bs <= hi:
            raise ConfigError(
                f"board_spaces={bs!r} is not allowed; choose an integer from {lo} to {hi} "
                f"(default 5)"
            )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameConfig:
        if not isinstance(data, dict):
            raise ConfigError(f"a game configuration must be a dict, got {type(data).__name__}")
        allowed = {"num_players", "starting_money", "board_spaces"}
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise ConfigError(
                f"unknown configuration option(s) {unknown}; allowed: {sorted(allowed)}"
            )
        return cls(**data)


def make_config(num_players: int = 4, **options: Any) -> GameConfig:
    """Build a configuration from keyword options, rejecting unknown names clearly."""
    return GameConfig.from_dict({"num_players": num_players, **options})
