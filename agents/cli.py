"""Command-line entry point: the ``lastwill`` console script.

Subcommands (arena, train, ...) are registered on :data:`app` by the modules that implement
them; this module only holds the Typer app and its top-level options. It must stay cheap to
import: no torch at module level.
"""

from __future__ import annotations

import typer

app = typer.Typer(
    name="lastwill",
    help="Last Will RL lab: play bots against each other, train and evaluate agents.",
    no_args_is_help=True,
    add_completion=False,
)


@app.callback()
def main() -> None:
    """Last Will RL lab: play bots against each other, train and evaluate agents."""


if __name__ == "__main__":  # pragma: no cover
    app()
