"""Self-play training of the lab's policies (Last Will first): the all-seat PPO, SB3
MaskablePPO, RLlib PPO and expert iteration, in one run loop (`training.runloop`).

What belongs here: self-play loops, the opponent pool, checkpoint saving and loading (each
checkpoint stores the env version and action-table hash, and loading refuses a mismatch),
and training configuration.

Import rules (enforced by ``tests/tools/test_architecture.py``): ``training`` may import
``agents`` and ``lastwill_env``; nothing outside ``training`` imports it but the applications
(``apps``: `lastwill train`, `lastwill expert`, ...) and tests.
"""

import os as _os

# The lab's numpy work is many small matrix-vector products (a policy seat's forward pass at
# batch size 1, a snapshot's small batches): a second BLAS thread only spin-waits for a core,
# and on a loaded 2-core machine it made each pass some 50x slower. Training (and the
# `lastwill` command, whose package `apps` sets the same) and every worker it spawns therefore
# run numpy's BLAS on one thread, unless the user set these variables; it takes effect when
# numpy is not yet imported.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    _os.environ.setdefault(_name, "1")
del _name
