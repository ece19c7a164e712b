"""The fingerprint games: what one player plays in self-play on a few fixed deals, hashed.

A policy over a prior bot (`agents.policy.NumpyPolicy`, ``prior``) plays through that bot's
code at every decision, so a change to the bot changes the policy. The policy file records the
prior's fingerprint when it is written, and loading it checks that the bot still plays the same
moves on these deals (`agents.registry.RegistryPriors`, `agents.fingerprint` for any spec).

:func:`fingerprint_of` builds nothing itself: it is handed a builder ``build(seed) -> agent``,
so it sits below the registry that turns specs into players. Every seat of a game is the
player being fingerprinted, seeded and told of the other seats' actions as `agents.arena`'s
games do, so a fingerprint is the hash of the arena's own self-play games on `DEALS`. A player
that raises (or plays an illegal move) has no fingerprint: the error reaches the caller.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import lru_cache, partial
from typing import Any

from gamecore import SILENT, Game, load_game
from gamecore.agent import overrides_observe

from .deals import derive_seed

# (players, deal seed) of the fingerprint games; every seat is the player being fingerprinted
DEALS = ((2, 11), (4, 13))


def _observer(agent: Any) -> Callable[[dict[str, Any]], None] | None:
    """The agent's event hook when it overrides `BaseAgent.observe` (``None`` otherwise)."""
    return agent.observe if overrides_observe(agent) else None


def self_play(
    build: Callable[[int], Any], n: int, deal_seed: int, game: Game | None = None
) -> list[int]:
    """The actions of one game of ``game`` (Last Will by default) between ``n`` copies of
    ``build(seed)`` on the deal ``deal_seed`` (seat ``s`` built and reset with the arena's seed
    for it)."""
    rules = game or load_game()
    seeds = [derive_seed(deal_seed, "agent", seat) for seat in range(n)]
    agents = []
    for seed in seeds:
        agent = build(seed)
        agent.reset(seed)
        agents.append(agent)
    hooks = [(s, h) for s, a in enumerate(agents) if (h := _observer(a)) is not None]
    wants = [getattr(a, "needs_view", True) for a in agents]
    state = rules.new_game(rules.make_config(n), deal_seed)
    while not rules.is_over(state):
        seat = rules.current_player(state)
        legal = rules.legal_actions(state)
        view = rules.player_view(state, seat) if wants[seat] else None
        action = agents[seat].act(view, legal)
        rules.apply_action(state, action)
        shown = rules.public_action(int(action))
        for s, hook in hooks if shown is not SILENT else ():
            if s != seat:
                hook({"type": "action", "seat": (seat - s) % n, "action": shown})
    for s, hook in hooks:
        hook({"type": "game_over", "results": rules.seat_results(state, s)})
    return rules.history(state)


def fingerprint_of(build: Callable[[int], Any]) -> str:
    """16 hex digits of a hash of every action ``build``'s player plays on `DEALS`."""
    h = hashlib.sha256()
    for n, seed in DEALS:
        h.update(json.dumps([n, seed, self_play(build, n, seed), None]).encode())
    return h.hexdigest()[:16]


@lru_cache(maxsize=64)
def spec_fingerprint(spec: str, make: Callable[..., Any]) -> str:
    """The fingerprint of the player ``make(spec, seed)`` builds, cached per process by spec
    (``spec_fingerprint.cache_clear()`` forgets them, e.g. after a bot's code was patched)."""
    return fingerprint_of(partial(make, spec))
