"""Export the scalars of a training run to a small file that can be shipped and plotted.

    python -m labreports.export_scalars RUN_DIR OUT [--tags REGEX] [--note TEXT]

RUN_DIR is a `lastwill train` run directory (its TensorBoard event files under tb/, merged over
resumed segments, and state.json); OUT is a .json export (the run's configuration, warm-start
fit, best checkpoint and the kept scalars) or a .csv (tag,step,value). The default tags are the
evaluation (its per-bot sub-runs as `vs_<bot>/eval/...`, `chance/eval/...`), ratings, warm
start, pool, speed and PPO diagnostics (`agents.scalars.DEFAULT_TAGS`).
`notebooks/02_learning_curves.ipynb` plots an export. Exit code 2 on a bad run directory or
output.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from agents.scalars import DEFAULT_TAGS, ScalarsError, export_run, write_export


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--tags", default=DEFAULT_TAGS, help="regular expression of the tags to keep")
    ap.add_argument("--note", default="", help="a sentence saying what the run is")
    args = ap.parse_args(argv)
    if args.out.suffix not in (".json", ".csv"):
        print(f"error: OUT must end in .json or .csv, got {args.out}", file=sys.stderr)
        return 2
    try:
        re.compile(args.tags)
        doc = export_run(args.run_dir, args.tags, args.note)
    except re.error as e:
        print(f"error: --tags is not a regular expression: {e}", file=sys.stderr)
        return 2
    except ScalarsError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    path = write_export(doc, args.out)
    points = sum(len(v) for v in doc["scalars"].values())
    print(f"wrote {path}: {len(doc['scalars'])} tags, {points} points, {path.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
