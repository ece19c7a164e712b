"""``lastwill view``: a local web app for replays, the policy's view of a decision and live play
(Last Will; Money! and any other installed game through `gamecore`).

- :mod:`apps.viewer.core`: the data behind the pages, as JSON-ready dicts (no web library):
  the games of a log, a game's decisions and money, the table picture at a decision (one seat's
  :func:`~lastwill_env.engine.player_view`, docs/RULES.md §10, or every hand), and what a
  ``ppo:PATH`` seat's policy thought at its decisions (its value read as a win chance,
  :mod:`agents.winchance`). Logs and game files are read by :mod:`agents.gamelog`.
- :mod:`apps.viewer.live`: live games in the browser (a person and bots or policies), saved
  in the record format of ``lastwill play``.
- :mod:`apps.viewer.tablegame` and :mod:`apps.viewer.tablelive`: the replays and live games
  of the other installed games (Money!), through the `gamecore.Game` seam: every picture from
  the watched seat's own view (another seat's sealed bid never reaches the page), drawn by the
  game's board (:mod:`apps.viewer.money`) and its text (``Game.view_text``). Every answer
  names its game (``"game_name"``; a live game and a log: ``"game"``) and the page picks the
  renderer by it.
- :mod:`apps.viewer.server`: the Starlette app and :func:`~apps.viewer.server.serve`
  (uvicorn); needs the ``view`` extra (``pip install -e ".[view]"``).
- ``static/``: the page (plain HTML, CSS and JavaScript, no third-party code, nothing fetched
  from another machine); ``examples/``: a small shipped log.
"""

from pathlib import Path

STATIC_DIR = Path(__file__).resolve().parent / "static"
EXAMPLES_DIR = Path(__file__).resolve().parent / "examples"
