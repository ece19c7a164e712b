"""labreports.plot_curve: the README's learning curve, drawn from a run's scalars export."""

from __future__ import annotations

import json

import pytest
from paths import REPO

from labreports import plot_curve

ROOT = REPO
EXPORT = ROOT / "notebooks" / "data" / "quick_run_scalars.json"


def test_curves_are_the_evaluated_tables_with_their_bands():
    doc = json.loads(EXPORT.read_text())
    found = plot_curve.curves(doc)
    assert {(bot, n) for bot, n, *_ in found} == {("greedy", 2), ("speculator", 2)}
    for _bot, _n, steps, rates, lows, highs in found:
        assert steps == sorted(steps) and len(steps) == len(rates) >= 2
        assert all(lo <= r <= hi for lo, r, hi in zip(lows, rates, highs, strict=True))


def test_writes_a_png(tmp_path):
    out = tmp_path / "curve.png"
    assert plot_curve.main([str(EXPORT), str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    "content",
    ["not json", '{"format": "other"}', '{"format": "lastwill-scalars/1", "scalars": {}}'],
)
def test_refuses_a_foreign_file_with_exit_2(tmp_path, capsys, content):
    src = tmp_path / "x.json"
    src.write_text(content)
    assert plot_curve.main([str(src), str(tmp_path / "o.png")]) == 2
    assert "error:" in capsys.readouterr().err and not (tmp_path / "o.png").exists()
