"""Game configuration and seeds (docs/games/MONEY.md §2-3).

Money! has no options: a configuration is the player count, 3 to 5 (docs/games/MONEY.md §2).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from gamecore.plain import is_int
from gamecore.seeds import MASK64, SEED_RANGE, check_seed  # noqa: F401 - the lab's, re-exported

MIN_PLAYERS = 3
MAX_PLAYERS = 5
PLAYER_COUNTS: tuple[int, ...] = tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))


class ConfigError(ValueError):
    """A configuration value is not allowed; the message names the value and the choices."""


def check_player_count(n: Any, name: str = "num_players") -> int:
    if not is_int(n) or n not in PLAYER_COUNTS:
        raise ConfigError(f"{name}={n!r} is not allowed; Money! is for 3, 4 or 5 players")
    return int(n)


@dataclass(frozen=True, slots=True)
class GameConfig:
    num_players: int = 4

    def __post_init__(self) -> None:
        check_player_count(self.num_players)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameConfig:
        if not isinstance(data, dict):
            raise ConfigError(f"a game configuration must be a dict, got {type(data).__name__}")
        unknown = sorted(set(data) - {"num_players"})
        if unknown:
            raise ConfigError(f"unknown configuration option(s) {unknown}; allowed: num_players")
        return cls(**data)
