"""Build hook for the lab's compiled modules (everything else is in pyproject.toml), each
`optional=True`: where one cannot be built (no C compiler), the install goes on without it.

The modules are those of `gamecore.buildcheck.COMPILED`, the one table of them (read here from
its file: the package cannot be imported while it is being built), each built from the `.c` file
of its name:

- `lastwill_env._cwriter`: the observation writer's state path; without it `lastwill_env.sparse`
  uses its Python writer.
- `lastwill_env.engine._cview`: a seat's `PlayerView`; without it `lastwill_env.engine.view`
  builds it in Python.
- `training.allseat._bagrad`: the weight gradient of the all-seat network's first layer; without
  it `training.allseat.firstlayer` uses `embedding_bag`'s own backward.

The two `lastwill_env` modules, accelerators of `lastwill_env.engine.view`, include the header of
the view rules they share (`HEADER`): a change to it rebuilds both.
"""

import importlib.util
import os

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = "lastwill_env/_lwview.h"


def _compiled() -> dict:
    """`gamecore.buildcheck.COMPILED` (standard library only, so loadable from its file)."""
    path = os.path.join(HERE, "gamecore", "buildcheck.py")
    spec = importlib.util.spec_from_file_location("_lastwill_buildcheck", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.COMPILED


def _extension(module: str) -> Extension:
    depends = [HEADER] if module.startswith("lastwill_env.") else []
    source = module.replace(".", "/") + ".c"
    return Extension(module, [source], depends=depends, optional=True)


setup(ext_modules=[_extension(c.module) for c in _compiled().values()])
