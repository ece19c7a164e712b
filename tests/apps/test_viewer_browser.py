"""`lastwill view` in a real browser: Debian's Chromium driven by Playwright.

Skipped (with the reason) when /usr/bin/chromium or playwright is missing, unless
``LASTWILL_BROWSER_TESTS=require`` (set by .ci/run), which turns the skip into a failure.
Playwright's own browser download is never used: the system Chromium is launched directly.
"""

from __future__ import annotations

import json
import re
from urllib.parse import urlparse

import pytest
from viewer_util import EXAMPLE_LOG, make_policy_log

from agents.arena import read_log
from apps.replay import load_record
from apps.viewer.core import GameReplay
from apps.viewer.server import BackgroundServer, create_app
from lastwill_env.engine import CATALOGUE, GameConfig, describe_action, player_view, replay
from lastwill_env.engine.text import describe_step

pytestmark = pytest.mark.browser

NAMES = [c.name for c in CATALOGUE.cards]


@pytest.fixture(scope="module")
def site(browser, tmp_path_factory):
    """The viewer on 127.0.0.1 (free port) with the shipped log open and a folder served that
    holds a log of a tiny policy; ``url`` carries the session token."""
    folder = tmp_path_factory.mktemp("browser")
    policy_log, ckpt = make_policy_log(folder)
    app = create_app([EXAMPLE_LOG, folder], save_dir=folder / "saves")
    with BackgroundServer(app) as url:
        yield {"url": url, "app": app, "policy_log": policy_log, "ckpt": ckpt, "dir": folder}


@pytest.fixture()
def page(browser, site):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(20_000)
    requests: list[str] = []
    errors: list[str] = []
    pg.on("request", lambda r: requests.append(r.url))
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.requests = requests
    yield pg
    context.close()
    assert not errors, errors
    _assert_local(requests)


def _assert_local(urls: list[str]) -> None:
    """Every request of the page went to this machine's server (data: URLs are inline)."""
    assert urls
    for u in urls:
        p = urlparse(u)
        assert p.scheme == "data" or (p.scheme == "http" and p.hostname == "127.0.0.1"), u


def _wait_k(page, k: int, table: str = "#table", game: str | None = None) -> None:
    """Wait until the table shows decision ``k`` (of game ``"LOG:GAME"`` when given)."""
    page.wait_for_function(
        "([sel, k, game]) => { const t = document.querySelector(sel);"
        " return t.dataset.k === String(k) && (game === null || t.dataset.game === game); }",
        arg=[table, k, game],
    )


def _money_shown(page, table: str = "#table") -> list[int]:
    out = []
    for text in page.locator(f"{table} [data-testid=money]").all_inner_texts():
        m = re.fullmatch(r"(-?)£(\d+)", text.strip())
        assert m, text
        out.append(-int(m.group(2)) if m.group(1) else int(m.group(2)))
    return out


def _cards_in(page, selector: str) -> list[str]:
    return page.locator(f"{selector} [data-card]").evaluate_all(
        "els => els.map(e => e.dataset.card)"
    )


