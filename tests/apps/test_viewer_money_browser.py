"""`lastwill view` shows and plays Money! in a real browser: Debian's Chromium driven by
Playwright, as tests/apps/test_viewer_browser.py drives it for Last Will.

Skipped (with the reason) when /usr/bin/chromium or playwright is missing, unless
``LASTWILL_BROWSER_TESTS=require`` (set by .ci/run), which turns the skip into a failure.
Playwright's own browser download is never used: the system Chromium is launched directly.
"""

from __future__ import annotations

import json
from urllib.parse import urlparse

import pytest

from agents.arena import run_tournament
from apps.viewer.money import card
from apps.viewer.server import BackgroundServer, create_app, seat_choices
from apps.viewer.tablegame import TableReplay
from gamecore import load_game
from money_env.engine import EXCHANGE_PHASE, player_view, replay
from money_env.text import move_text, view_text

pytestmark = pytest.mark.browser

MONEY = load_game("money")


@pytest.fixture(scope="module")
def site(browser, tmp_path_factory):
    """The viewer on 127.0.0.1 (free port) with a Money! arena log open (log 1)."""
    folder = tmp_path_factory.mktemp("money_browser")
    log = folder / "money.jsonl"
    entrants = ["value", "collector", "bluffer"]
    run_tournament(entrants, MONEY.make_config(3), 2, seed=4, out=log, game_name="money")
    app = create_app([log], save_dir=folder / "saves")
    with BackgroundServer(app) as url:
        yield {"url": url, "app": app, "log": log, "dir": folder}


@pytest.fixture()
def page(browser, site):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(20_000)
    requests: list[str] = []
    errors: list[str] = []
    pg.on("request", lambda r: requests.append(r.url))
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    context.close()
    assert not errors, errors
    assert requests
    for u in requests:  # every request went to this machine's server
        p = urlparse(u)
        assert p.scheme == "data" or (p.scheme == "http" and p.hostname == "127.0.0.1"), u


def _wait_k(page, k: int, table: str = "#table") -> None:
    page.wait_for_function(
        "([sel, k]) => document.querySelector(sel).dataset.k === String(k)", arg=[table, k]
    )


def _labels(page, selector: str) -> list[str]:
    return page.locator(f"{selector} [data-card]").evaluate_all(
        "els => els.map(e => e.dataset.card)"
    )


def _names(cards) -> list[str]:
    return [card(c)["label"] for c in sorted(cards)]


def _check_seat_picture(page, state, seat: int, table: str = "#table") -> None:
    """The picture is the seat's own view: its hand, the others' hidden (only their known
    cards), both groups, the pile, and no other seat's sealed bid."""
    view = player_view(state, seat)
    assert _labels(page, f"{table} [data-testid=m-hand][data-seat='{seat}']") == _names(
        state.hands[seat]
    )
    for other in range(state.n):
        if other == seat:
            continue
        sel = f"{table} [data-testid=m-hand][data-seat='{other}']"
        assert "hidden" in page.inner_text(sel)
        assert _labels(page, sel) == _names(state.known[other])
    assert page.locator(f"{table} [data-testid=m-bid]").count() <= 1
    assert page.locator(f"{table} [data-testid=m-bid]:not([data-seat='{seat}'])").count() == 0
    assert _labels(page, f"{table} [data-testid=m-right]") == _names(state.right)
    assert _labels(page, f"{table} [data-testid=m-left]") == _names(state.left)
    assert page.inner_text(f"{table} [data-testid=m-pile]") == f"pile {len(state.pile)} cards"
    assert page.locator(f"{table} [data-testid=view-text]").text_content() == view_text(view)


def _open_game(page, site, seat: int, d: str = "1"):
    """Game 0 of the log as ``seat`` saw it, at the fragment's decision ``d``: its record and
    its replay (what the server draws from)."""
    row = [json.loads(x) for x in site["log"].read_text().splitlines()][1]
    page.goto(site["url"] + f"#log=1&game=0&seat={seat}&d={d}")
    return row, TableReplay.build(row, MONEY, 0, "test")


