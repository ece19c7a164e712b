"""agents.readfile: the one ladder of file-reading errors; each case's message names the file
and what is wrong, in the caller's exception class, with the caller's hints."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from agents.readfile import ReadError, read_data, read_json, read_text


class MyError(ValueError):
    pass


def _file(tmp_path, content: bytes, name: str = "state.json"):
    p = tmp_path / name
    p.write_bytes(content)
    return p


def test_a_good_file_is_read(tmp_path):
    p = _file(tmp_path, '{"a": [1, 2], "é": true}'.encode())
    assert read_json(p) == {"a": [1, 2], "é": True}
    assert read_text(p) == '{"a": [1, 2], "é": true}'
    toml = _file(tmp_path, b"lr = 0.1\n", "c.toml")
    assert read_data(toml, parse=tomllib.loads, form="TOML") == {"lr": 0.1}
    # an empty file that parses (TOML: all defaults) is not an error
    assert read_data(_file(tmp_path, b"", "e.toml"), parse=tomllib.loads, form="TOML") == {}


HINTS = {"missing_hint": "start a new run", "damaged_hint": "the file is damaged"}


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: d / "nope.json", r"^run state .*nope\.json does not exist; start a new run$"),
        (lambda d: d, r"^run state .* is a directory, not a file; start a new run$"),
        (
            lambda d: _file(d, b'{"a": "\xff"}'),
            r"^run state .*state\.json is not UTF-8 text \(byte 0xff at position 7\); "
            r"the file is damaged$",
        ),
        (lambda d: _file(d, b""), r"^run state .*state\.json is empty; the file is damaged$"),
        (lambda d: _file(d, b" \n"), r"^run state .*state\.json is empty; the file is damaged$"),
        (
            lambda d: _file(d, b'{"a": 1'),
            r"^run state .*state\.json is not valid JSON \(.*\); the file is damaged$",
        ),
        (
            lambda d: _file(d, b"[" * 100_000),
            r"^run state .*state\.json is nested too deeply to read; the file is damaged$",
        ),
    ],
    ids=["missing", "directory", "not-utf8", "empty", "blank", "bad-json", "too-deep"],
)
def test_each_case_has_its_message(tmp_path, make, message):
    path = make(tmp_path)
    with pytest.raises(MyError, match=message):
        read_json(path, "run state", error=MyError, **HINTS)
    with pytest.raises(ReadError, match=message.replace("run state ", "")):  # no `what`
        read_json(path, **HINTS)


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs file permissions")
def test_an_unreadable_file(tmp_path):
    p = _file(tmp_path, b"{}")
    p.chmod(0)
    try:
        with pytest.raises(ReadError, match=r"^cannot read config file .*state\.json: Permission"):
            read_json(p, "config file", **HINTS)
    finally:
        p.chmod(0o600)


@pytest.mark.parametrize(
    ("exc", "reason"),
    [
        (PermissionError(errno.EACCES, "Permission denied"), "Permission denied"),
        (OSError(errno.EIO, "Input/output error"), "Input/output error"),
    ],
)
def test_a_read_that_fails(tmp_path, monkeypatch, exc, reason):
    p = _file(tmp_path, b"{}")

    def refuse(self, *args, **kwargs):
        raise exc

    monkeypatch.setattr(Path, "read_text", refuse)
    with pytest.raises(MyError, match=rf"^cannot read checkpoint sidecar .*state\.json: {reason}$"):
        read_json(p, "checkpoint sidecar", error=MyError, **HINTS)


def test_bad_toml_names_the_form(tmp_path):
    p = _file(tmp_path, b"lr = = 1\n", "c.toml")
    with pytest.raises(ReadError, match=r"^config file .*c\.toml is not valid TOML \(.+\)$"):
        read_data(p, "config file", parse=tomllib.loads, form="TOML")


def test_hints_are_optional(tmp_path):
    with pytest.raises(ReadError, match=r"nope does not exist$"):
        read_text(tmp_path / "nope")
    with pytest.raises(ReadError, match=r"is not valid JSON \(.*\)$"):
        read_json(_file(tmp_path, b"x"))


def test_the_callers_report_through_the_ladder(tmp_path):
    from agents.policy import CheckpointError, read_sidecar
    from apps.play import PlayError, load_game

    with pytest.raises(PlayError, match=r"is a directory, not a file$"):
        load_game(tmp_path)
    with pytest.raises(PlayError, match=r"is empty; it is not a saved `lastwill play` game$"):
        load_game(_file(tmp_path, b"", "saved.json"))
    _file(tmp_path, b"\x80{}", "ck.json")
    with pytest.raises(
        CheckpointError,
        match=r"^checkpoint sidecar .*ck\.json is not UTF-8 text .*; the sidecar is damaged$",
    ):
        read_sidecar(tmp_path / "ck.npz")
    with pytest.raises(CheckpointError, match=r"has no sidecar nope\.json"):
        read_sidecar(tmp_path / "nope.npz")
