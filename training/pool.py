"""The opponent pool for self-play (docs/TRAINING-NOTES.md §2).

Members:
- `latest`: the learner's current weights, synced into every env worker at each rollout start;
- frozen snapshots, saved every `snapshot_every` steps: a window of the most recent ones plus
  milestones (every `milestone_every` steps) that are never dropped, to detect cycling;
- scripted bots from the registry, a floor against forgetting.

Per game, each opponent seat is drawn independently: a bot with probability `p_bots_min`, the
latest weights with probability `p_latest`, otherwise a snapshot. With `pfsp`, snapshots are
weighted by x(1-x) of the learner's recent win rate x against them (prioritised fictitious
self-play, "PFSP-var"), so the pool favours opponents of even strength; without, uniformly.
With `p_bot_table`, a game instead seats n-1 copies of one bot (the evaluation's table). The
seating rule is the all-seat rollout's too (`training.seating`).

The registry of snapshots is `<run>/pool.json` (the single source of truth for the pool and for
tournaments: each entry names the checkpoint to pass as `ppo:PATH`). The pool object that lives in
an env worker holds numpy policies only, so workers never import torch.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.policy import NumpyPolicy
from agents.readfile import read_json
from agents.registry import make_agent
from agents.safeio import write_json
from gamecore import DEFAULT_GAME, load_game
from gamecore.plain import is_int

from .seating import BOT, BOT_TABLE, SNAPSHOT, draw_seat, draw_table
from .seeds import opponent_bot_seed


@dataclass
class SnapshotInfo:
    id: str
    path: str  # checkpoint .zip relative to the run directory (.json and .npz beside it)
    step: int
    milestone: bool = False
    games: int = 0
    wins: float = 0.0  # learner wins (or mean rank score) against this snapshot
    kind: str = "snapshot"  # snapshot | exploiter (a best response to the learner, kept)

    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.5


@dataclass
class PoolRegistry:
    """`<run>/pool.json`: snapshots in the pool and their head-to-head record."""

    snapshots: list[SnapshotInfo] = field(default_factory=list)
    window: int = 10

    def active(self) -> list[SnapshotInfo]:
        recent = [s for s in self.snapshots if not s.milestone and s.kind == "snapshot"]
        recent = recent[-self.window :]
        keep = {s.id for s in recent} | {
            s.id for s in self.snapshots if s.milestone or s.kind == "exploiter"
        }
        return [s for s in self.snapshots if s.id in keep]

    def add(self, info: SnapshotInfo) -> None:
        if any(s.id == info.id for s in self.snapshots):
            raise ValueError(f"snapshot {info.id} is already registered")
        self.snapshots.append(info)

    def record(self, snapshot_id: str, score: float) -> None:
        for s in self.snapshots:
            if s.id == snapshot_id:
                s.games += 1
                s.wins += score
                return

    def weights(self, pfsp: bool) -> dict[str, float]:
        act = self.active()
        if not pfsp:
            return {s.id: 1.0 for s in act}
        # x(1-x), with a small floor so a fresh or decided snapshot is still visited; an
        # exploiter is weighted (1-x)^2 ("PFSP-hard"): the more it beats the learner, the more
        # often it sits at the table, until the learner has answered it
        return {
            s.id: max((1 - s.win_rate()) ** 2, 0.05)
            if s.kind == "exploiter"
            else max(s.win_rate() * (1 - s.win_rate()), 0.02)
            for s in act
        }

    def save(self, path: str | Path) -> None:
        data = {"window": self.window, "snapshots": [asdict(s) for s in self.snapshots]}
        write_json(path, data)

    @classmethod
    def load(cls, path: str | Path) -> PoolRegistry:
        """Read `pool.json`; a damaged file raises ValueError naming what is wrong."""
        path = Path(path)
        data = read_json(path, error=ValueError, damaged_hint="the file is damaged")
        if not isinstance(data, dict) or not isinstance(data.get("snapshots"), list):
            raise ValueError(f'{path} must be a JSON object with a "snapshots" list')
        window = data.get("window", 10)
        if not is_int(window) or window < 1:
            raise ValueError(f"{path}: 'window' must be a positive integer, got {window!r}")
        kinds = {
            "id": str,
            "path": str,
            "step": int,
            "milestone": bool,
            "games": int,
            "kind": str,
        }
        snaps = []
        for i, entry in enumerate(data["snapshots"]):
            where = f"{path}: snapshot {i}"
            if not isinstance(entry, dict):
                raise ValueError(f"{where} is not a JSON object")
            unknown = sorted(set(entry) - set(SnapshotInfo.__dataclass_fields__))
            missing = [k for k in ("id", "path", "step") if k not in entry]
            if unknown or missing:
                raise ValueError(f"{where}: unknown fields {unknown}, missing fields {missing}")
            for k, t in kinds.items():
                v = entry.get(k)
                if k in entry and (not isinstance(v, t) or (t is int and isinstance(v, bool))):
                    raise ValueError(f"{where}: {k!r} must be of type {t.__name__}, got {v!r}")
            wins = entry.get("wins", 0.0)
            if isinstance(wins, bool) or not isinstance(wins, (int, float)) or wins < 0:
                raise ValueError(f"{where}: 'wins' must be a non-negative number, got {wins!r}")
            snaps.append(SnapshotInfo(**entry))
        ids = [s.id for s in snaps]
        if len(set(ids)) != len(ids):
            raise ValueError(f"{path}: a snapshot id is listed twice ({ids})")
        return cls(snaps, window)


class PolicyOpponent:
    """A numpy policy playing one seat of `game` (the default game when None) from its view
    (arg-max over the legal actions)."""

    def __init__(self, policy: NumpyPolicy, name: str, game: Any = None) -> None:
        game = load_game() if game is None else game
        self.policy = policy
        self.name = name
        self._encode = game.encode_observation
        self._obs = np.zeros(game.obs_size, dtype=np.float32)

    def act(self, view, legal: list[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        return self.policy.choose(self._encode(view, self._obs), legal, True, view=view)


class OpponentPool:
    """The worker-side pool: draws the opponents of each game."""

    def __init__(
        self,
        bots: list[str],
        p_latest: float,
        p_bots_min: float,
        pfsp: bool = True,
        seed: int = 0,
        p_bot_table: float = 0.0,
        game: Any = None,
    ) -> None:
        self.game = load_game() if game is None else game
        # another game's bots are built for it; Last Will's with today's call
        extra = {} if self.game.name == DEFAULT_GAME else {"game": self.game}
        self.bot_specs = list(bots)
        self.bots = [
            make_agent(b, seed=opponent_bot_seed(seed, i), **extra) for i, b in enumerate(bots)
        ]
        self.p_latest = p_latest
        self.p_bots_min = p_bots_min
        self.p_bot_table = p_bot_table
        self.pfsp = pfsp
        self.rng = random.Random(seed)
        self.latest: PolicyOpponent | None = None
        self.snapshots: dict[str, PolicyOpponent] = {}
        self.snapshot_weights: dict[str, float] = {}
        self.last_ids: list[str] = []

    # -- updates pushed from the trainer -------------------------------------------------
    def set_latest(self, state: dict[str, Any]) -> None:
        policy = NumpyPolicy.from_state(state, game=self.game)
        self.latest = PolicyOpponent(policy, "latest", self.game)

    def set_snapshots(self, paths: dict[str, str], weights: dict[str, float]) -> None:
        for sid in list(self.snapshots):
            if sid not in paths:
                del self.snapshots[sid]
        for sid, path in paths.items():
            if sid not in self.snapshots:
                npz = Path(path).with_suffix(".npz")
                policy = NumpyPolicy.load_npz(npz, game=self.game)
                self.snapshots[sid] = PolicyOpponent(policy, sid, self.game)
        self.snapshot_weights = {k: w for k, w in weights.items() if k in self.snapshots}

    # -- drawing a table -----------------------------------------------------------------
    def draw_one(self) -> tuple[str, Any]:
        kind, which = draw_seat(
            self.rng,
            len(self.bots),
            self.p_bots_min,
            self.p_latest,
            self.snapshots,
            self.snapshot_weights,
            has_latest=self.latest is not None,
        )
        if kind == BOT:
            return f"bot:{self.bot_specs[which]}", self.bots[which]
        if kind == SNAPSHOT:
            return which, self.snapshots[which]
        return "latest", self.latest

    def draw(self, num_players: int) -> list[Any]:
        """Opponents for the other num_players - 1 seats; their ids are kept in `last_ids`."""
        table = draw_table(self.rng, len(self.bots), self.p_bot_table)
        if table.kind == BOT_TABLE:
            i = table.bot
            picks = [(f"bot:{self.bot_specs[i]}", self.bots[i])] * (num_players - 1)
        else:
            picks = [self.draw_one() for _ in range(num_players - 1)]
        self.last_ids = [p[0] for p in picks]
        return [p[1] for p in picks]