def test_a_money_record_shows_each_decision_as_the_seat_saw_it(page, site) -> None:
    seat = 1
    row, rep = _open_game(page, site, seat)
    entries = rep.entries(seat)
    ms = rep.moments(seat)
    _wait_k(page, 0)
    assert page.inner_text("#game-list thead th:nth-child(2)").startswith("seats and final score")
    assert "Money!" in page.inner_text("#game-title")
    assert page.locator("#chart-box").is_hidden() and page.locator("#policy-box").is_hidden()

    def check(i: int) -> None:
        _wait_k(page, i)
        state = rep.states[ms[i].start if i < len(ms) else rep.total]
        _check_seat_picture(page, state, seat)
        if i < len(ms):
            assert page.inner_text("[data-testid=decision-name]") == entries[i]["name"]
            assert page.inner_text("#pos") == f"decision {i + 1} of {len(ms)}"

    i = 0
    check(i)
    for _ in range(4):
        page.keyboard.press("ArrowRight")
        i += 1
        check(i)
    page.click("#b-next-round")
    i = rep.detail(seat)["round_starts"]["2"]
    check(i)
    # a moment of the exchange: the bids as revealed, in front of every seat
    ex = next(j for j, m in enumerate(ms) if rep.states[m.start].phase == EXCHANGE_PHASE)
    page.click(f"#dec-list li[data-k='{ex}']")
    check(ex)
    state = rep.states[ms[ex].start]
    for s in range(3):
        bid = f"[data-testid=m-bids] .mbid[data-seat='{s}'] > [data-card]"
        assert page.locator(bid).evaluate_all("els => els.map(e => e.dataset.card)") == _names(
            state.revealed[s]
        )
    # a moment where its own bid is sealed shows it; nobody else's
    own = next(j for j, m in enumerate(ms) if rep.states[m.start].sel[seat] and m.seat == seat)
    page.click(f"#dec-list li[data-k='{own}']")
    check(own)
    mine = _names(rep.states[ms[own].start].sel[seat])
    assert _labels(page, f"#table [data-testid=m-bid][data-seat='{seat}']") == mine


def test_a_money_record_ends_with_every_hand_and_the_places(page, site) -> None:
    row, rep = _open_game(page, site, 1, "end")
    _wait_k(page, len(rep.moments(1)))
    shown = page.locator("[data-testid=m-results] tr[data-seat]").evaluate_all(
        "trs => trs.map(tr => [Number(tr.dataset.seat), tr.innerText])"
    )
    assert len(shown) == 3
    for s, text in shown:
        place = row["ranks"][s]
        shared = " (shared)" if row["ranks"].count(place) > 1 else ""
        assert text.split("\t") == [
            f"{place}{shared}",
            f"P{s} {row['seating'][s]}",
            str(row["scores"][s]),
        ]
        final = f"#table [data-testid=m-hand][data-seat='{s}']"
        assert _labels(page, final) == _names(rep.states[-1].hands[s])
    # another seat's view of the same game: still at the end, then from the start
    page.select_option("#view-seat", "0")
    page.wait_for_function(
        "() => document.querySelector('#table .player.b0 .pname').innerText.endsWith('(view)')"
    )
    _wait_k(page, len(rep.moments(0)))
    page.keyboard.press("Home")
    _wait_k(page, 0)
    _check_seat_picture(page, rep.states[0], 0)


def _live(site):
    return list(site["app"].state.sessions._games.values())[-1]


def _click(page, nth: int | None = None, key: str | None = None) -> None:
    """One of the person's moves (the nth button, or a number key), waiting for the answer."""
    k = int(page.locator("#live-table").get_attribute("data-k"))
    if key is not None:
        page.keyboard.press(key)
    else:
        buttons = page.locator("#choices button")
        buttons.nth(nth if nth >= 0 else buttons.count() + nth).click()
    page.wait_for_function(
        "k => Number(document.querySelector('#live-table').dataset.k) > k"
        " && (document.querySelectorAll('#choices button:not([disabled])').length > 0"
        " || document.querySelector('#live-turn').innerText.includes('over'))",
        arg=k,
    )