def test_replay_steps_show_the_engines_money(page, site) -> None:
    rows = read_log(EXAMPLE_LOG)[1]
    page.goto(site["url"])
    page.wait_for_selector("#game-list tr.game")
    assert page.locator("#game-list tr.game").count() == len(rows)
    page.click("#game-list tr[data-game='2']")
    row = rows[2]
    cfg = GameConfig.from_dict(row["config"])
    seat = row["seating"].index(next(s for s in row["seating"] if s.startswith("ppo:")))
    _wait_k(page, 0, game="1:2")
    assert page.locator("#view-seat").input_value() == str(seat)  # the policy's view first
    rep = GameReplay.build(row)

    def check(k: int) -> None:
        _wait_k(page, k)
        state = replay(cfg, row["deal_seed"], row["actions"][:k])
        assert _money_shown(page) == state.money, k
        if k < len(row["actions"]):
            want = describe_step(row["actions"][k], rep.seats[k], seat)
            assert page.inner_text("[data-testid=decision-name]") == want
            assert page.inner_text("#pos") == f"decision {k + 1} of {len(row['actions'])}"
        # only the viewing seat's hand is shown (docs/RULES.md §10), and of the others only the
        # offer cards everyone saw them take
        mine = _cards_in(page, f"#table [data-testid=hand][data-seat='{seat}']")
        assert mine == [NAMES[c] for c in sorted(state.hands[seat])]
        view = player_view(state, seat)
        for other in range(cfg.num_players):
            if other != seat:
                sel = f"#table [data-testid=hand][data-seat='{other}']"
                assert "hidden" in page.inner_text(sel)
                known = view.known_hands[(other - seat) % cfg.num_players]
                assert _cards_in(page, sel) == [NAMES[c] for c in known]

    k = 0
    check(k)
    for _ in range(4):  # keyboard
        page.keyboard.press("ArrowRight")
        k += 1
        check(k)
    page.click("#b-next")
    k += 1
    check(k)
    page.keyboard.press("ArrowLeft")
    k -= 1
    check(k)
    starts = sorted(rep.detail(seat)["round_starts"].values())
    for start in starts[1:4]:  # next round, three times
        page.click("#b-next-round")
        check(start)
    page.keyboard.press("ArrowUp")  # back to the previous round's start
    check(starts[2])
    page.eval_on_selector(
        "#slider", "el => { el.value = '211'; el.dispatchEvent(new Event('input')); }"
    )
    check(211)
    page.keyboard.press("End")
    _wait_k(page, len(row["actions"]))
    assert _money_shown(page) == row["money"]
    results = page.inner_text("[data-testid=results]")
    assert f"Winner: P{row['winner']}" in results


def test_omniscient_switch_shows_every_hand(page, site) -> None:
    row = read_log(EXAMPLE_LOG)[1][0]
    cfg = GameConfig.from_dict(row["config"])
    page.goto(site["url"] + "#log=1&game=0&k=100&seat=1")
    _wait_k(page, 100)
    state = replay(cfg, row["deal_seed"], row["actions"][:100])
    view = player_view(state, 1)
    for s in range(cfg.num_players):
        hand = f"#table [data-testid=hand][data-seat='{s}']"
        shown = sorted(state.hands[1]) if s == 1 else view.known_hands[(s - 1) % cfg.num_players]
        assert _cards_in(page, hand) == [NAMES[c] for c in shown]
    page.check("#omniscient")
    page.wait_for_function("() => document.querySelector('#view-seat').disabled")
    _wait_k(page, 100)
    page.wait_for_function(
        "() => document.querySelectorAll('#table [data-testid=hand] .hidden-hand').length === 0"
    )
    for s in range(cfg.num_players):
        hand = f"#table [data-testid=hand][data-seat='{s}']"
        assert _cards_in(page, hand) == [NAMES[c] for c in sorted(state.hands[s])]
    assert _money_shown(page) == state.money
    # the entrant filter narrows the game list
    page.select_option("#f-winner", "greedy")
    want = [r["game"] for r in read_log(EXAMPLE_LOG)[1] if r["winner_spec"] == "greedy"]
    page.wait_for_function(
        "n => document.querySelectorAll('#game-list tr.game').length === n", arg=len(want)
    )


