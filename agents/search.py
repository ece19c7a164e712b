"""Flat Monte-Carlo search bot (`mc`): the value of each candidate action is the mean outcome of
rollouts from determinized states, for any `gamecore.Game` (Last Will by default).

For every decision with more than one legal action the bot
1. picks the candidates: all legal actions, or when there are more than `cands`, the rollout
   policy's own choice plus a seeded random sample of the others;
2. for each candidate runs `rollouts` playouts, each from a fresh determinization of its view
   (`Game.determinize_with`: hidden cards re-dealt uniformly from what it cannot see, with a
   fresh generator), applying the candidate and then letting the cheap rollout policy play
   every seat to the end of the game: with ``policy=greedy`` (the default) the game's rollout
   bot (`Game.rollout_bot`: Last Will's `greedy` with a little noise; uniformly random moves
   for a game that names none), with ``policy=random`` uniformly random moves;
3. scores a playout by `Game.playout_score` (by default the seat's final rank,
   (n - rank) / (n - 1); Last Will adds a small bonus for a lower money-plus-property total);
   the candidate with the best mean wins.

The bot sees only its view: a determinization is a pure function of the view and the bot's own
random stream, so its choices cannot depend on hidden information. Its seat is the seat to act
in the sampled state (it is asked only at its own decisions).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gamecore import load_game
from gamecore.options import check_number

from .base import BaseAgent

if TYPE_CHECKING:
    from gamecore import Game


class MCAgent(BaseAgent):
    """Flat Monte-Carlo: `rollouts` determinized playouts per candidate (at most `cands`)."""

    name = "mc"

    def __init__(
        self,
        seed: int | None = None,
        rollouts: int = 4,
        cands: int = 6,
        policy: str = "greedy",
        samples: int | None = None,
        config: Any = None,
        game: Game | None = None,
    ) -> None:
        super().__init__(seed)
        if samples is not None:  # alias: `mc:samples=N`
            rollouts = samples
        self.rollouts = check_number("rollouts", rollouts, 1, 10_000, integer=True)
        self.cands = check_number("cands", cands, 1, 10_000, integer=True)
        if policy not in ("greedy", "random"):
            raise ValueError(f"policy must be greedy or random, got {policy!r}")
        self.policy = policy
        self.config = config
        self.game = load_game() if game is None else game
        self._rollout_bot = _rollout_bot(self.game)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if self._rollout_bot is not None:
            self._rollout_bot.reset(seed)

    def _candidates(self, view: Any, legal: list[int]) -> list[int]:
        if len(legal) <= self.cands:
            return list(legal)
        bot = self._rollout_bot
        first = bot.act(view, legal) if self.policy == "greedy" and bot is not None else None
        rest = [a for a in legal if a != first]
        self.rng.shuffle(rest)
        picked = ([first] if first is not None else []) + rest
        return sorted(picked[: self.cands])

    def _playout(self, s: Any) -> None:
        rng = self.rng
        game = self.game
        is_over, legal_actions, apply_action = game.is_over, game.legal_actions, game.apply_action
        player_view, current_player = game.player_view, game.current_player
        bot = self._rollout_bot if self.policy == "greedy" else None
        while not is_over(s):
            legal = legal_actions(s)
            if len(legal) == 1:
                a = legal[0]
            elif bot is not None:
                a = bot.act(player_view(s, current_player(s)), legal)
            else:
                a = legal[rng.randrange(len(legal))]
            apply_action(s, a)

    def act(self, view: Any, legal: list[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        game = self.game
        sample, apply_action, score = game.determinize_with, game.apply_action, game.playout_score
        seat = game.current_player
        legal = sorted(legal)  # independent of the order of the caller's list
        cands = self._candidates(view, legal)
        best_a, best_v = cands[0], None
        for a in cands:
            total = 0.0
            for _ in range(self.rollouts):
                s = sample(view, self.rng, self.config)
                me = seat(s)
                apply_action(s, a)
                self._playout(s)
                total += score(s, me)
            if best_v is None or total > best_v:
                best_a, best_v = a, total
        return best_a


def _rollout_bot(game: Game) -> Any:
    """The game's rollout bot (`Game.rollout_bot`), seed 0, or None for random playouts."""
    if game.rollout_bot is None:
        return None
    bots = game.bots()
    if game.rollout_bot not in bots:
        raise ValueError(
            f"{game.name}: rollout_bot {game.rollout_bot!r} is not one of its bots {sorted(bots)}"
        )
    return bots[game.rollout_bot].factory(seed=0, **dict(game.rollout_params))