def test_a_live_money_game_by_clicking(page, site) -> None:
    page.goto(site["url"] + "#tab=play")
    page.wait_for_selector("#setup-seats select")
    page.select_option("#setup-game", "money")
    counts = page.locator("#setup-n option").evaluate_all("os => os.map(o => o.value)")
    assert counts == ["3", "4", "5"]
    assert page.locator("#setup-money").is_hidden() and page.locator("#setup-spaces").is_hidden()
    values = page.locator("#seat-1 option").evaluate_all("os => os.map(o => o.value)")
    assert values == [c["spec"] for c in seat_choices("money")] + ["custom"]
    page.select_option("#setup-n", "3")
    for seat, spec in enumerate(["value", "human", "bluffer"]):
        page.select_option(f"#seat-{seat}", spec)
    page.fill("#setup-seed", "8")
    page.click("[data-testid=start]")
    page.wait_for_selector("#choices button")
    live = _live(site)
    assert live.tg.seating == ["value", "human", "bluffer"] and live.tg.deal_seed == 8
    assert "deal seed" not in page.inner_text("#live-title")  # not until the end
    for move in range(6):
        state = live.tg.state
        view = player_view(state, 1)
        labels = page.locator("#choices button").all_inner_texts()
        want = [move_text(view, a) for a in MONEY.legal_actions(state)]
        assert labels == [f"{i + 1}. {t}" for i, t in enumerate(want)]
        _check_seat_picture(page, state, 1, "#live-table")
        if move == 1:
            _click(page, key="2")  # a number key picks that move
        else:
            _click(page, nth=0 if move % 2 == 0 else -1)
    assert len([s for s in live.seats if s == 1]) == 6
    # to the end: the last move each time (a bluff-only bid that sits out, or keep)
    for _ in range(400):
        if "over" in page.inner_text("#live-turn"):
            break
        _click(page, nth=-1)
    assert page.inner_text("#live-turn") == "The game is over."
    final = live.tg.state
    assert MONEY.is_over(final) and "deal seed 8" in page.inner_text("#live-title")
    rows = page.locator("#live-table [data-testid=m-results] tr[data-seat]").evaluate_all(
        "trs => trs.map(tr => Number(tr.dataset.seat))"
    )
    ranks = MONEY.ranks(final)
    assert rows == sorted(range(3), key=lambda s: (ranks[s], s))
    # the saved record opens as a Money! replay
    page.click("[data-testid=open-replay]")
    page.wait_for_function(
        "name => document.querySelector('#log-select').selectedOptions[0].text.startsWith(name)"
        " && document.querySelector('#game-title').innerText.includes('Money!')",
        arg=live.record_path.name,
    )
    log_id = page.eval_on_selector("#log-select", "el => el.value")
    page.wait_for_function(
        "where => document.querySelector('#table').dataset.game === where", arg=f"{log_id}:0"
    )
    _wait_k(page, 0)
    assert page.input_value("#view-seat") == "1"  # the person's seat
    state = replay(MONEY.make_config(3), 8, [])
    _check_seat_picture(page, state, 1)


def test_the_play_tab_switches_back_to_last_will(page, site) -> None:
    page.goto(site["url"] + "#tab=play")
    page.wait_for_selector("#setup-seats select")
    page.select_option("#setup-game", "money")
    page.wait_for_function("() => document.querySelector('#setup-n').options.length === 3")
    assert page.locator("[data-for-game=other]").is_visible()
    assert page.locator("[data-for-game=lastwill]").is_hidden()
    page.select_option("#setup-game", "lastwill")
    assert page.locator("[data-for-game=other]").is_hidden()
    counts = page.locator("#setup-n option").evaluate_all("os => os.map(o => o.value)")
    assert counts == ["2", "3", "4", "5"]
    assert page.locator("#setup-money").is_visible() and page.locator("#setup-spaces").is_visible()
    values = page.locator("#seat-1 option").evaluate_all("os => os.map(o => o.value)")
    assert values == [c["spec"] for c in seat_choices()] + ["custom"]
