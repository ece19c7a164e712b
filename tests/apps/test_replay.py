"""Tests of apps.replay and `lastwill replay`: records, stepping, views, CLI errors."""

from __future__ import annotations

import io
import json
import re

import pytest
from typer.testing import CliRunner

from agents.arena import play_game, replay_row, run_tournament
from apps.cli import app
from apps.replay import (
    ReplayError,
    describe_step,
    final_state,
    iter_steps,
    load_record,
    page,
    player_names,
    render_seat,
    render_table,
    replay_text,
    round_starts,
    step_text,
)
from lastwill_env.engine import (
    CATALOGUE,
    GameConfig,
    decode,
    encode,
    player_view,
    replay,
)
from lastwill_env.engine.builders import set_hand, turn_state

runner = CliRunner()
NAMES = [c.name for c in CATALOGUE.cards]


def _has_card(text: str, card: int) -> bool:
    return re.search(rf"(?<!\w){re.escape(NAMES[card])}(?!\w)", text) is not None


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    """A 3-game arena log of 3-player bot games."""
    out = tmp_path_factory.mktemp("replay") / "log.jsonl"
    run_tournament(["greedy", "planner", "combiner"], GameConfig(num_players=3), 3, seed=4, out=out)
    return out


@pytest.fixture(scope="module")
def row(log):
    return load_record(log, 1)


# ---------------------------------------------------------------------------------------------
# Records and stepping


def test_load_record_picks_the_game(log):
    rec = load_record(log, 2)
    assert rec["game"] == 2 and rec["actions"]
    with pytest.raises(ReplayError, match="holds 3 games .*0-2.*--game N"):
        load_record(log)
    with pytest.raises(ReplayError, match="no game 7; its games are 0-2"):
        load_record(log, 7)
    with pytest.raises(ReplayError, match="does not exist"):
        load_record(log.parent / "missing.jsonl")


