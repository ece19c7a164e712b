"""Tests of apps.tableplay (`lastwill play --game money`) and Money!'s text pictures
(money_env.text): scripted input, the record, hidden bids, what changed."""

from __future__ import annotations

import io
import json
import random

import pytest
from typer.testing import CliRunner

from agents.gamelog import check_record, read_game_file
from apps.cli import app
from apps.tableplay import TablePlayError, new_table, parse_choice, run
from gamecore import load_game
from gamecore.agent import BaseAgent
from money_env.engine import (
    ADD,
    COMMIT,
    KEEP,
    TAKE_BID,
    TAKE_LEFT,
    TAKE_RIGHT,
    apply_action,
    legal_actions,
    new_game,
    player_view,
)
from money_env.engine.cards import CARDS, CURRENCY, FIRST_COIN, KIND
from money_env.text import change_text, move_text, view_text

runner = CliRunner()
MONEY = load_game("money")
REVEAL = "the bids are revealed"


def _ones(k: int = 4000) -> str:
    return "1\n" * k


def _table(seed: int = 3, seat: int = 1, opponents=("value", "collector")):
    return new_table(MONEY, list(opponents), human_seat=seat, seed=seed)


def _replayed(rec: dict):
    return MONEY.replay(MONEY.config_from_dict(rec["config"]), rec["deal_seed"], rec["actions"])


def test_parse_choice():
    assert parse_choice("3\n", 5) == ("choose", 2)
    assert parse_choice("q", 5) == ("quit", None) and parse_choice("?", 5) == ("help", None)
    assert parse_choice("h\n", 5) == ("help", None)
    for bad, msg in [("", "empty input"), ("x", "'x' is not a move"), ("0", "0 is out of range")]:
        kind, text = parse_choice(bad, 5)
        assert kind == "error" and msg in text, (bad, text)


def test_a_full_game_at_three_players_writes_a_record_that_replays(tmp_path):
    tg = _table()
    out = io.StringIO()
    path = tmp_path / "rec.json"
    outcome = run(tg, io.StringIO(_ones()), out, out_path=path)
    text = out.getvalue()
    assert outcome.finished and not outcome.quit and outcome.record_path == path
    assert "Money!, 3 players, seed 3; you are P1 human" in text
    assert "Your moves (" in text and "Since your last decision:" in text
    assert REVEAL in text and "exchange order:" in text and "Results (rounds " in text
    assert "1st place" in text and "game record (finished)" in text
    rec = json.loads(path.read_text())
    assert rec["type"] == "play" and rec["game"] == "money" and rec["finished"]
    assert rec["seating"] == ["value", "human", "collector"] and rec["human_seat"] == 1
    state = _replayed(rec)
    assert state == tg.state and MONEY.is_over(state)
    assert rec["ranks"] == MONEY.ranks(state) and rec["scores"] == MONEY.row_fields(state)["scores"]
    assert rec["decisions"] == len(rec["actions"]) == len(state.history)
    gf = read_game_file(path)
    assert gf.game_name == "money" and gf.kind == "game file"
    assert gf.pick() == rec and check_record(rec, "rec", "money") == rec


def test_bad_input_is_refused_and_asked_again(tmp_path):
    tg = _table(seed=4, seat=0)
    first = move_text(MONEY.player_view(tg.state, 0), MONEY.legal_actions(tg.state)[0])
    out = io.StringIO()
    script = "abc\n0\n99\n\n-1\nh\n?\n" + _ones()
    outcome = run(tg, io.StringIO(script), out, out_path=tmp_path / "r.json")
    text = out.getvalue()
    assert outcome.finished
    assert "'abc' is not a move" in text and "empty input" in text
    assert "0 is out of range: choose a number from 1 to" in text
    assert "99 is out of range" in text and "-1 is out of range" in text
    assert text.count("Money! rules: docs/games/MONEY.md") == 2 and "Now: bids:" in text
    head = text.split("  you: ")[0]
    assert head.count("choose 1-") == 8  # seven refused or answered lines, then the choice
    assert f"  you: {first}\n" in text  # the first valid "1" played the first move


@pytest.mark.parametrize("script", ["1\n1\nq\n", "1\n1\n"], ids=["quit", "end-of-input"])
def test_quit_and_end_of_input_write_an_unfinished_record(tmp_path, script):
    tg = _table(seed=6, seat=2)
    out = io.StringIO()
    path = tmp_path / "u.json"
    outcome = run(tg, io.StringIO(script), out, out_path=path)
    assert outcome.quit and not outcome.finished
    assert "game record (unfinished)" in out.getvalue()
    rec = json.loads(path.read_text())
    assert rec["game"] == "money" and rec["finished"] is False
    assert rec["ranks"] is None and rec["scores"] is None and rec["rounds"] == 1
    assert len(rec["actions"]) >= 2 and _replayed(rec) == tg.state
    assert read_game_file(path).game_name == "money"


class _Scripted(BaseAgent):
    """Bids the kinds of ``plan`` in round 1, then commits; otherwise the first legal move,
    committing as soon as it may, and keeps its bid in the exchange."""

    def __init__(self, plan: list[int]) -> None:
        super().__init__(seed=0)
        self.plan = list(plan)

    def act(self, view, legal):
        if view.round == 1 and view.phase == 0:
            have = [KIND[c] for c in view.bid]
            todo = [k for k in self.plan if self.plan.count(k) > have.count(k)]
            return ADD + min(todo) if todo else COMMIT
        if COMMIT in legal:
            return COMMIT
        return KEEP if KEEP in legal else legal[0]


