"""`ValueFitConfig` (training.valuefit.config), the settings of `lastwill value-fit`: each bad
value is refused with the message the command has always printed, of several bad values the one
the command always named first, and the settings of playing are filled and checked when the fit
reads them. No games are played: a config is only made and read."""

from __future__ import annotations

from pathlib import Path

import pytest

from gamecore import game_names, load_game
from training.valuefit.config import ValueFitConfig, ValueFitError

LASTWILL = load_game("lastwill")


@pytest.fixture
def out(tmp_path: Path) -> Path:
    return tmp_path / "fit.npz"


def _refused(out: Path, **settings) -> str:
    with pytest.raises(ValueFitError) as e:
        ValueFitConfig(out=out, **settings)
    return str(e.value)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"epochs": 0}, "--epochs 0: give a value at least 1 and at most 1000"),
        ({"epochs": 1001}, "--epochs 1001: give a value at least 1 and at most 1000"),
        ({"learning_rate": 0.0}, "--learning-rate 0.0: give a value above 0.0 and at most 1.0"),
        ({"learning_rate": 2.0}, "--learning-rate 2.0: give a value above 0.0 and at most 1.0"),
        ({"batch_size": 0}, "--batch-size 0: give a value at least 1 and at most 10000000"),
        ({"holdout": 1.0}, "--holdout 1.0: give a value above 0.0 and below 1"),
        ({"holdout": 0.0}, "--holdout 0.0: give a value above 0.0 and below 1"),
        ({"seed": -1}, "--seed -1: give a value at least 0 and at most 9223372036854775807"),
        ({"workers": 0}, "--workers 0: give a value at least 1 and at most 1024"),
        ({"workers": 1025}, "--workers 1025: give a value at least 1 and at most 1024"),
        # the installed games and any a test registered in this process, read when it runs
        (
            {"game": "nosuch"},
            lambda: f"game='nosuch' is not allowed; choose one of {', '.join(game_names())}",
        ),
    ],
)
def test_each_bad_setting_of_the_fit_is_refused_with_the_commands_message(out, settings, message):
    assert _refused(out, **settings) == (message() if callable(message) else message)


def test_the_output_path_is_a_new_npz(tmp_path: Path):
    assert _refused(tmp_path / "x.txt") == f"--out {tmp_path / 'x.txt'}: give a path ending in .npz"
    taken = tmp_path / "taken.npz"
    taken.write_bytes(b"keep")
    assert _refused(taken) == f"--out {taken} exists; choose a new path"
    assert taken.read_bytes() == b"keep"
    assert ValueFitConfig(out=str(tmp_path / "a.npz")).out == tmp_path / "a.npz"


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"games": 0}, "--games 0: give a value at least 1 and at most 10000000"),
        ({"sample_rate": 0.0}, "--sample-rate 0.0: give a value above 0.0 and at most 1.0"),
        ({"sample_rate": 5.0}, "--sample-rate 5.0: give a value above 0.0 and at most 1.0"),
        ({"explore": 2.0}, "--explore 2.0: give a value at least 0.0 and at most 1.0"),
        ({"explore": -1.0}, "--explore -1.0: give a value at least 0.0 and at most 1.0"),
        ({"players": "9"}, "--players '9': give distinct player counts, each 2, 3, 4 or 5"),
        ({"players": "2,2"}, "--players '2,2': give distinct player counts, each 2, 3, 4 or 5"),
        ({"players": "2, x"}, "--players '2, x': give distinct player counts, each 2, 3, 4 or 5"),
        ({"players": ""}, "--players '': give distinct player counts, each 2, 3, 4 or 5"),
    ],
)
def test_each_bad_setting_of_playing_is_refused_when_the_games_are_played(out, settings, message):
    cfg = ValueFitConfig(out=out, **settings)  # made: the fit checks the policy first
    with pytest.raises(ValueFitError) as e:
        cfg.playing(LASTWILL)
    assert str(e.value) == message


def test_where_the_played_games_are_saved_is_a_new_npz(tmp_path: Path, out: Path):
    with pytest.raises(ValueFitError, match=r": give a path ending in \.npz$"):
        ValueFitConfig(out=out, save_games=tmp_path / "g.txt").playing(LASTWILL)
    taken = tmp_path / "taken.npz"
    taken.write_bytes(b"keep")
    with pytest.raises(ValueFitError) as e:
        ValueFitConfig(out=out, save_games=taken).playing(LASTWILL)
    assert str(e.value) == f"--save-games {taken} exists; choose a new path"


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        ({"games": 5}, "--games"),
        ({"players": "3", "save_games": Path("b.npz")}, "--players"),
        ({"save_games": Path("b.npz")}, "--save-games"),
        ({"games": 0, "explore": 0.5}, "--games, --explore"),
    ],
)
def test_saved_games_refuse_the_settings_of_playing(out, settings, named):
    cfg = ValueFitConfig(out=out, games_from="a.npz", **settings)
    with pytest.raises(ValueFitError) as e:
        cfg.saved()
    assert str(e.value) == (
        f"--games-from learns from saved games; {named} belong(s) to playing new ones: give "
        f"one or the other"
    )
    assert ValueFitConfig(out=out, games_from="a.npz,b.npz").saved() == [
        Path("a.npz"),
        Path("b.npz"),
    ]


@pytest.mark.parametrize(
    ("settings", "first"),
    [
        ({"game": "nosuch", "epochs": 0, "out": "x.txt"}, "game='nosuch'"),
        ({"epochs": 1001, "learning_rate": 2.0, "batch_size": 0}, "--epochs 1001"),
        ({"seed": -1, "workers": 0}, "--seed -1"),
        ({"workers": 0, "out": "x.txt"}, "--workers 0"),
    ],
)
def test_of_several_bad_values_the_command_names_the_same_first(out, settings, first):
    settings = {"out": out, **settings}
    with pytest.raises(ValueFitError) as e:
        ValueFitConfig(**settings)
    assert str(e.value).startswith(first)


def test_several_bad_settings_of_playing_name_the_games_first(out):
    cfg = ValueFitConfig(out=out, games=0, sample_rate=5.0, explore=-1.0, players="9")
    with pytest.raises(ValueFitError, match=r"^--games 0:"):
        cfg.playing(LASTWILL)


def test_the_settings_of_playing_left_out_are_the_defaults(out):
    play, counts = ValueFitConfig(out=out).playing(LASTWILL)
    assert play == {"players": "2,3,4,5", "games": 2000, "sample_rate": 0.1, "explore": 0.1}
    assert counts == [2, 3, 4, 5]
    play, counts = ValueFitConfig(out=out, players="5,3", games=4).playing(load_game("money"))
    assert play["players"] == "5,3" and play["games"] == 4 and counts == [5, 3]


def test_the_fits_settings_in_the_order_of_its_report(out):
    cfg = ValueFitConfig(out=out, epochs=2, seed=7)
    assert cfg.fit_settings() == {
        "epochs": 2,
        "learning_rate": 3e-4,
        "batch_size": 1024,
        "holdout": 0.1,
        "seed": 7,
    }
    assert list(cfg.fit_settings()) == ["epochs", "learning_rate", "batch_size", "holdout", "seed"]
