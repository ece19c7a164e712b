"""Tests of apps.play and `lastwill play`: scripted input, save/load, the final record."""

from __future__ import annotations

import io
import json
import re

import pytest
from typer.testing import CliRunner

from agents.arena import replay_row
from apps.cli import app
from apps.play import (
    HUMAN,
    PlayError,
    load_game,
    new_play,
    parse_choice,
    run,
    save_game,
)
from apps.replay import final_state, load_record, replay_text
from lastwill_env.engine import CATALOGUE, GameConfig, replay

runner = CliRunner()
NAMES = [c.name for c in CATALOGUE.cards]
OPPONENTS = ["greedy:eps=0.3", "planner"]  # eps: the bots' generators matter on resume


def _ones(k: int = 3000) -> str:
    return "1\n" * k


def _game(seed: int = 5, seat: int = 1):
    return new_play(OPPONENTS, human_seat=seat, num_players=3, seed=seed)


def test_parse_choice():
    assert parse_choice("3\n", 5) == ("choose", 2)
    assert parse_choice(" 1 ", 1) == ("choose", 0)
    for bad, msg in [
        ("", "empty input"),
        ("   \n", "empty input"),
        ("abc", "'abc' is not a choice"),
        ("0", "0 is out of range"),
        ("6", "6 is out of range"),
        ("-2", "-2 is out of range"),
        ("save", "save needs a file name"),
    ]:
        kind, text = parse_choice(bad, 5)
        assert kind == "error" and msg in text, (bad, text)
    assert parse_choice("save a b.json", 5) == ("save", "a b.json")
    assert parse_choice("quit", 5) == ("quit", None)
    assert parse_choice("help", 5)[0] == "help" and parse_choice("show", 5)[0] == "show"


def test_scripted_game_with_bad_input(tmp_path):
    game = _game()
    first_hand = sorted(game.state.hands[1])
    others = [c for p in (0, 2) for c in game.state.hands[p]]
    script = "abc\n0\n99\n\n-1\n2\n" + _ones()
    out = io.StringIO()
    outcome = run(game, io.StringIO(script), out, out_path=tmp_path / "rec.json")
    text = out.getvalue()
    assert outcome.finished and not outcome.quit
    assert "'abc' is not a choice" in text
    assert "0 is out of range: choose a number from 1 to" in text
    assert "99 is out of range" in text and "-1 is out of range" in text
    assert "empty input" in text
    # the first valid choice (2) kept the second card of the hand as listed
    assert f"you (P1 human): keep {NAMES[first_hand[1]]}" in text
    assert text.count("your hand (P1 human)") >= 5  # the view is drawn at each decision
    # nothing of the other starting hands before the first decision
    before = text.split("choose 1-")[0]
    assert not any(re.search(rf"(?<!\w){NAMES[c]}(?!\w)", before) for c in others)
    assert "keep a starting card (hidden)" in text
    assert "Result after" in text and "game record:" in text

    rec = json.loads((tmp_path / "rec.json").read_text())
    assert rec["type"] == "play" and rec["finished"] and rec["human_seat"] == 1
    assert rec["seating"] == [OPPONENTS[0], HUMAN, OPPONENTS[1]]
    assert rec["actions"] == game.state.history and rec["decisions"] == len(rec["actions"])
    assert rec["ranks"] == game.state.results["ranks"]
    assert replay_row(rec) == game.state
    assert final_state(load_record(tmp_path / "rec.json")) == game.state
    assert replay(GameConfig.from_dict(rec["config"]), 5, rec["actions"]) == game.state


def test_save_and_load_mid_game_continue_like_an_unbroken_game(tmp_path):
    # an unbroken game: always the first choice
    whole = _game(seed=11)
    assert run(whole, io.StringIO(_ones()), io.StringIO()).finished

    # the same game, saved after 7 of the human's decisions, quit, loaded, finished
    save = tmp_path / "sub" / "save.json"
    game = _game(seed=11)
    out = io.StringIO()
    script = _ones(7) + f"save {save}\n" + "quit\n"
    outcome = run(game, io.StringIO(script), out)
    assert not outcome.finished and outcome.quit
    assert f"saved to {save}" in out.getvalue()
    saved = json.loads(save.read_text())
    assert saved["type"] == "play" and not saved["finished"] and saved["ranks"] is None
    mid = list(game.state.history)
    assert saved["actions"] == mid

    loaded = load_game(save)
    assert loaded.state == game.state and loaded.human_seat == 1
    assert loaded.seating == game.seating and loaded.deal_seed == 11
    out = io.StringIO()
    outcome = run(loaded, io.StringIO(_ones()), out, out_path=tmp_path / "final.json")
    assert outcome.finished and f"(resumed after {len(mid)} decisions)" in out.getvalue()
    assert loaded.state == whole.state  # the bots went on exactly as without the break
    rec = load_record(tmp_path / "final.json")
    assert rec["actions"][: len(mid)] == mid
    assert replay_row(rec) == whole.state
    assert "Result after" in replay_text(rec, seat=1)


