"""`lastwill view`: the web viewer (`apps.viewer`) served on this machine, for arena logs,
play records and live games in the browser."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agents.timelimit import DEFAULT_MOVE_TIME_LIMIT

from .command import fail, note
from .options import LIVE_TIME_LIMIT_HELP, checked_time_limit

VIEW_HELP = (
    "Open arena logs and play records in the browser, and play live games there. A local web "
    "app (served on 127.0.0.1 by default; every file it uses ships with the lab): the game "
    "list of a log with filters by entrant; each game as a table picture (one seat's view or "
    "every hand), stepped decision by decision; money of every seat as a chart; for a "
    "ppo:PATH seat, the policy's top actions and value estimate at each of its decisions; and "
    "live play against bots and policies, saved like `lastwill play`. It serves only the files "
    "and folders named here, its --save-dir and the shipped examples, and only to a browser "
    "that holds the session token in the URL it prints. Needs the view extra: "
    "pip install -e '.\\[view]'."
)


def view(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Arena logs (.jsonl) or game files (.json) to open, and folders whose logs "
            "and game files may be opened from the page",
            show_default=False,
        ),
    ] = None,
    host: Annotated[
        str,
        typer.Option(
            "--host", metavar="<text>", help="Address to listen on (127.0.0.1: this machine only)"
        ),
    ] = "127.0.0.1",
    allow_remote: Annotated[
        bool,
        typer.Option(
            "--allow-remote",
            help="Allow a --host that other machines can reach (the session token is then the "
            "only guard)",
        ),
    ] = False,
    port: Annotated[
        int, typer.Option("--port", help="Port to listen on (0: any free port)")
    ] = 8765,
    no_browser: Annotated[
        bool, typer.Option("--no-browser", help="Do not open a browser window")
    ] = False,
    save_dir: Annotated[
        Path, typer.Option("--save-dir", help="Folder for the records of live games")
    ] = Path("runs/play"),
    move_time_limit: Annotated[
        float, typer.Option("--move-time-limit", help=LIVE_TIME_LIMIT_HELP)
    ] = DEFAULT_MOVE_TIME_LIMIT,
) -> None:
    if not 0 <= port <= 65535:
        fail(f"--port must be from 0 to 65535, got {port}")
    try:
        from .viewer.server import serve
    except ImportError as e:
        fail(
            f"lastwill view needs the view extra ({e.name or e} is not installed): "
            f"pip install -e '.[view]'"
        )
    from .viewer.core import ViewError
    from .viewer.guard import is_loopback
    from .viewer.server import check_host

    def ready(url: str) -> None:
        note(f"lastwill view: serving {url} (Ctrl+C stops)")

    try:
        check_host(host, allow_remote)
        if not is_loopback(host):
            note(
                f"warning: --host {host} --allow-remote: other machines can reach the viewer; "
                f"anyone holding the URL's token can read the served logs and run bots"
            )
        serve(
            paths or None,
            host=host,
            port=port,
            open_browser=not no_browser,
            save_dir=save_dir,
            on_ready=ready,
            allow_remote=allow_remote,
            move_time_limit=checked_time_limit(move_time_limit),
        )
    except ViewError as e:
        fail(str(e))
    except KeyboardInterrupt:  # pragma: no cover - interactive
        pass
