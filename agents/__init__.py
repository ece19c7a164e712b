"""Bots and the harness that plays them against each other.

What belongs here: the agent protocol (an agent picks one legal action from a player view),
heuristic and random bots, the registry of player specs used by the CLI (e.g. ``random``),
the seeded tournament / arena harness with its ratings, and the command-line app
(:mod:`agents.cli`).

Import rules (enforced by ``tests/test_architecture.py``): ``agents`` may import
``lastwill_env`` but never ``training``. Only the policy-agent module (``agents/policy*.py``)
may touch torch / stable-baselines3, so heuristic tournaments run without torch.
"""