def test_single_game_file_and_error_row(tmp_path, row):
    one = tmp_path / "one.json"
    one.write_text(json.dumps(row))
    assert load_record(one)["actions"] == row["actions"]
    assert load_record(one, row["game"])["deal_seed"] == row["deal_seed"]
    with pytest.raises(ReplayError, match="single game file"):
        load_record(one, 5)
    bad = play_game(["greedy", "random"], GameConfig(num_players=2), 3)
    bad["error"] = {"seat": 1, "player": "random", "message": "agent crashed in act: boom"}
    path = tmp_path / "err.jsonl"
    path.write_text(json.dumps({"type": "header"}) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(ReplayError, match="error row: random at seat 1 failed"):
        load_record(path)
    junk = tmp_path / "junk.json"
    junk.write_text(json.dumps({"hello": 1}))
    with pytest.raises(ReplayError, match="not a game record"):
        load_record(junk)


def test_steps_reproduce_the_recorded_states(row):
    cfg = GameConfig.from_dict(row["config"])
    actions = row["actions"]
    steps = list(iter_steps(row))
    assert [s.action for s in steps] == actions
    for step in steps[:: max(1, len(steps) // 60)] + steps[-3:]:
        expected = replay(cfg, row["deal_seed"], actions[: step.index])
        assert step.state == expected
        assert step.seat == expected.cur
    assert final_state(row) == replay_row(row)
    assert final_state(row).results["winner"] == row["winner"]


def test_a_tampered_record_is_refused(row):
    bad = dict(row, actions=row["actions"][:5] + [encode("ball", 7)] + row["actions"][6:])
    with pytest.raises(ReplayError, match=r"decision 6 \(action index 5\): the recorded action"):
        final_state(bad)
    longer = dict(row, actions=row["actions"] + [0])
    with pytest.raises(ReplayError, match="after the end"):
        list(iter_steps(longer, copy=False))


def test_round_starts(row):
    starts = round_starts(row)
    assert starts[1] == 0 and sorted(starts) == list(range(1, row["rounds"] + 1))
    steps = list(iter_steps(row, copy=False))
    for r, i in starts.items():
        assert (
            replay(GameConfig.from_dict(row["config"]), row["deal_seed"], row["actions"][:i]).round
            == r
        )
    assert len(steps) == len(row["actions"])


# ---------------------------------------------------------------------------------------------
# Views never show another seat's hand


def test_constructed_seat_view_hides_other_hands():
    s = turn_state(3, seat=0, hand=["Farm_3", "Dinner_2"], seed=2)
    s.known = [[], [], []]  # nobody took these cards face up from the offer (docs/RULES.md §10)
    set_hand(s, 1, ["ManorHouse_2", "Soiree_1"])
    set_hand(s, 2, ["Mansion_3", "BoatTrip_4", "Tailor"])
    names = ["P0 a", "P1 b", "P2 c"]
    mine = render_seat(s, 0, names)
    assert "Farm_3" in mine and "Dinner_2" in mine
    for hidden in ("ManorHouse_2", "Soiree_1", "Mansion_3", "BoatTrip_4", "Tailor"):
        assert hidden not in mine
    seat2 = render_seat(s, 2, names)
    assert "Mansion_3" in seat2 and "Farm_3" not in seat2 and "Soiree_1" not in seat2
    table = render_table(s, names)
    for card in ("Farm_3", "ManorHouse_2", "Soiree_1", "Mansion_3", "Tailor"):
        assert card in table


def test_seat_view_shows_offer_cards_taken_into_other_hands():
    """docs/RULES.md §10: the offer board is public, so a card another seat took from it is shown
    in that seat's hand; the rest of that hand stays hidden."""
    s = turn_state(3, seat=0, hand=["Farm_3"], seed=2)
    s.known = [[], [], []]
    set_hand(s, 2, ["Mansion_3", "Tailor"], known=["Tailor"])
    mine = render_seat(s, 0, ["P0", "P1", "P2"])
    assert "known in hand: Tailor" in mine and "Mansion_3" not in mine


def test_seat_pages_never_show_hidden_cards(row):
    """Every page of the pager for seat 1: no card of another hand, unless the seat saw that
    card face up on the offer board before (taking it from there is public)."""
    seat = 1
    names = player_names(row)
    seen_on_offer: set[int] = set()
    checked = 0
    for step in iter_steps(row, copy=False):
        s = step.state
        seen_on_offer.update(c for c in s.offer if c >= 0)
        picture, decision = step_text(step, names, seat).split("\n--> ")
        kind, arg = decode(step.action)
        if step.seat != seat and kind == "keep":
            assert decision.endswith("keep a starting card (hidden)")
        for p in range(s.n):
            if p == seat:
                continue
            for c in s.hands[p]:
                if c not in seen_on_offer:
                    assert not _has_card(picture, c), (step.index, NAMES[c])
                    # the decision line names a card only when it is played in public
                    assert not _has_card(decision, c) or (p == step.seat and arg == c), NAMES[c]
                    checked += 1
    assert checked > 100


def test_compact_seat_listing_hides_the_others_starting_hands(row):
    seat = 0
    start = next(iter_steps(row)).state
    text = replay_text(row, seat=seat)
    keep_part = text.split("choose a plan")[0]
    assert "keep a starting card (hidden)" in keep_part
    own = start.hands[seat]
    assert any(_has_card(keep_part, c) for c in own)
    for p in range(start.n):
        if p != seat:
            for c in start.hands[p]:
                assert not _has_card(keep_part, c), NAMES[c]
    table = replay_text(row)
    assert all(_has_card(table.split("choose a plan")[0], c) for c in start.hands[1])


def test_describe_step_hides_only_other_seats_keeps():
    keep = encode("keep", CATALOGUE.by_name["Farm_3"])
    assert describe_step(keep, 1, viewer=0) == "keep a starting card (hidden)"
    assert describe_step(keep, 0, viewer=0) == "keep Farm_3"
    assert describe_step(keep, 1) == "keep Farm_3"
    play = encode("play", CATALOGUE.by_name["Farm_3"])
    assert describe_step(play, 1, viewer=0) == "play Farm_3"


# ---------------------------------------------------------------------------------------------
# Text output


def test_replay_text_lists_every_decision_and_the_results(row):
    text = replay_text(row)
    lines = text.splitlines()
    assert sum(1 for ln in lines if re.match(r"\s*\d+\s+R\d\s", ln)) == len(row["actions"])
    assert "Result after" in text and f"winner P{row['winner']}" in text
    assert "view: the whole table" in text
    seat_text = replay_text(row, seat=2)
    p2 = player_names(row)[2]
    assert f"view: {p2} only" in seat_text and f"your hand ({p2})" in seat_text


def test_round_jump(row):
    starts = round_starts(row)
    text = replay_text(row, from_round=3)
    assert f"(jumping to round 3: decision {starts[3] + 1})" in text
    assert "--- round 1 ---" not in text and "--- round 3 ---" in text
    with pytest.raises(ReplayError, match="round 12 is not in this game"):
        replay_text(row, from_round=12)
    with pytest.raises(ReplayError, match="seat 5 is not at this table"):
        replay_text(row, seat=5)


def test_pager_waits_for_enter_and_quits(row):
    out = io.StringIO()
    shown = page(row, seat=0, inp=io.StringIO("\n\nq\n"), out=out)
    assert shown == 3
    text = out.getvalue()
    assert "=== decision 1 of" in text and "=== decision 3 of" in text
    assert "=== decision 4 of" not in text and "Result after" not in text
    out = io.StringIO()
    shown = page(row, from_round=2, inp=io.StringIO("\nc\n"), out=out)
    assert shown == len(row["actions"]) - round_starts(row)[2]
    assert "=== end ===" in out.getvalue() and "Result after" in out.getvalue()
    out = io.StringIO()
    assert page(row, inp=io.StringIO(""), out=out) == 1  # end of input stops


def test_partial_record_says_it_is_unfinished(row):
    part = dict(row, actions=row["actions"][:40])
    text = replay_text(part, seat=0)
    assert "game not finished: 40 decisions recorded" in text
    view = player_view(final_state(part), 0)
    assert view.results is None


# ---------------------------------------------------------------------------------------------
# CLI


def test_cli_replay(log):
    res = runner.invoke(app, ["replay", str(log), "--game", "0", "--seat", "1"])
    assert res.exit_code == 0, res.output
    assert "view: P1 " in res.stdout and "Result after" in res.stdout
    res = runner.invoke(app, ["replay", str(log), "-g", "2", "--table", "--round", "2"])
    assert res.exit_code == 0, res.output
    assert "--- round 2 ---" in res.stdout and "--- round 1 ---" not in res.stdout
    res = runner.invoke(app, ["replay", str(log), "-g", "1", "--step"], input="\n\nq\n")
    assert res.exit_code == 0, res.output
    assert res.stdout.count("=== decision") == 3
    res = runner.invoke(app, ["replay", str(log), "-g", "1", "--interactive"], input="q\n")
    assert res.exit_code == 0 and res.stdout.count("=== decision") == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nofile.jsonl"], "does not exist"),
        (["{log}"], "choose one with --game N"),
        (["{log}", "--game", "9"], "no game 9"),
        (["{log}", "--game", "0", "--seat", "3"], "seat 3 is not at this table"),
        (["{log}", "--game", "0", "--seat", "-1"], "seat -1 is not at this table"),
        (["{log}", "--game", "0", "--seat", "1", "--table"], "choose one view"),
        (["{log}", "--game", "0", "--round", "9"], "round 9 is not in this game"),
        (["{err}"], "error row"),
    ],
)
def test_cli_replay_errors(tmp_path, log, args, message):
    err = tmp_path / "err.jsonl"
    bad = play_game(["greedy", "random"], GameConfig(num_players=2), 3)
    bad["error"] = {"seat": 0, "player": "greedy", "message": "boom"}
    err.write_text(json.dumps(bad) + "\n")
    argv = [a.format(log=log, err=err) for a in args]
    if argv[0] == "nofile.jsonl":
        argv[0] = str(tmp_path / "nofile.jsonl")
    res = runner.invoke(app, ["replay", *argv])
    assert res.exit_code == 2, res.output
    assert message in res.stderr and "Traceback" not in res.output
