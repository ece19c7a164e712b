"""Build hook for the three compiled modules (everything else is in pyproject.toml), each
`optional=True`: where one cannot be built (no C compiler), the install goes on without it.

- `lastwill_env._cwriter`: the observation writer's state path; without it `lastwill_env.sparse`
  uses its Python writer.
- `lastwill_env.engine._cview`: a seat's `PlayerView`; without it `lastwill_env.engine.view`
  builds it in Python.
- `training.allseat._bagrad`: the weight gradient of the all-seat network's first layer; without
  it `training.allseat.firstlayer` uses `embedding_bag`'s own backward.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("lastwill_env._cwriter", ["lastwill_env/_cwriter.c"], optional=True),
        Extension("lastwill_env.engine._cview", ["lastwill_env/engine/_cview.c"], optional=True),
        Extension("training.allseat._bagrad", ["training/allseat/_bagrad.c"], optional=True),
    ]
)