def test_end_of_input_and_quit_do_not_write_a_record(tmp_path):
    game = _game()
    out = io.StringIO()
    outcome = run(game, io.StringIO("1\n"), out, out_path=tmp_path / "r.json")
    assert not outcome.finished and "input ended" in out.getvalue()
    assert not (tmp_path / "r.json").exists()
    assert outcome.record["actions"] == game.state.history


def test_setup_errors(tmp_path):
    with pytest.raises(PlayError, match="lists 3 specs but a 3-player game has 2"):
        new_play(["greedy", "planner", "random"], num_players=3)
    with pytest.raises(PlayError, match="--seat 4 is not at this table"):
        new_play(["greedy", "planner"], human_seat=4)
    with pytest.raises(PlayError, match="unknown player 'nobot'"):
        new_play(["nobot"], num_players=2)
    with pytest.raises(PlayError, match="2, 3, 4 or 5"):
        new_play(["greedy"], num_players=6)
    g = new_play(["greedy"], num_players=4, seed=1)  # one spec fills every seat
    assert g.seating == [HUMAN, "greedy", "greedy", "greedy"]
    assert new_play(["random"], seed=2).config.num_players == 2


def test_load_errors(tmp_path):
    with pytest.raises(PlayError, match="none.json does not exist"):
        load_game(tmp_path / "none.json")
    p = tmp_path / "x.json"
    p.write_text("not json")
    with pytest.raises(PlayError, match=r"x.json is not valid JSON \(.*\); it is not a saved"):
        load_game(p)
    p.write_text(json.dumps({"game": 0, "actions": []}))
    with pytest.raises(PlayError, match="not a saved `lastwill play` game"):
        load_game(p)
    game = _game(seed=3)
    run(game, io.StringIO(_ones()), io.StringIO())
    done = save_game(game, tmp_path / "done.json")
    with pytest.raises(PlayError, match="finished game; watch it with: lastwill replay"):
        load_game(done)


# ---------------------------------------------------------------------------------------------
# CLI


def test_cli_play_then_replay(tmp_path):
    rec = tmp_path / "game.json"
    args = ["play", "--seat", "0", "--opponents", "greedy,planner,combiner", "--seed", "8"]
    res = runner.invoke(app, [*args, "--out", str(rec)], input="x\n\n9999\n" + _ones())
    assert res.exit_code == 0, res.output
    assert "'x' is not a choice" in res.stdout and "empty input" in res.stdout
    assert "9999 is out of range" in res.stdout and "Result after" in res.stdout
    record = json.loads(rec.read_text())
    assert record["num_players"] == 4 and record["seating"][0] == HUMAN
    res = runner.invoke(app, ["replay", str(rec), "--seat", "0"])
    assert res.exit_code == 0, res.output
    assert "view: P0 human only" in res.stdout and "Result after" in res.stdout


def test_cli_play_save_load(tmp_path):
    save = tmp_path / "s.json"
    args = ["play", "--opponents", "greedy", "-n", "2", "--seed", "4", "--seat", "1"]
    res = runner.invoke(app, args, input=_ones(3) + f"save {save}\nquit\n")
    assert res.exit_code == 0, res.output
    assert save.exists() and "quit: the game is not finished" in res.stdout
    final = tmp_path / "f.json"
    res = runner.invoke(app, ["play", "--load", str(save), "--out", str(final)], input=_ones())
    assert res.exit_code == 0, res.output
    assert "resumed after" in res.stdout and final.exists()
    res = runner.invoke(app, ["replay", str(save), "--table"])  # a save replays too
    assert res.exit_code == 0 and "game not finished" in res.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--opponents", "greedy,planner,random", "-n", "3"], "lists 3 specs"),
        (["--opponents", "nobot"], "unknown player 'nobot'"),
        (["--seat", "5", "--opponents", "greedy"], "--seat 5 is not at this table"),
        (["--load", "{tmp}/missing.json"], "missing.json does not exist"),
        (["--starting-money", "lots", "--opponents", "greedy"], "lots"),
    ],
)
def test_cli_play_errors(tmp_path, args, message):
    argv = [a.format(tmp=tmp_path) for a in args]
    res = runner.invoke(app, ["play", *argv, "--out", str(tmp_path / "o.json")], input="quit\n")
    assert res.exit_code == 2, res.output
    assert message in res.stderr and "Traceback" not in res.output


