"""Last Will for reinforcement learning: the rules engine (`lastwill_env.engine`) and, over it,
the PettingZoo environment."""

__version__ = "0.1.0"
