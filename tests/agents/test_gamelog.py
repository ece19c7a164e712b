"""agents.gamelog: the one reader of arena logs and game files (lastwill replay, lastwill view
and the arena's own read_log go through it)."""

from __future__ import annotations

import json

import pytest
from viewer_util import EXAMPLE_LOG

from agents.arena import ArenaError, read_log
from agents.gamelog import GameLogError, read_game_file, scan_jsonl
from apps.replay import ReplayError, load_record
from apps.viewer.core import ViewError, read_records

ROWS = read_log(EXAMPLE_LOG)[1]


def _log(path, *lines) -> str:
    path.write_text("".join(json.dumps(x) if not isinstance(x, str) else x for x in lines))
    return str(path)


def test_scan_keeps_the_header_rows_and_lines_and_drops_a_torn_tail() -> None:
    data = b'{"type": "header"}\n\n{"game": 0}\n{"game": 1}\n{"game": 2'
    scan = scan_jsonl(data, "x.jsonl")
    assert scan.header == {"type": "header"}
    assert scan.rows == [{"game": 0}, {"game": 1}] and scan.lines == [3, 4]
    assert data[: scan.good_bytes].endswith(b'{"game": 1}\n')
    with pytest.raises(GameLogError, match=r"x.jsonl: line 2 is not a JSON object"):
        scan_jsonl(b'{"a": 1}\nnot json\n{"b": 2}\n', "x.jsonl")
    with pytest.raises(ArenaError, match="line 3: a second header"):  # the arena's own error
        scan_jsonl(b'{"type": "header"}\n{}\n{"type": "header"}\n', "x", error=ArenaError)


def test_a_bad_row_is_named_by_file_and_line(tmp_path) -> None:
    bad = dict(ROWS[1], deal_seed=True)
    path = _log(tmp_path / "bad.jsonl", {"type": "header"}, "\n", ROWS[0], "\n", bad, "\n")
    with pytest.raises(GameLogError, match=r"bad.jsonl: line 3: 'deal_seed' must be an integer"):
        read_game_file(path)
    # replay and the viewer read through it: the same words
    with pytest.raises(ReplayError, match=r"bad.jsonl: line 3: 'deal_seed'"):
        load_record(path, 0)
    with pytest.raises(ViewError, match=r"bad.jsonl: line 3: 'deal_seed'"):
        read_records(tmp_path / "bad.jsonl")


def test_game_files_logs_and_picking(tmp_path) -> None:
    gf = read_game_file(EXAMPLE_LOG)
    assert gf.kind == "arena log" and gf.header is not None and len(gf.rows) == 8
    assert gf.lines == list(range(2, 10))
    assert gf.pick(3)["game"] == 3
    with pytest.raises(GameLogError, match="holds 8 games .0-7.; choose one with --game N"):
        gf.pick()
    with pytest.raises(GameLogError, match="has no game 9; its games are 0-7"):
        gf.pick(9)
    one = tmp_path / "one.json"
    one.write_text(json.dumps(ROWS[2]))
    single = read_game_file(one)
    assert single.kind == "game file" and single.pick() == ROWS[2]
    with pytest.raises(GameLogError, match="single game file"):
        single.pick(5)
    err = dict(ROWS[0], error={"seat": 1, "player": "greedy", "message": "boom"})
    path = _log(tmp_path / "err.jsonl", {"type": "header"}, "\n", err, "\n")
    assert read_game_file(path).rows[0]["error"]["message"] == "boom"  # listed ...
    with pytest.raises(GameLogError, match=r"err.jsonl: line 2 \(game 0\) is an error row"):
        read_game_file(path).pick()  # ... but not replayed


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("", "holds no game rows"),
        ('{"type": "header"}\n{"type": "note"}\n', "holds no game rows"),
        ("[" * 100 + "]" * 100, "nested deeper than 64 levels"),
        (
            "\n".join([json.dumps(ROWS[0]), '{"x": ' + "[" * 99 + "]" * 99 + "}", ""]),
            "line 2 is nested",
        ),
    ],
)
def test_files_that_are_not_logs(tmp_path, text, needle) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text(text)
    with pytest.raises(GameLogError, match=needle):
        read_game_file(path)


def test_unreadable_files(tmp_path) -> None:
    with pytest.raises(GameLogError, match="does not exist|is a directory"):
        read_game_file(tmp_path / "missing.jsonl")
    with pytest.raises(GameLogError, match="does not exist|is a directory"):
        read_game_file(tmp_path)
    latin = tmp_path / "latin.json"
    latin.write_bytes(b'{"name": "\xe9"}')
    with pytest.raises(GameLogError, match="is not UTF-8 text"):
        read_game_file(latin)
