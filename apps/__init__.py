"""The lab's applications, on top of every other package: the `lastwill` command line
(`apps.cli`, its entry point `apps.console`, one module per command), terminal play
(`apps.play` for Last Will's table, `apps.tableplay` for any installed game), the replay of a
logged game as text (`apps.replay`) and the web viewer (`apps.viewer`).

Import rules (enforced by ``tests/tools/test_architecture.py``): ``apps`` may import every package
of the lab (``gamecore``, the games, ``gameenv``, ``agents``, ``training``); none of them
imports ``apps``. Commands import torch, and the trainers, only when they run.
"""

import os as _os

# numpy's BLAS on one thread in the `lastwill` command and the workers it spawns, unless the
# user set these variables, as `training` sets it (training/__init__.py says why); it takes
# effect when numpy is not yet imported.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    _os.environ.setdefault(_name, "1")
del _name
