"""Self-play training of MaskablePPO agents for Last Will.

What belongs here: self-play loops, the opponent pool, checkpoint saving and loading (each
checkpoint stores the env version and action-table hash, and loading refuses a mismatch),
and training configuration.

Import rules (enforced by ``tests/test_architecture.py``): ``training`` may import
``agents`` and ``lastwill_env``; nothing outside ``training`` (except tests) imports it.
"""
