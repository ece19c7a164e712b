"""The `lastwill` console script's entry point: `apps.cli`'s app, imported here so that a
bad choice of compiled module (`LASTWILL_VIEW`, `LASTWILL_WRITER`, `LASTWILL_BAG_GRAD`, checked
while the modules that read them are imported, the last only by the commands that use torch) is
one line of error and exit code 2, like every other bad input, instead of a traceback."""

from __future__ import annotations

import sys


def _build_choice_error(err: BaseException) -> bool:
    # The check's module is imported before any module that raises it, and stays imported
    # when the import that raised fails.
    buildcheck = sys.modules.get("gamecore.buildcheck")
    return buildcheck is not None and isinstance(err, buildcheck.BuildChoiceError)


def main() -> None:
    try:
        from gamecore.buildcheck import check_environment

        check_environment()  # a bad choice of a compiled module, before any command runs
        from apps.cli import app

        app()  # a command that imports torch (`train`, `exploit`, ...) reads LASTWILL_BAG_GRAD
    except ValueError as err:
        if not _build_choice_error(err):
            raise
        print(f"Error: {err}", file=sys.stderr)
        raise SystemExit(2) from None
