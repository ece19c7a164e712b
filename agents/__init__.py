"""Bots, players and the match harness that plays them; the applications on top of them are
the package ``apps``.

Three layers, lowest first (the lists are in ``tests/tools/test_architecture.py``, which enforces
them):

- the foundation: the agent protocol (:mod:`agents.base`), the trust grants, safe file writing
  and reading, the prior bonus and the `PriorSource` of residual policies, deal seeds;
- players and bots: the scripted bots, the search players, the network math and checkpoint
  files (:mod:`agents.policy`), policies by name (:mod:`agents.policyfiles`), the fingerprint
  games, and the registry of player specs (:mod:`agents.registry`), the one place that turns a
  spec into a player and hands a residual policy its prior bot;
- the match harness: the arena, evaluation, ratings and game logs.

A layer imports only the layers below it, and no module imports itself back through others.
``agents`` never imports ``training`` nor ``apps``. Only the policy-agent module
(``agents/policy*.py``) may touch torch / stable-baselines3, so heuristic tournaments run
without torch.
"""
