"""PettingZoo AEC environment for Last Will — the env card.

Name and version: ``lastwill_v1`` (``ENV_NAME``, ``ENV_VERSION = 1``). ``ACTION_TABLE_HASH``
(sha256 of the printed action table plus the observation layout) is exported by
``lastwill_env``; store both in every checkpoint and refuse to load a mismatch. Bump the version
whenever the rules, the action table or the observation encoding change.

Creating it::

    from lastwill_env import env, raw_env
    e = env(num_players=4)                      # wrapped: AssertOutOfBounds + OrderEnforcing
    e = raw_env(num_players=3, reward="rank", starting_money="will-each")
    import pettingzoo, lastwill_env.env         # registered with PettingZoo's registry:
    e = pettingzoo.make("aec", "lastwill_v1", num_players=3)

``env()`` is the standard form: PettingZoo's order checks (no ``step``/``observe`` before
``reset``, a warning for a step after the game) and its out-of-bounds assertion on actions.
``raw_env()`` is the same environment without them, the documented fast path (about a tenth
fewer microseconds per step, see ``benchmarks/env_speed.py``) for loops that are known to be
correct; it still refuses illegal actions (below) and ``step()`` before ``reset()``. Both
pass PettingZoo's ``api_test``.

Agents: ``player_0 … player_{n-1}`` (absolute seats). ``agent_selection`` is the seat the engine
says must decide now (``GameState.cur``): turn order follows plans, blocking, errands and
discards, not a fixed cycle, and the same agent often acts several times in a row.

Spaces (identical for every agent and for 2–5 players):

- ``action_space(agent) = Discrete(NUM_ACTIONS)`` with ``NUM_ACTIONS = 532``: the engine's flat
  action table (``lastwill_env.engine.actions``; ``describe_action(i)`` names row ``i``).
- ``observation_space(agent) = Dict({"observation": Box(-5, 5, (OBS_SIZE,), float32),
  "action_mask": Box(0, 1, (NUM_ACTIONS,), int8)})`` with ``OBS_SIZE = 4285``.

Observation (``lastwill_env.encoding``; ``describe(obs)`` prints it by piece). What the observing
agent may know (docs/RULES.md §10), seat-relative (relative seat 0 = the observer), in this order:

====================  ======  =========================================================
piece                 size    content
====================  ======  =========================================================
num_players           4       one-hot over 2..5
round                 7       one-hot over 1..7
final_round           1       this round is the last
phase                 16      pending decision kind (``PHASE_NAMES``)
to_act                5       relative seat deciding now (zeros at game over)
start_player          5       relative seat of the start player
actions_left          1       acting player's actions left (/10)
resolving_card        140     card being resolved, one-hot over card ids
resolving_addon       1       next add-on index (/4)
resolving_spend       1       money the resolving card spends so far (/100)
resolving_left        1       Wild Party / Breeders' Fair steps left (/4)
draws_left            1       mandatory blind-draw picks left (/8)
draw_stage            3       plan cards / extra companions / extra events (draw phase only)
draw_queue            4       decks already chosen for the blind draw, per deck (/8)
seat{r}.*             5 x 20  per relative seat r = 0..4: present, money (/100),
                              hand_size (/10), extensions (/4), board_cards (/10),
                              plan (one-hot 8), order (one-hot 5: position in plan order),
                              errand_boys_left (/2), unknown_used; absent seats all zeros
board{r}              5 x 140 multi-hot of the cards on relative seat r's board
card_used             140     board card used this round
card_filled_slots     140     companion tokens on a board card (/3)
card_value_step       140     value-marker step of a board house (/5)
card_privilege_left   140     free uses left of a helper privilege (/2)
own_hand              140     the observer's hand (card ids are single cards)
keep_selected         140     starting cards already kept (keep phase, observer only)
offer{i}              9 x 140 card on offer space i+1, one-hot over card ids
offer_taken_by        9 x 5   relative seat whose errand boy took offer space i+1
modifiers             4       market modifier per property type (/3)
tokens                4       companion token supply per type (/10)
extensions_left       1       board extensions in the supply (/12)
deck_sizes            4       cards per normal deck (/40)
special_deck_size     1       cards in the special deck (/17)
discards              140     face-up discard piles, multi-hot over card ids
hidden_discards       4       face-down starting discards per pile (/20)
box                   140     cards out of the game (specials, will cards)
jokers_in_supply      1       (/2)
market_used           1       market errand taken this round
opera_used            1       opera errand taken this round
extension_errands     1       extension errands this round (/2)
blocked_plans         8       plan spaces blocked by neutral markers
using_card            140     board card whose use option is being chosen (v1)
known_hand{r}         5 x 140 per relative seat: cards it took face up from the offer board and
                              still holds, public by docs/RULES.md §10 (v1)
====================  ======  =========================================================

Action mask: int8, exactly the engine's legal set for the agent to act, all zeros for the
others (and for everybody once the game is over). It is in ``observe(agent)["action_mask"]``
and in ``infos[agent]["action_mask"]`` (the same array). There is always a legal action.

Rewards (terminal only; every other step gives 0):

- ``reward="zero_sum"`` (default): winner +1, each other player −1/(n−1).
- ``reward="rank"``: ``2 * (n − rank) / (n − 1) − 1``: rank 1 → +1, last → −1, linear between;
  also sums to 0.

At the end ``infos[agent]`` also holds ``rank``, ``winner`` (an agent name) and ``result`` (the
engine's results with absolute seats).

Illegal actions: ``illegal_action="raise"`` (default) raises ``IllegalActionError`` naming the
action and the legal ones; the state is unchanged. ``illegal_action="penalize"`` ends the game
at once: the offender gets ``illegal_penalty`` (default −1.0), the others 0, every agent is
terminated and ``infos[offender]["illegal_action"]`` holds the action. An illegal action is
never silently replaced. An action is a Python or numpy integer: anything else (a bool, a float
such as ``3.0``, a numpy bool or float) raises ``IllegalActionError`` naming its type in either
mode. ``illegal_penalty`` must be a finite number. ``step()`` before ``reset()`` raises
``RuntimeError``; ``observe``, ``observation_space`` and ``action_space`` of a name that is not
an agent of the game raise ``ValueError`` naming the agents.

Options: ``num_players`` 2–5 (default 4), ``render_mode`` ``None | "ansi" | "human"``,
``reward``, ``illegal_action``, ``illegal_penalty`` and the game options of docs/RULES.md §9
(``GameConfig`` fields): ``starting_money`` (70, "will-shared", "will-each") and
``board_spaces`` (1–12, default 5). Unknown or invalid options raise ``ConfigError`` naming the
allowed values.

``reset(seed=s)`` plays the engine game ``new_game(config, seed=s)`` (``s`` a Python or numpy
integer from 0 to 2**64 - 1; anything else raises ``ConfigError``); a later ``reset()``
without a seed draws the next game seed from a numpy generator seeded with ``s`` (from fresh
entropy if the env was never seeded). ``state()`` is the full-information vector
(``STATE_SIZE``: the seat-0 observation, then all hands, deck cards and face-down discards) for
centralised critics. ``render()`` returns (``"ansi"``) or prints (``"human"``) a text picture of
the table seen by the acting seat, with the legal actions named.

Version history:

- v0: first version (action table of 528 rows, observation of 3444 values).
- v1: docs/RULES.md §4.4: using a board card with filled companion slots lets the player pick one
  of its affordable options (new decision "choose a use option", after "action turn"; four
  ``use_option`` rows appended to the action table: 532 rows). §10: the offer cards each seat
  took and still holds are public (``PlayerView.known_hands``; pieces ``using_card`` and
  ``known_hand0..4`` appended; the phase one-hot has 16 entries): 4285 values. v0 checkpoints
  are refused; ``agents.compat`` plays a v0 policy on v1 (``ppo_v0:PATH``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from gamecore.options import check_choice, check_finite, check_seed_option
from gameenv.base import SeatSpaces, callable_module
from gameenv.wrappers import AssertOutOfBounds, OrderEnforcing

from . import ENV_NAME, ENV_VERSION
from .encoding import (
    OBS_HIGH,
    OBS_LOW,
    OBS_SIZE,
    REWARD_MODES,
    STATE_SIZE,
    encode_global_state,
    encode_state,
    terminal_rewards,
)
from .engine import (
    CATALOGUE,
    NUM_ACTIONS,
    GameState,
    IllegalActionError,
    describe_action,
    make_config,
    new_game,
)
from .engine.game import GAME_OVER, action_int, as_legal
from .engine.text import render_seat

ILLEGAL_MODES = ("raise", "penalize")
_CARDS = CATALOGUE.cards

__all__ = ["env", "raw_env", "ENV_NAME", "ENV_VERSION", "terminal_rewards", "describe_action"]


def env(**kwargs: Any) -> AECEnv:
    """The wrapped environment (the usual entry point): ``raw_env(**kwargs)`` inside
    PettingZoo's ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper`` (the subclasses of
    ``gameenv.wrappers``: the same checks, attributes read from the raw env in one hop
    instead of through each wrapper's ``__getattr__``). Illegal actions are handled by
    ``raw_env`` itself (``illegal_action=``), so ``TerminateIllegalWrapper`` is not used: by
    default an illegal action raises instead of ending the game."""
    e: AECEnv = raw_env(**kwargs)
    e = AssertOutOfBounds(e)
    e = OrderEnforcing(e)
    return e


class raw_env(SeatSpaces, AECEnv, EzPickle):
    """Last Will as a PettingZoo AEC env; see the module docstring (the env card)."""

    metadata = {"name": ENV_NAME, "render_modes": ["ansi", "human"], "is_parallelizable": False}

    def __init__(
        self,
        num_players: int = 4,
        render_mode: str | None = None,
        reward: str = "zero_sum",
        illegal_action: str = "raise",
        illegal_penalty: float = -1.0,
        **game_options: Any,
    ) -> None:
        EzPickle.__init__(
            self, num_players, render_mode, reward, illegal_action, illegal_penalty, **game_options
        )
        super().__init__()
        self.config = make_config(num_players, **game_options)
        if render_mode is not None:
            check_choice("render_mode", render_mode, tuple(self.metadata["render_modes"]))
        self.render_mode = render_mode
        self.reward_mode = check_choice("reward", reward, REWARD_MODES)
        self.illegal_action = check_choice("illegal_action", illegal_action, ILLEGAL_MODES)
        self.illegal_penalty = check_finite("illegal_penalty", illegal_penalty)
        n = self.config.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = self.possible_agents[:]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(OBS_LOW, OBS_HIGH, (OBS_SIZE,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
            }
        )
        act_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, act_space)
        self.state_space = spaces.Box(OBS_LOW, OBS_HIGH, (STATE_SIZE,), dtype=np.float32)
        self._seed_rng: np.random.Generator | None = None
        self._state: GameState | None = None
        self._zero_mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        self._zero_mask.flags.writeable = False

    # -- helpers ------------------------------------------------------------------------------
    @property
    def game(self) -> GameState:
        """The engine state (read it, do not change it)."""
        if self._state is None:
            raise RuntimeError("call reset() before using the environment")
        return self._state

    def describe_action(self, action: int) -> str:
        return describe_action(int(action))

    def _new_mask(self, legal: list[int]) -> np.ndarray:
        m = np.zeros(NUM_ACTIONS, dtype=np.int8)
        m[legal] = 1
        return m

    # -- AEC API ------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            game_seed = check_seed_option("seed", seed)
            self._seed_rng = np.random.default_rng(game_seed)
        else:
            if self._seed_rng is None:
                self._seed_rng = np.random.default_rng()
            game_seed = int(self._seed_rng.integers(0, 2**63 - 1))
        self._state = s = new_game(self.config, game_seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        zero = self._zero_mask
        self.infos = {a: {"action_mask": zero} for a in self.agents}
        self.agent_selection = self.possible_agents[s.cur]
        self.infos[self.agent_selection] = {"action_mask": self._new_mask(s.legal_actions())}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[self._agent(agent)]
        return {
            "observation": encode_state(self.game, seat),
            "action_mask": self.infos[agent]["action_mask"],
        }

    def state(self) -> np.ndarray:
        return encode_global_state(self.game)

    def step(self, action: Any) -> None:
        s = self.game  # before reset() this raises, naming reset()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = as_legal(s, action)
        if a is None:
            if self.illegal_action == "raise" or action_int(action) is None:
                raise IllegalActionError(action, s.legal_actions(), s.phase)
            self._penalize(agent, action)
            return
        s.apply_action(a)
        self._cumulative_rewards[agent] = 0.0
        infos = self.infos
        infos[agent] = {"action_mask": self._zero_mask}
        if s.phase == GAME_OVER:
            self._finish()
        else:
            nxt = self.possible_agents[s.cur]
            self.agent_selection = nxt
            infos[nxt] = {"action_mask": self._new_mask(s.legal_actions())}
        if self.render_mode == "human":
            self.render()

    def _finish(self) -> None:
        res = self.game.results
        assert res is not None
        rew = terminal_rewards(res["ranks"], self.reward_mode)
        names = self.possible_agents
        winner = names[res["winner"]]
        for i, a in enumerate(names):
            self.rewards[a] = rew[i]
            self.terminations[a] = True
            self.infos[a] = {
                "action_mask": self._zero_mask,
                "rank": res["ranks"][i],
                "winner": winner,
                "result": res,
            }
        self._accumulate_rewards()

    def _penalize(self, agent: str, action: Any) -> None:
        for a in self.agents:
            self.rewards[a] = 0.0
            self.terminations[a] = True
            self.infos[a] = {"action_mask": self._zero_mask}
        self.rewards[agent] = self.illegal_penalty
        self.infos[agent]["illegal_action"] = action
        self._cumulative_rewards[agent] = 0.0
        self._accumulate_rewards()

    # -- rendering ----------------------------------------------------------------------------
    def render(self) -> str | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn(
                "render() called without a render_mode; use raw_env(render_mode='ansi')"
            )
            return None
        text = render_text(self.game)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def render_text(s: GameState) -> str:
    """A readable text picture of the table, seen by the acting seat (seat 0 at the end):
    only that seat's view is drawn (`lastwill_env.engine.text`), with its legal actions."""
    over = s.phase == GAME_OVER
    seat = 0 if over else s.cur
    names = [f"player_{p}" for p in range(s.n)]
    head = f"Last Will, {s.n} players, seen by player_{seat}"
    return head + "\n" + render_seat(s, seat, names)


callable_module(__name__)  # `NAME_env.env(...)` calls `env(...)` (gameenv.base)


def _register() -> None:
    """Importing this module registers `lastwill_v1` with PettingZoo (`pettingzoo.make`)."""
    from . import register

    register()


_register()
