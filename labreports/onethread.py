"""One BLAS thread per process, for the tools whose numpy work is policy passes at batch size 1.

Imported for its effect, before numpy is (a second BLAS thread only spin-waits for a core;
the variables take effect when numpy loads): ``import labreports.onethread  # noqa: F401``
first among a tool's imports of numpy or the lab. Variables the user set are kept.
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
del _var