def test_policy_panel_shows_probabilities_and_value(page, site) -> None:
    log, ckpt = site["policy_log"], site["ckpt"]
    page.goto(site["url"])
    page.wait_for_selector("#game-list tr.game")
    page.fill("#open-path", str(log))
    page.click("#open-form button")
    page.wait_for_function(
        "() => document.querySelectorAll('#game-list tr.game').length === 3"
        " && document.querySelector('#log-select').selectedOptions[0].text.startsWith('policy_log')"
    )
    page.click("#game-list tr[data-game='1']")
    _wait_k(page, 0, game="2:1")
    row = read_log(log)[1][1]
    rep = GameReplay.build(row)
    seat = row["seating"].index(f"ppo:{ckpt}")
    k = [i for i, s in enumerate(rep.seats) if s == seat][12]
    page.click(f"#dec-list li[data-k='{k}']")
    _wait_k(page, k)
    page.wait_for_selector("[data-testid=policy-value], [data-testid=policy-error]")
    assert page.locator("[data-testid=policy-error]").count() == 0, page.inner_text("#policy")
    page.wait_for_selector("[data-testid=policy-value] b")
    from apps.viewer.core import analyse

    a = analyse(rep, k, None, top=6, log_dir=log.parent)
    # the value as a win chance (the search's reading of a critic value), the raw value below
    shown = page.inner_text("[data-testid=win-chance]")
    assert shown == f"{a['estimate']['win_chance'] * 100:.0f}%"
    assert f"critic value {a['value']:+.3f}" in page.inner_text("[data-testid=policy-value]")
    # the chart of the policy's win chance over the game: one point per decision of its seat
    page.wait_for_selector(f"[data-testid=value-chart] polyline[data-seat='{seat}']")
    points = page.get_attribute(f"[data-testid=value-chart] polyline[data-seat='{seat}']", "points")
    assert len(points.split()) == rep.seats.count(seat)
    legend = page.inner_text("[data-testid=value-legend]")
    assert legend.endswith(f"{a['estimate']['win_chance'] * 100:.0f}%")
    rows = page.locator("[data-testid=policy-row]").all_inner_texts()
    assert len(rows) == min(6, a["legal"])
    assert describe_action(row["actions"][k]) in rows[0] and "played" in rows[0]
    assert f"{a['top'][0]['prob'] * 100:.1f}%" in rows[0]
    # a bot's decision has no policy panel
    other = next(i for i, s in enumerate(rep.seats) if s != seat and i > k)
    page.click(f"#dec-list li[data-k='{other}']")
    _wait_k(page, other)
    page.wait_for_function(
        "() => document.querySelector('#policy').innerText.includes('not a ppo:PATH policy')"
    )


def test_live_game_by_clicking(page, site) -> None:
    page.goto(site["url"] + "#tab=play")
    page.wait_for_selector("#setup-seats select")
    page.select_option("#setup-n", "3")
    for seat, spec in enumerate(["greedy", "human", "planner"]):
        page.select_option(f"#seat-{seat}", spec)
    page.fill("#setup-seed", "21")
    page.click("[data-testid=start]")
    page.wait_for_selector("#choices button")
    for _ in range(8):
        k = int(page.locator("#live-table").get_attribute("data-k"))
        buttons = page.locator("#choices button")
        assert buttons.count() >= 1
        buttons.nth(buttons.count() - 1).click()
        page.wait_for_function(
            "k => Number(document.querySelector('#live-table').dataset.k) > k"
            " && document.querySelectorAll('#choices button:not([disabled])').length > 0",
            arg=k,
        )
    assert "Your turn" in page.inner_text("[data-testid=turn]")
    k = int(page.locator("#live-table").get_attribute("data-k"))
    page.fill("#save-name", "clicked")
    page.click("[data-testid=save]")
    path = site["dir"] / "saves" / "clicked.json"
    page.wait_for_function(
        "() => document.querySelector('#status').innerText.startsWith('saved to')"
    )
    record = json.loads(path.read_text())
    assert record["type"] == "play" and record["human_seat"] == 1
    assert len(record["actions"]) == k and not record["finished"]
    state = replay(GameConfig.from_dict(record["config"]), record["deal_seed"], record["actions"])
    assert _money_shown(page, "#live-table") == state.money
    # the hand shown is the human's, and only that one
    hand = _cards_in(page, "#live-table [data-testid=hand][data-seat='1']")
    assert hand == [NAMES[c] for c in sorted(state.hands[1])]
    known = player_view(state, 1).known_hands[2]  # seat 0 is relative seat 2 of seat 1
    assert _cards_in(page, "#live-table [data-testid=hand][data-seat='0']") == [
        NAMES[c] for c in known
    ]
    # saving again under the same name is refused; the file stays as it was
    before = path.read_text()
    page.click("[data-testid=save]")
    page.wait_for_function(
        "() => document.querySelector('#status').innerText.includes('overwrite')"
    )
    assert path.read_text() == before
    # open the saved game as a replay
    page.click("#live-end button:text('Open as replay')")
    page.wait_for_function(
        "() => document.querySelector('#log-select').selectedOptions[0].text"
        ".startsWith('clicked.json')"
    )
    log_id = page.eval_on_selector("#log-select", "el => el.value")
    _wait_k(page, 0, game=f"{log_id}:0")
    assert "unfinished" in page.inner_text("#game-title")
    assert load_record(path)["actions"] == record["actions"]


