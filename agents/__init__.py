"""Bots, players, the match harness that plays them, and the applications on top.

Four layers, lowest first (the lists are in ``tests/test_architecture.py``, which enforces them):

- the foundation: the agent protocol (:mod:`agents.base`), the trust grants, safe file writing
  and reading, the prior bonus and the `PriorSource` of residual policies, deal seeds;
- players and bots: the scripted bots, the search players, the network math and checkpoint
  files (:mod:`agents.policy`), policies by name (:mod:`agents.policyfiles`), the fingerprint
  games, and the registry of player specs (:mod:`agents.registry`), the one place that turns a
  spec into a player and hands a residual policy its prior bot;
- the match harness: the arena, evaluation, ratings, game logs and their replay;
- the applications: the command line (:mod:`agents.cli`), terminal play and the web viewer.

A layer imports only the layers below it, and no module imports itself back through others.
``agents`` may import ``lastwill_env`` but never ``training``. Only the policy-agent module
(``agents/policy*.py``) may touch torch / stable-baselines3, so heuristic tournaments run
without torch.
"""