# ---------------------------------------------------------------------------------------------
# The prompt: card text, `card NAME`, pass last, forced moves


def test_parse_card_command():
    assert parse_choice("card Farm_3", 4) == ("card", "Farm_3")
    assert parse_choice("CARD  farm 3 ", 4) == ("card", "farm 3")
    kind, text = parse_choice("card", 4)
    assert kind == "error" and "card NAME" in text


def test_choices_show_card_text_and_pass_last():
    from apps.play import choice_label, choices_text, ordered_choices
    from lastwill_env.engine import PASS, encode

    legal = [PASS, encode("play", NAMES.index("Farm_3")), encode("play", NAMES.index("Tailor"))]
    shown = ordered_choices(legal)
    assert shown[-1] == PASS and shown[:2] == legal[1:]
    text = choices_text(shown)
    lines = text.splitlines()
    assert lines[0].strip().startswith("1) play Farm_3  [farm, buy £8 + farm modifier")
    assert lines[-1].strip() == "3) pass"
    assert "£3 more on theatre events" in choice_label(legal[2])


def test_run_offers_pass_last_notes_forced_moves_and_answers_card(tmp_path):
    game = _game(seed=6, seat=0)
    out = io.StringIO()
    script = "card Tailor\ncard nosuch\n" + _ones()
    outcome = run(game, io.StringIO(script), out)
    text = out.getvalue()
    assert outcome.finished
    assert "Tailor: helper, play 1 action; privilege: £3 more on theatre events" in text
    assert "no card named 'nosuch'" in text
    assert "your cards:" in text and "[" in text
    assert "(the only choice)" in text  # forced moves are applied with a note
    # no prompt for a single choice, and pass is always the last numbered choice
    blocks = text.split("Your choices (")[1:]
    assert blocks and not any(b.startswith("1)") for b in blocks)
    for b in blocks:
        menu = b.split("choose 1-")[0]
        names = re.findall(r"^\s+\d+\) (.*)$", menu, re.M)
        assert names
        if "pass" in names:
            assert names[-1] == "pass", names
    # the human never chose pass (always 1 = the first non-pass choice) unless forced
    human = [ln for ln in text.splitlines() if ln.startswith("  you (P0 human): pass")]
    assert all(ln.endswith("(the only choice)") for ln in human)


# ---------------------------------------------------------------------------------------------
# What changed since the last decision; the whole table on `show`


def test_the_table_is_drawn_once_then_only_what_changed(tmp_path):
    game = _game(seed=5, seat=1)
    out = io.StringIO()
    assert run(game, io.StringIO(_ones()), out).finished
    text = out.getvalue()
    # the whole table (deck sizes, every card's text) at the first decision only
    first, rest = text.split("choose 1-", 1)
    assert "decks: events" in first and "your cards:" in first
    assert "decks: events" not in rest.split("game over")[0]
    assert "your cards:" not in rest
    # later decisions: the other seats' moves, money changes and new cards with their text
    assert re.search(r"^  P[02] (greedy|planner)\S*: ", rest, re.M)
    assert re.search(r"^  money: .*£\d+ -> £-?\d+", rest, re.M)
    new = rest.split("new in your hand:\n", 1)[1].splitlines()[0]
    assert re.match(r"^    \w+: (event|helper|expense|farm|companion|joker|town|manor|man)", new)
    assert text.count("Your choices (") > 20


def test_show_draws_the_whole_table_again():
    game = _game(seed=5, seat=1)
    out = io.StringIO()
    run(game, io.StringIO("1\n1\n1\nshow\nquit\n"), out)
    text = out.getvalue()
    assert text.count("decks: events") == 2 and text.count("your cards:") == 2
    shown = text.split("choose 1-")[4]
    assert "market:" in shown and "your hand (P1 human)" in shown and "1) " in shown


def test_changes_text_names_money_hand_and_board_changes():
    from apps.play import changes_text
    from lastwill_env.engine import player_view
    from lastwill_env.engine.builders import do, turn_state

    s = turn_state(3, 0, hand=["Dinner_1", "Farm_3"], money=50, actions=3, modifiers=(0,) * 4)
    names = ["P0 human", "P1 greedy", "P2 planner"]
    before = player_view(s, 0)
    assert changes_text(before, before, 0, names) == ""
    do(s, "play Farm_3")
    text = changes_text(before, player_view(s, 0), 0, names)
    assert "money: you £50 -> £42" in text
    assert "your board: Farm_3(value 8, tokens 0/1)" in text
    assert "left your hand: Farm_3" in text
    assert "P1 greedy" not in text and "P2 planner" not in text  # they did not change