# ---------------------------------------------------------------------------------------------
# Reading at a glance


def _open_at(page, site, fragment: str, k: int) -> None:
    page.goto(site["url"] + "#" + fragment)
    _wait_k(page, k)


def test_card_text_on_hover_and_on_click(page, site) -> None:
    from lastwill_env.cardref import card_text

    _open_at(page, site, "log=1&game=0&seat=0&d=96", 95)
    cards = page.locator("#table [data-testid=hand][data-seat='0'] [data-card-id]")
    assert cards.count() >= 2
    for i in range(cards.count()):
        el = cards.nth(i)
        cid = int(el.get_attribute("data-card-id"))
        assert el.get_attribute("title") == card_text(cid)  # the hover text
    el = cards.nth(1)
    cid = int(el.get_attribute("data-card-id"))
    el.click()
    page.wait_for_selector("[data-testid=card-info]:not([hidden])")
    assert page.inner_text("[data-testid=card-text]") == card_text(cid)
    assert page.get_attribute("[data-testid=card-info]", "data-card") == NAMES[cid]
    page.keyboard.press("Escape")
    page.wait_for_selector("[data-testid=card-info]", state="hidden")


def test_fragment_moves_to_the_decision_and_one_numbering(page, site) -> None:
    total = len(read_log(EXAMPLE_LOG)[1][0]["actions"])
    _open_at(page, site, "log=1&game=0&seat=0&d=50", 49)

    def agree(k: int) -> None:  # the list, the position and the address name one number
        _wait_k(page, k)
        assert page.inner_text("#pos") == f"decision {k + 1} of {total}"
        assert page.eval_on_selector("#dec-list li.cur", "li => li.value") == k + 1
        assert page.evaluate("location.hash").endswith(f"&d={k + 1}")
        assert page.eval_on_selector("#slider", "el => Number(el.value)") == k

    agree(49)
    page.evaluate("location.hash = '#log=1&game=0&seat=0&d=120'")  # edited in the address bar
    agree(119)
    page.click("#b-next")
    agree(120)
    page.keyboard.press("ArrowLeft")
    agree(119)
    page.click("#dec-list li[data-k='7']")
    agree(7)
    page.evaluate("location.hash = '#log=1&game=3&seat=all&d=11'")  # another game and view
    _wait_k(page, 10, game="1:3")
    assert page.is_checked("#omniscient")
    page.evaluate("location.hash = '#log=1&game=3&seat=all&d=end'")
    total3 = len(read_log(EXAMPLE_LOG)[1][3]["actions"])
    _wait_k(page, total3, game="1:3")
    assert page.inner_text("#pos").startswith("end")