def _hidden_currency(seed: int) -> tuple[int, list[int]] | None:
    """A currency that seat 0 holds and seat 1 sees nowhere (its hand, the groups): its index
    and seat 0's kinds of it."""
    s = new_game(3, seed)
    seen = {CURRENCY[c] for c in (*s.hands[1], *s.right, *s.left) if c < FIRST_COIN}
    for cur in range(len(CARDS.currencies)):
        kinds = [KIND[c] for c in s.hands[0] if c < FIRST_COIN and CURRENCY[c] == cur]
        if kinds and cur not in seen:
            return cur, kinds
    return None


def _play_with(seed: int, plan: list[int]) -> str:
    tg = _table(seed=seed, seat=1, opponents=("random", "value"))
    tg.agents[0] = _Scripted(plan)
    out = io.StringIO()
    run(tg, io.StringIO(_ones()), out)
    return out.getvalue()


def test_no_hidden_bid_of_another_seat_is_shown_before_the_reveal():
    seed = next(s for s in range(200) if _hidden_currency(s) is not None)
    cur, kinds = _hidden_currency(seed)
    name = CARDS.currencies[cur]
    text = _play_with(seed, kinds)  # seat 0 bids every card of that currency, before seat 1
    before, _, after = text.partition(REVEAL)
    assert after, "the bids were never revealed"
    assert "choose 1-" in before  # the person decided while seat 0's bid lay committed
    assert name not in before
    shown = next(line for line in after.splitlines() if line.strip().startswith("P0: "))
    assert shown.strip().startswith(f"P0: {name} ")  # the reveal shows it
    # the text before the reveal is the same whatever seat 0 hid (not even its size leaks)
    rest = [KIND[c] for c in new_game(3, seed).hands[0] if c < FIRST_COIN and CURRENCY[c] != cur]
    assert rest and len(rest) != len(kinds)
    other = _play_with(seed, rest)
    assert other.partition(REVEAL)[0] == before
    assert other != text


def test_change_text_says_each_reveal_exchange_and_new_round():
    rng = random.Random(2)
    s = new_game(4, 11)
    before = player_view(s, 0)
    words = {TAKE_RIGHT: "took the right group", TAKE_LEFT: "took the left group", KEEP: "kept"}
    rounds = exchanges = 0
    while s.phase != 2:
        legal = legal_actions(s)
        a = COMMIT if COMMIT in legal and rng.random() < 0.5 else rng.choice(legal)
        phase, rnd = s.phase, s.round
        apply_action(s, a)
        after = player_view(s, 0)
        lines = change_text(before, after).splitlines()
        if phase == 0 and s.phase == 1:
            assert lines[0] == f"round {rnd}: {REVEAL}" and lines[-1].startswith("exchange order")
        if phase == 1:
            exchanges += 1
            want = words.get(a, "'s bid")
            assert want in lines[0] and "into" not in lines[0], (a, lines)
        if s.round != rnd:
            rounds += 1
            assert any(x.startswith(f"round {s.round} began") for x in lines), lines
        if phase == 0 and s.phase == 0 and s.round == rnd:
            assert lines == []  # a bid being built says nothing
        before = after
    assert "the game is over" in lines[-1] and rounds and exchanges


def test_view_and_move_text_show_sums_scores_and_context():
    s = new_game(3, 1)
    view = player_view(s, 0)
    text = view_text(view)
    assert text.startswith("Money! round 1, bids (you bid first): your turn to bid")
    assert "Your hand (P0): 7 cards" in text and "scores" in text and "Pile: 25 cards" in text
    assert "P1: 7 cards in hand; known: bluff" in text
    legal = legal_actions(s)
    assert move_text(view, legal[-1]).startswith("add your bluff")
    apply_action(s, legal[0])
    view = player_view(s, 0)
    assert move_text(view, COMMIT).startswith("commit the bid: ")
    assert "*" in view_text(view) and "Your bid, hidden from the others" in view_text(view)
    while s.cur != 0 or s.phase != 1:
        apply_action(s, COMMIT if COMMIT in legal_actions(s) else legal_actions(s)[0])
    view = player_view(s, 0)
    assert "Bids revealed this round:" in view_text(view)
    texts = [move_text(view, a) for a in legal_actions(s)]
    assert texts[0].startswith("take the right group") and texts[-1].startswith("keep your bid")
    assert all("your hand would score" in t for t in texts)
    bids = [move_text(view, a) for a in legal_actions(s) if TAKE_BID <= a < KEEP]
    assert all(t.startswith("take P") and "acts next" in t for t in bids)


def test_setup_errors():
    with pytest.raises(TablePlayError, match="3, 4 or 5 players, not 2"):
        new_table(MONEY, ["value"])
    with pytest.raises(TablePlayError, match="--seat 3 is not at this table"):
        new_table(MONEY, ["value", "value"], human_seat=3)
    with pytest.raises(TablePlayError, match="unknown player 'greedy'"):
        new_table(MONEY, ["greedy", "value"])


def test_cli_play_money_and_an_unknown_game(tmp_path):
    rec = tmp_path / "cli.json"
    args = ["play", "--game", "money", "-p", "value,bluffer", "--seed", "9", "--out", str(rec)]
    res = runner.invoke(app, args, input="x\n" + _ones())
    assert res.exit_code == 0, res.output
    assert "'x' is not a move" in res.output and "Results (rounds" in res.output
    assert json.loads(rec.read_text())["game"] == "money"
    assert read_game_file(rec).game_name == "money"
    res = runner.invoke(app, ["play", "--game", "nosuchgame", "--out", str(tmp_path / "n.json")])
    assert res.exit_code == 2
    assert "'nosuchgame' is not an installed game" in res.output and "money" in res.output
    res = runner.invoke(app, ["play", "--game", "money", "--load", str(rec)])
    assert res.exit_code == 2 and "Last Will games only" in res.output
