from agents.base import BaseAgent
from lastwill_env.bots import GreedyBot, PlannerBot


class MyAgent(BaseAgent):
    """Plays like planner until round `switch`, then like greedy."""

    def __init__(self, seed=None, switch=5):
        super().__init__(seed)
        self.switch = int(switch)
        self.planner, self.greedy = PlannerBot(seed), GreedyBot(seed)

    def reset(self, seed=None):
        super().reset(seed)
        self.planner.reset(seed)
        self.greedy.reset(seed)

    def act(self, view, legal):
        bot = self.planner if view.round < self.switch else self.greedy
        return bot.act(view, legal)
