"""Scripted Last Will bots (engine-speed, no numpy/torch): one strategy per module.

- `greedy.GreedyBot`: the greedy spender.
- `speculator.SpeculatorBot`: the property speculator.
- `planner.PlannerBot`: plans by what the hand needs, times its bankruptcy.
- `combiner.CombinerBot`: the companion combiner.
- `racer.RacerBot`: the racer (owns nothing, spends fastest, ends the game in debt).
- `racer.SprinterBot`: the sprinter (the racer retuned for the 2-3 player board side).

Shared helpers and the per-phase base rules live in `common`.
"""

from .combiner import CombinerBot
from .common import ScriptedBot
from .greedy import GreedyBot
from .planner import PlannerBot
from .racer import RacerBot, SprinterBot
from .speculator import SpeculatorBot

__all__ = [
    "CombinerBot",
    "GreedyBot",
    "PlannerBot",
    "RacerBot",
    "ScriptedBot",
    "SpeculatorBot",
    "SprinterBot",
]