def test_plan_labels_count_in_singular_and_plural():
    from apps.play import choice_label
    from lastwill_env.engine import encode, new_game, player_view

    view = player_view(new_game(GameConfig(3), 1), 0)
    one = choice_label(encode("plan", 4), view)  # 1 card, 1 errand boy, 4 actions
    many = choice_label(encode("plan", 0), view)  # 5 cards, 2 errand boys, 1 action
    assert "1 plan card, 1 errand boy, 4 actions)" in one
    assert "5 plan cards, 2 errand boys, 1 action)" in many
    assert not re.search(r"\b1 (plan cards|errand boys|actions)\b", one + many)


def test_resumed_after_one_decision_is_singular(tmp_path):
    from lastwill_env.engine import apply_action, legal_actions

    game = _game(seed=5, seat=1)
    apply_action(game.state, legal_actions(game.state)[0])
    save = save_game(game, tmp_path / "one.json")
    out = io.StringIO()
    run(load_game(save), io.StringIO("quit\n"), out)
    assert "(resumed after 1 decision)" in out.getvalue()


# ---------------------------------------------------------------------------------------------
# help explains the phase and each kind of choice


def _help_at(state, seat: int) -> str:
    from apps.play import help_text, ordered_choices
    from lastwill_env.engine import legal_actions, player_view

    return help_text(player_view(state, seat), ordered_choices(legal_actions(state)))


def test_help_explains_an_action_turn():
    from lastwill_env.engine.builders import turn_state

    s = turn_state(3, 0, hand=["Dinner_1"], board=["Farm_3"], money=50, actions=2)
    text = _help_at(s, 0)
    assert text.startswith("action turn: ")
    for line in ("play CARD: ", "use CARD: ", "sell CARD: ", "pass: end your turn"):
        assert f"\n  {line}" in text, (line, text)
    assert "errand" not in text and "keep CARD" not in text  # only the kinds offered now


def test_help_explains_the_errands_offered():
    from lastwill_env.engine import apply_action, legal_actions, new_game
    from lastwill_env.engine.tables import ERRAND_PHASE

    s = new_game(GameConfig(3), 5)
    while s.phase != ERRAND_PHASE:
        apply_action(s, legal_actions(s)[0])
    text = _help_at(s, s.cur)
    assert text.startswith("place an errand boy: ")
    for line in ("errand offer space N: ", "errand board extension: ", "errand opera: "):
        assert f"\n  {line}" in text, (line, text)


def test_help_has_a_text_for_every_phase_and_every_kind_of_choice():
    from apps.play import KIND_HELP, PHASE_HELP, _help_key
    from lastwill_env.engine import GAME_OVER, NUM_ACTIONS

    assert sorted(PHASE_HELP) == list(range(GAME_OVER))
    keys = {_help_key(a) for a in range(NUM_ACTIONS)} - {"pass"}
    assert keys == set(KIND_HELP), keys ^ set(KIND_HELP)


def test_help_at_the_prompt_explains_the_current_phase():
    out = io.StringIO()
    run(_game(seed=5, seat=1), io.StringIO("help\nquit\n"), out)
    answer = out.getvalue().split("choose 1-")[1]
    assert "keep starting cards: " in answer and "\n  keep CARD: " in answer
    assert "card NAME" in answer and "save PATH" in answer  # the commands too


# ---------------------------------------------------------------------------------------------
# quit after save


def _quit_message(game, script: str) -> str:
    out = io.StringIO()
    run(game, io.StringIO(script), out)
    return out.getvalue().rsplit("quit: ", 1)[1].splitlines()[0]


def test_quit_right_after_save_does_not_warn(tmp_path):
    save = tmp_path / "s.json"
    said = _quit_message(_game(seed=11), _ones(3) + f"save {save}\nquit\n")
    assert f"is saved in {save}" in said and "not saved" not in said
    # loaded and quit at once: the file holds every decision
    said = _quit_message(load_game(save), "quit\n")
    assert f"is saved in {save}" in said and "not saved" not in said


def test_quit_warns_about_moves_after_the_save_and_without_one(tmp_path):
    save = tmp_path / "s.json"
    said = _quit_message(_game(seed=11), _ones(3) + f"save {save}\n" + _ones(2) + "quit\n")
    assert re.search(rf"\d+ decisions since the save to {re.escape(str(save))} are not saved", said)
    said = _quit_message(_game(seed=11), _ones(2) + "quit\n")
    assert "not saved" in said and "save PATH" in said
