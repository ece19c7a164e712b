"""Flat Monte-Carlo search bot (`mc`): the value of each candidate action is the mean outcome of
rollouts from determinized states.

For every decision with more than one legal action the bot
1. picks the candidates: all legal actions, or when there are more than `cands`, the rollout
   policy's own choice plus a seeded random sample of the others;
2. for each candidate runs `rollouts` playouts, each from a fresh determinization of its view
   (`lastwill_env.engine.determinize`: hidden cards re-dealt uniformly from what it cannot
   see, with a fresh generator), applying the candidate and then letting the cheap rollout
   policy (`greedy` with a little noise, or `random`) play every seat to the end of the game;
3. scores a playout by the seat's final rank, (n - rank) / (n - 1), plus a small bonus for a
   lower money-plus-property total; the candidate with the best mean wins.

The bot sees only its `PlayerView`: a determinization is a pure function of the view and the
bot's own random stream, so its choices cannot depend on hidden information. Its view is
determinized with itself at seat 0 (seat numbers are only labels for the rules).
"""

from __future__ import annotations

from lastwill_env.engine import GameConfig, PlayerView, apply_action, legal_actions, player_view
from lastwill_env.engine.determinize import determinize
from lastwill_env.engine.game import GAME_OVER
from lastwill_env.options import check_number

from .base import BaseAgent
from .bots.greedy import GreedyBot


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
        config: GameConfig | None = None,
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
        self._rollout_bot = GreedyBot(seed=0, eps=0.1)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._rollout_bot.reset(seed)

    def _candidates(self, view: PlayerView, legal: list[int]) -> list[int]:
        if len(legal) <= self.cands:
            return list(legal)
        first = GreedyBot.act(self._rollout_bot, view, legal) if self.policy == "greedy" else None
        rest = [a for a in legal if a != first]
        self.rng.shuffle(rest)
        picked = ([first] if first is not None else []) + rest
        return sorted(picked[: self.cands])

    def _playout(self, s) -> None:
        rng = self.rng
        bot = self._rollout_bot
        greedy = self.policy == "greedy"
        while s.phase != GAME_OVER:
            legal = legal_actions(s)
            if len(legal) == 1:
                a = legal[0]
            elif greedy:
                a = bot.act(player_view(s, s.cur), legal)
            else:
                a = legal[rng.randrange(len(legal))]
            apply_action(s, a)

    def act(self, view: PlayerView, legal: list[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        n = view.num_players
        me = view.seat
        legal = sorted(legal)  # independent of the order of the caller's list
        cands = self._candidates(view, legal)
        best_a, best_v = cands[0], None
        for a in cands:
            total = 0.0
            for _ in range(self.rollouts):
                s = determinize(view, me, self.rng, config=self.config)
                apply_action(s, a)
                self._playout(s)
                r = s.results
                rank = r["ranks"][me]
                spread = max(abs(t) for t in r["totals"]) or 1
                total += (n - rank) / (n - 1) - 0.05 * r["totals"][me] / spread
            if best_v is None or total > best_v:
                best_a, best_v = a, total
        return best_a
