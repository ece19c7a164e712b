"""Build hook for the one compiled module, `lastwill_env._cwriter` (the observation writer's
state path; everything else is in pyproject.toml). `optional=True`: where it cannot be built
(no C compiler), the install goes on and `lastwill_env.sparse` uses its Python writer."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("lastwill_env._cwriter", ["lastwill_env/_cwriter.c"], optional=True),
    ]
)
