"""Self-play games of a policy, recorded for learning a value of the game's result.

The search (`agents.mcts`) scores a leaf with the critic of the policy it searches over, for
every seat, from that seat's own observation (`agents.leafeval`). A critic trained by PPO
estimates a discounted, shaped return of the seat's own decisions; this records what a critic
that predicts the result itself learns from: the policy plays every seat, and at a random
fraction (`sample_rate`) of the decisions every seat's observation is kept (sparse, as
`encode_seats_sparse` writes it for the search) with the seat, the round, the shaping
potential (so that the start critic can be scored as the search reads it) and, once the game
is over, the seat's `zero_sum` result (+1 for the winner, -1/(n-1) for the others).

Moves are the policy's arg-max, or with probability `explore` a draw from its distribution,
so that the positions are not only the policy's own line. Every draw comes from the game's own
generator, seeded with the game's seed: a game's rows are a function of (policy, players,
seed, settings), whatever process plays it. Game seeds never carry the test deals' tag
(`agents.deals`).

The game is the policy's own (`NumpyPolicy.game`, a `gamecore.Game`): its rules, views,
encoders, rewards, shaping potential and round number (`Game.round_number`) are all this
module uses. Saved rows record their game's name (`game_name`; a file without it holds Last
Will's rows), and `load` refuses the rows of another game than the one it is told.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np

from gamecore import DEFAULT_GAME, Game, load_game

# the arrays of a set of rows, and their types
FIELDS = {
    "n": np.int64,
    "game": np.int64,
    "seat": np.int64,
    "round": np.int64,
    "phi": np.float32,
    "result": np.float32,
    "obs_len": np.int64,
    "obs_idx": np.int32,
    "obs_val": np.float32,
}
GAME_KEY = "game_name"  # the game's name in a saved file ("game" is a row's game seed)


class GamesError(ValueError):
    """Saved rows that cannot be read."""


def play(
    policy: Any, n: int, seed: int, sample_rate: float, explore: float, game: Game | None = None
) -> dict:
    """One game of `policy` in every seat at `n` players from deal `seed`: its rows. `game`:
    the game played (None: the policy's own)."""
    game = policy.game if game is None else game
    rng = random.Random(seed)
    state = game.new_game(game.make_config(n), seed)
    rows: dict[str, list] = {k: [] for k in FIELDS}
    while not game.is_over(state):
        legal = sorted(game.legal_actions(state))
        if rng.random() < sample_rate:
            _keep(rows, state, n, game)
        if len(legal) == 1:
            game.apply_action(state, legal[0])
            continue
        seat = game.current_player(state)
        view = game.player_view(state, seat)
        obs = game.encode_state(state, seat)
        free = rng.random() < explore
        game.apply_action(state, policy.choose(obs, legal, not free, rng=rng, view=view))
    rewards = game.terminal_rewards(list(game.ranks(state)), "zero_sum")
    rows["result"] = [rewards[p] for p in rows["seat"]]
    rows["game"] = [seed] * len(rows["seat"])
    return pack([rows])


def _keep(rows: dict[str, list], state, n: int, game: Game | None = None) -> None:
    game = load_game() if game is None else game
    for p, (nz, v) in enumerate(game.encode_seats_sparse(state, range(n), ordered=False)):
        rows["n"].append(n)
        rows["seat"].append(p)
        rows["round"].append(game.round_number(state))
        rows["phi"].append(game.potential(state, p))
        rows["obs_len"].append(len(nz))
        rows["obs_idx"].append(np.asarray(nz, dtype=np.int32))
        rows["obs_val"].append(np.asarray(v, dtype=np.float32))


def pack(parts: list[dict[str, list]]) -> dict[str, np.ndarray]:
    """Lists of rows (observations as one array per row) as flat arrays."""
    out = {}
    for k, dtype in FIELDS.items():
        items = [x for p in parts for x in p[k]]
        if k in ("obs_idx", "obs_val"):
            out[k] = np.concatenate(items).astype(dtype) if items else np.zeros(0, dtype)
        else:
            out[k] = np.asarray(items, dtype=dtype)
    return out


def concat(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Packed row sets joined into one."""
    if not parts:
        return {k: np.zeros(0, dtype) for k, dtype in FIELDS.items()}
    return {k: np.concatenate([p[k] for p in parts]) for k in FIELDS}


def save(
    path: Path, data: dict[str, np.ndarray], source: dict[str, Any], game: Game | None = None
) -> None:
    """The rows of `game` (None: Last Will) as an `.npz` (no pickles), with `source` (how they
    were played) as JSON text and the game's name."""
    name = (load_game() if game is None else game).name
    np.savez(path, source=np.array(json.dumps(source)), **{GAME_KEY: np.array(name)}, **data)


def load(
    paths: list[Path], game: Game | None = None
) -> tuple[dict[str, np.ndarray], list[dict[str, Any]]]:
    """Rows of `game` (None: Last Will) saved by `save`, read without pickles and checked,
    joined in order; and for each file its path and how its games were played."""
    game = load_game() if game is None else game
    parts, sources = [], []
    for path in paths:
        try:
            with np.load(path, allow_pickle=False) as f:
                missing = sorted(set(FIELDS) - set(f.files))
                if missing:
                    raise GamesError(f"{path}: not saved value-fit games (no {missing})")
                part = {k: np.asarray(f[k], dtype=FIELDS[k]) for k in FIELDS}
                source = _source(path, f["source"]) if "source" in f.files else None
                _check_game(path, f[GAME_KEY] if GAME_KEY in f.files else None, game)
        except GamesError:
            raise
        except (OSError, ValueError) as e:
            raise GamesError(f"{path}: cannot read saved games ({e})") from None
        _check(path, part, game)
        parts.append(part)
        sources.append({"path": str(path), "played": source})
    return concat(parts), sources


def _source(path: Path, text: np.ndarray) -> dict[str, Any]:
    try:
        source = json.loads(str(text))
    except ValueError:
        source = None
    if not isinstance(source, dict):
        raise GamesError(f"{path}: its 'source' is not a JSON object")
    return source


def _check_game(path: Path, entry: np.ndarray | None, game: Game) -> None:
    """The saved rows are `game`'s (a file that names no game holds Last Will's)."""
    name = DEFAULT_GAME if entry is None else entry
    if not isinstance(name, str):
        a = np.asarray(name)
        if a.ndim != 0 or a.dtype.kind != "U":
            raise GamesError(f"{path}: its {GAME_KEY} is not a game's name")
        name = str(a)
    if name != game.name:
        raise GamesError(
            f"{path}: saved rows of the game {name!r}, not of {game.name!r}; fit a policy "
            f"on rows of its own game"
        )


def _check(path: Path, d: dict[str, np.ndarray], game: Game) -> None:
    rows = len(d["n"])
    if any(len(d[k]) != rows for k in FIELDS if not k.startswith("obs_") or k == "obs_len"):
        raise GamesError(f"{path}: its arrays have different lengths")
    total = int(d["obs_len"].sum()) if rows else 0
    if len(d["obs_idx"]) != total or len(d["obs_val"]) != total or (d["obs_len"] < 0).any():
        raise GamesError(f"{path}: its observations do not match their lengths")
    size = game.obs_size
    if total and (d["obs_idx"].min() < 0 or d["obs_idx"].max() >= size):
        raise GamesError(f"{path}: an observation index is outside 0-{size - 1}")
    players = ~np.isin(d["n"], list(game.player_counts))
    if rows and (players | (d["seat"] < 0) | (d["seat"] >= d["n"])).any():
        raise GamesError(f"{path}: a row's players or seat is out of range")
