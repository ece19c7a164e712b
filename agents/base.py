"""The agent protocol and the random agent: `gamecore.agent`, the same for every game.

An agent plays one seat. The harness calls `reset(seed)` before each game, then
`act(view, legal)` whenever the seat must decide: `view` is the seat's view (for Last Will a
`lastwill_env.engine.PlayerView`, seats relative to the agent, docs/RULES.md §10) and `legal`
the exact legal action indices; the agent returns one of them. An agent that never reads the
view may set `needs_view = False`; harnesses then pass `None`. `observe(event)` is an optional
hook the harness calls with public events; the default ignores them.
"""

from gamecore.agent import Agent, BaseAgent, RandomAgent, overrides_observe

__all__ = ["Agent", "BaseAgent", "RandomAgent", "overrides_observe"]
