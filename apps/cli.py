"""The `lastwill` command: one Typer :data:`app`, its `--version`, and every subcommand,
registered here in the order `lastwill --help` lists them. Each command lives in a module of
its own (`apps.arena_cli`, `apps.eval_cli`, `apps.play_cli`, `apps.view_cli`,
`apps.expert_cli`, `apps.valuefit_cli`, `apps.train_cli`, `apps.exploit_cli`) and keeps the
conventions of `apps.command`: user errors exit 2 with one line, heavy imports (the arena,
matplotlib, torch) happen inside the command, so importing this module stays cheap and
torch-free. The console script's entry point is `apps.console`.
"""

from __future__ import annotations

from typing import Annotated

import typer

from gamecore import game_names, load_game

from .arena_cli import ARENA_HELP, arena
from .command import LabCommand, LabGroup
from .eval_cli import EVAL_HELP, eval_cmd
from .expert_cli import EXPERT_FIT_HELP, EXPERT_HELP, expert_cmd, expert_fit_cmd
from .exploit_cli import EXPLOIT_HELP, exploit_cmd
from .options import LegendCommand
from .play_cli import PLAY_HELP, REPLAY_HELP, PlayLegendCommand, play, replay
from .train_cli import TRAIN_HELP, train_cmd
from .valuefit_cli import VALUE_FIT_HELP, value_fit_cmd
from .view_cli import VIEW_HELP, view

app = typer.Typer(
    name="lastwill",
    help="Last Will RL lab: play bots against each other, train and evaluate agents.",
    no_args_is_help=True,
    add_completion=False,
    cls=LabGroup,
)


def version_text() -> str:
    """`lastwill-lab X.Y.Z (env lastwill_vN, N actions; ...)`: the lab's version
    (`gamecore.__version__`, which the package's metadata is built from) and each installed
    game's env."""
    import gamecore

    envs = []
    for name in game_names():
        try:
            g = load_game(name)
        except Exception as e:  # noqa: BLE001 - a broken game must not hide the version
            envs.append(f"{name} cannot be loaded: {type(e).__name__}: {e}")
            continue
        envs.append(f"env {g.env_name}, {g.num_actions} actions")
    return f"lastwill-lab {gamecore.__version__} ({'; '.join(envs)})"


def _version(value: bool) -> None:
    if value:
        typer.echo(version_text())
        raise typer.Exit(0)


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="Print the lab's version and its env version, then exit",
            callback=_version,
            is_eager=True,
        ),
    ] = False,
) -> None:
    """Last Will RL lab: play bots against each other, train and evaluate agents."""


# the commands, in the order of `lastwill --help`
WIDE = {"max_content_width": 100}
app.command(cls=LegendCommand, help=ARENA_HELP, context_settings=WIDE)(arena)
app.command("eval", cls=LegendCommand, help=EVAL_HELP, context_settings=WIDE)(eval_cmd)
app.command(cls=LabCommand, help=REPLAY_HELP, context_settings=WIDE)(replay)
app.command(cls=PlayLegendCommand, help=PLAY_HELP, context_settings=WIDE)(play)
app.command(cls=LabCommand, help=VIEW_HELP, context_settings=WIDE)(view)
app.command("expert", cls=LabCommand, help=EXPERT_HELP)(expert_cmd)
app.command("expert-fit", cls=LabCommand, help=EXPERT_FIT_HELP)(expert_fit_cmd)
app.command("value-fit", cls=LabCommand, help=VALUE_FIT_HELP)(value_fit_cmd)
app.command("train", cls=LabCommand, help=TRAIN_HELP, context_settings={"max_content_width": 110})(
    train_cmd
)
app.command("exploit", cls=LabCommand, help=EXPLOIT_HELP)(exploit_cmd)


if __name__ == "__main__":  # pragma: no cover
    app()