def test_long_names_are_not_clipped(page, site) -> None:
    _open_at(page, site, "log=1&game=0&seat=0&d=96", 95)
    page.wait_for_selector("[data-testid=policy-row]")
    clipped = page.evaluate(
        """() => [...document.querySelectorAll('.pol-bar, .card, .card .nm, #table .space')]
        .filter((el) => el.scrollWidth > el.clientWidth + 1)
        .map((el) => el.className + ': ' + el.textContent)"""
    )
    assert clipped == []
    for text in page.locator("[data-testid=policy-row] .txt").all_inner_texts():
        assert "…" not in text  # the whole label, never cut


def test_live_defaults_are_the_strongest_and_pass_is_last(page, site) -> None:
    from apps.viewer.server import default_opponents
    from lastwill_env.engine import PASS

    page.goto(site["url"] + "#tab=play")
    page.wait_for_selector("#setup-seats select")
    page.select_option("#setup-n", "4")
    specs = [page.input_value(f"#seat-{i}") for i in range(4)]
    assert specs == ["human", *default_opponents()]
    page.select_option("#setup-n", "2")
    page.select_option("#seat-1", "greedy")
    page.fill("#setup-seed", "5")
    page.click("[data-testid=start]")
    page.wait_for_selector("#choices button")
    for _ in range(40):
        k = int(page.locator("#live-table").get_attribute("data-k"))
        actions = page.locator("#choices button").evaluate_all(
            "bs => bs.map(b => Number(b.dataset.action))"
        )
        if PASS in actions and len(actions) > 1:
            assert actions[-1] == PASS and page.inner_text("#choices button >> nth=-1") == "pass"
            return
        page.locator("#choices button").first.click()
        page.wait_for_function(
            "k => Number(document.querySelector('#live-table').dataset.k) > k"
            " && document.querySelectorAll('#choices button:not([disabled])').length > 0",
            arg=k,
        )
    pytest.fail("no decision offered pass among other choices")


def test_play_tab_offers_the_valid_players_in_a_list(page, site) -> None:
    """Each seat is a list of the players a live game accepts (the server's), and "custom
    spec…" opens a box for any other spec."""
    from apps.viewer.server import seat_choices

    page.goto(site["url"] + "#tab=play")
    page.wait_for_selector("#setup-seats select")
    page.select_option("#setup-n", "2")
    assert page.eval_on_selector("#seat-1", "el => el.tagName") == "SELECT"
    values = page.locator("#seat-1 option").evaluate_all("os => os.map(o => o.value)")
    assert values == [c["spec"] for c in seat_choices()] + ["custom"]
    assert page.locator("#seat-1-custom").is_hidden()
    page.select_option("#seat-1", "custom")
    page.fill("#seat-1-custom", "greedy:eps=0.1")
    page.select_option("#setup-n", "3")  # a seat's choice stays when the table grows
    assert page.input_value("#seat-1-custom") == "greedy:eps=0.1"
    page.select_option("#seat-2", "mc")
    page.fill("#setup-seed", "7")
    page.click("[data-testid=start]")
    page.wait_for_selector("#choices button")
    games = list(site["app"].state.sessions._games.values())
    assert games[-1].game.seating == ["human", "greedy:eps=0.1", "mc"]


def test_policy_panel_shows_the_networks_own_distribution(page, site) -> None:
    """A policy over a prior bot: beside each move's played probability, the network's own."""
    from apps.viewer.core import analyse

    _open_at(page, site, "log=1&game=0&seat=0&d=104", 103)
    page.wait_for_selector("[data-testid=policy-net]")
    rep = GameReplay.build(read_log(EXAMPLE_LOG)[1][0])
    a = analyse(rep, 103, 0, top=6, log_dir=EXAMPLE_LOG.parent)
    shown = page.locator("[data-testid=policy-net]").all_inner_texts()
    assert shown == [f"{t['net_prob'] * 100:.1f}%" for t in a["top"]]
    assert a["prior"]["bot"] in page.inner_text("[data-testid=policy-prior]")
