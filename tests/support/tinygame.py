"""A tiny game that proves the seam without Last Will: "Tally" (tests only).

2-4 players; a deck of 4 copies of the values 1-5 is shuffled and each seat is dealt 3 cards,
hidden from the others. In turn from seat 0, each seat plays one card face up to its own tally
(action ``v - 1`` plays a card of value ``v``) until every hand is empty. Highest tally wins;
equal tallies share a rank, so a game can end with a shared first place.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from gamecore import Game, register_game

VALUES = 5
HAND = 3


@dataclass
class TallyConfig:
    num_players: int

    def to_dict(self) -> dict:
        return {"num_players": self.num_players}


@dataclass
class TallyState:
    n: int
    hands: list[list[int]]
    tallies: list[int]
    deck: list[int]  # the cards nobody holds
    cur: int = 0
    history: list[int] = field(default_factory=list)


class TallyGame(Game):
    name, title, env_name, version = "tally", "Tally", "tally_v0", 0
    player_counts = (2, 3, 4)
    num_actions = VALUES
    max_decisions = 4 * HAND
    obs_size = VALUES + 4
    result_fields = ("tallies",)
    default_panel = ("high",)
    action_table_hash = "tally-v0"

    def make_config(self, num_players, **options):
        if options or num_players not in self.player_counts:
            raise ValueError(f"tally: num_players={num_players!r}, options {options}; 2-4 players")
        return TallyConfig(num_players)

    def config_from_dict(self, data):
        return self.make_config(**data)

    def new_game(self, config, seed):
        deck = [v for v in range(1, VALUES + 1) for _ in range(4)]
        random.Random(seed).shuffle(deck)
        n = config.num_players
        hands = [sorted(deck[HAND * s : HAND * s + HAND]) for s in range(n)]
        return TallyState(n, hands, [0] * n, deck[HAND * n :])

    def current_player(self, state):
        return state.cur

    def legal_actions(self, state):
        return sorted({v - 1 for v in state.hands[state.cur]})

    def apply_action(self, state, action):
        if action not in self.legal_actions(state):
            raise ValueError(f"tally: action {action} is not legal")
        state.hands[state.cur].remove(action + 1)
        state.tallies[state.cur] += action + 1
        state.history.append(int(action))
        state.cur = (state.cur + 1) % state.n

    def is_over(self, state):
        return not any(state.hands)

    def ranks(self, state):
        return [1 + sum(t > mine for t in state.tallies) for mine in state.tallies]

    def row_fields(self, state):
        return {"tallies": list(state.tallies)}

    def history(self, state):
        return list(state.history)

    def action_text(self, action):
        return f"play a {action + 1}"

    def player_view(self, state, seat):
        n = state.n
        return {
            "seat": seat,
            "n": n,
            "hand": list(state.hands[seat]),
            "tallies": [state.tallies[(seat + k) % n] for k in range(n)],
            "sizes": [len(state.hands[(seat + k) % n]) for k in range(n)],
            "cur": (state.cur - seat) % n,
            "history": list(state.history),
        }

    def determinize(self, view, rng):
        n, seat = view["n"], view["seat"]
        unseen = [v for v in range(1, VALUES + 1) for _ in range(4)]
        for v in view["hand"] + [a + 1 for a in view["history"]]:
            unseen.remove(v)
        rng.shuffle(unseen)
        hands = [[] for _ in range(n)]
        for k in range(n):
            s = (seat + k) % n
            hands[s] = list(view["hand"]) if k == 0 else sorted(unseen[: view["sizes"][k]])
            unseen = unseen if k == 0 else unseen[view["sizes"][k] :]
        tallies = [view["tallies"][(s - seat) % n] for s in range(n)]
        cur = (view["cur"] + seat) % n
        return TallyState(n, hands, tallies, unseen, cur, list(view["history"]))

    def encode_observation(self, view, out=None):
        import numpy as np

        obs = np.zeros(self.obs_size, np.float32) if out is None else out
        obs[:] = 0
        for v in view["hand"]:
            obs[v - 1] += 1 / HAND
        for k, t in enumerate(view["tallies"]):
            obs[VALUES + k] = t / (HAND * VALUES)
        return obs

    def bots(self):
        from gamecore import Bot

        return {"high": Bot(HighBot, "plays its highest card")}


class HighBot:
    name = "high"
    needs_view = False

    def __init__(self, seed=None):
        pass

    def reset(self, seed=None):
        pass

    def act(self, view, legal):
        return max(legal)


def install() -> TallyGame:
    """Register ``tally`` in this process and return the game."""
    register_game("tally", TallyGame)
    from gamecore import load_game

    return load_game("tally")
