"""Card text for people, and the card reference `docs/CARDS.md`, both from the card catalogue.

Standard library only (it reads `lastwill_env.engine.CATALOGUE`, the validated contents of
`lastwill_env/data/cards.json`):

- :func:`card_text` one line per card: kind, what playing it costs, what using it spends,
  companion add-ons or slots, and a helper's privilege, in the words of docs/RULES.md §4.4.
- :func:`find_card` a card by (case-insensitive) name, with close matches in the error.
- :func:`cards_markdown` the whole of docs/CARDS.md. The file is generated, never edited by
  hand; ``tests/tools/test_docs.py`` fails when the committed copy differs from the data:

      python -m lastwill_env.cardref --write docs/CARDS.md   # regenerate
      python -m lastwill_env.cardref --check docs/CARDS.md   # exit 1 when stale

Section numbers of docs/CARDS.md (§3 planning board, §4 offer board and errands, §5.1-§5.8
card families, §6 action costs) are the ones the code cites.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

from .engine.cards import (
    CATALOGUE,
    COMPANIONS,
    DECK_COUNTS,
    PROPERTY_TYPES,
    CardSpec,
)
from .engine.config import PLAYER_COUNTS

__all__ = ["card_text", "find_card", "cards_markdown", "CardNotFound", "main"]

CARDS = CATALOGUE.cards
TYPE_WORDS = {
    "farm": "farm",
    "townhouse": "town house",
    "manor": "manor house",
    "mansion": "mansion",
}
_FAMILY_WORDS = {
    "carriage": "carriage",
    "theatre": "theatre",
    "boat": "boat trip",
    "party": "party",
    "dinner": "dinner",
    "training": "training ground",
}
_TAG_WORDS = {
    "carriage": "carriage rides and carriage expenses",
    "theatre": "theatre events",
    "boat": "boat trips",
    "party": "parties (soirees, balls, clubs)",
    "dinner": "dinners (dinner events, restaurant reservations)",
    "training": "training grounds",
    "opera": "the opera errand",
}
_FREE_WORDS = {  # (one, several)
    "house_maint": ("maintenance of a house", "maintenances of houses"),
    "farm_maint": ("maintenance of a farm", "maintenances of farms"),
    "house_deal": ("purchase or sale of a house", "purchases or sales of houses"),
    "farm_deal": ("purchase or sale of a farm", "purchases or sales of farms"),
}


class CardNotFound(KeyError):
    """No card of that name; the message lists close matches."""

    def __str__(self) -> str:  # KeyError would print the repr of its message
        return str(self.args[0])


def find_card(name: str) -> CardSpec:
    """The card named ``name`` (case-insensitive; ``farm 3`` finds ``Farm_3``)."""
    key = name.strip().replace(" ", "_").lower()
    by_lower = {c.name.lower(): c for c in CARDS}
    if key in by_lower:
        return by_lower[key]
    close = difflib.get_close_matches(key, list(by_lower), n=5, cutoff=0.6)
    starts = [n for n in by_lower if n.startswith(key)] if key else []
    hints = list(dict.fromkeys(starts + close))[:6]
    hint = (
        "; did you mean " + ", ".join(by_lower[h].name for h in hints) + "?"
        if hints
        else "; card names look like Farm_3, Dinner_8, Tailor, Ball_S"
    )
    raise CardNotFound(f"no card named {name.strip()!r}{hint}")


def _spec(card: int | str | CardSpec) -> CardSpec:
    if isinstance(card, CardSpec):
        return card
    if isinstance(card, str):
        return find_card(card)
    return CARDS[card]


def _acts(k: int) -> str:
    return f"{k} action" + ("" if k == 1 else "s")


def _slots(spec: CardSpec) -> str:
    return ", ".join(f"{COMPANIONS[t]} -> £{total}" for t, total in spec.slots)


def _tag_words(tag: str) -> str:
    if tag.startswith("maintain:"):
        return "maintaining a " + TYPE_WORDS[tag.split(":", 1)[1]]
    return _TAG_WORDS[tag]


def _types(types: tuple[int, ...]) -> str:
    names = [PROPERTY_TYPES[t] for t in types]
    if set(names) == {"townhouse", "manor", "mansion"}:
        return "a house"
    return " or ".join("a " + TYPE_WORDS[n] for n in names)


def privilege_text(spec: CardSpec) -> str:
    """The permanent privilege of a helper (empty for other cards), as the engine applies it."""
    bits = []
    if spec.bonus_amount:
        tags = [_tag_words(t) for t in spec.bonus_tags]
        if all(t.startswith("maintaining a ") for t in tags):
            tags = ["maintaining a " + " or ".join(t[len("maintaining a ") :] for t in tags)]
        bits.append(f"£{spec.bonus_amount} more on {' and '.join(tags)} (when affordable)")
    if spec.buy_surcharge:
        bits.append(
            f"buying {_types(spec.buy_surcharge_types)} costs £{spec.buy_surcharge} more "
            "(when affordable)"
        )
    if spec.sale_reduction:
        kinds = _types(spec.sale_reduction_types)
        bits.append(f"selling {kinds} brings £{spec.sale_reduction} less")
    if spec.free_kind == "event_action":
        bits.append(f"+{spec.free_per_round} action per round for playing events only")
    elif spec.free_kind:
        k = spec.free_per_round
        what = _FREE_WORDS[spec.free_kind][k > 1]
        bits.append(f"once per round {k} free {what} (no action)")
    if spec.hand_limit_bonus:
        bits.append(f"hand limit +{spec.hand_limit_bonus}")
    if spec.extra_actions:
        bits.append(f"+{spec.extra_actions} action every round")
    if spec.extra_draw == "any":
        bits.append(f"{spec.extra_draw_count} extra plan cards from any decks")
    elif spec.extra_draw:
        bits.append(f"up to {spec.extra_draw_count} extra {spec.extra_draw} with the plan cards")
    return "; ".join(bits)


def _event_text(spec: CardSpec) -> str:
    fam = f" ({_FAMILY_WORDS[spec.family]})" if spec.family else ""
    parts = []
    if spec.ball:
        lo, hi = spec.ball[0][0], spec.ball[-1][0]
        table = ", ".join(f"{k} -> £{m}" for k, m in spec.ball)
        parts.append(f"invest {lo}-{hi} actions: {table}")
    else:
        cost = _acts(spec.play_actions) + (f" + £{spec.play_cost}" if spec.play_cost else "")
        parts.append(cost)
        if spec.spend:
            parts.append(f"spend £{spec.spend}")
    if spec.addons:
        parts.append("add-ons " + ", ".join(f"{COMPANIONS[t]} +£{m}" for t, m in spec.addons))
    if spec.gain_actions:
        parts.append(f"gain {_acts(spec.gain_actions)}")
    if spec.effect == "wild_party":
        parts.append("three depreciation steps on your houses")
    elif spec.effect == "breeders_fair":
        parts.append("attach up to two horses/dogs to your farms with no action each")
    return f"event{fam}: " + ", ".join(parts)


def _use_text(spec: CardSpec) -> str:
    if spec.training != (0, 0, 0):
        per_farm, per_horse, per_dog = spec.training
        terms = []
        if per_farm:
            terms.append(f"£{per_farm} per farm")
        if per_horse:
            terms.append(f"£{per_horse} per horse on your farms")
        if per_dog:
            terms.append(f"£{per_dog} per dog on your farms")
        return f"use {_acts(spec.use_actions)}: " + " + ".join(terms)
    return f"use {_acts(spec.use_actions)}: spend £{spec.spend}"


def card_text(card: int | str | CardSpec) -> str:
    """One line describing a card (by id, name or spec), e.g.
    ``Farm_3: farm, buy £8 + farm modifier (1 action), value 8 (never depreciates); maintain
    1 action: £1; slots dog -> £3``."""
    spec = _spec(card)
    crowns = f" ({spec.crowns}-crown special)" if spec.crowns else ""
    cat = spec.category
    if cat == "event":
        body = _event_text(spec)
    elif cat == "property":
        t = PROPERTY_TYPES[spec.prop_type]
        word = TYPE_WORDS[t]
        if len(spec.values) == 1:
            value = f"value {spec.values[0]} (never depreciates)"
        else:
            value = "value " + " > ".join(str(v) for v in spec.values)
        body = (
            f"{word}, buy £{spec.values[0]} + {word} modifier (1 action), {value}; "
            f"maintain 1 action: £{spec.upkeep}"
        )
        if spec.slots:
            body += f"; slots {_slots(spec)}"
    elif cat == "expense":
        fam = _FAMILY_WORDS[spec.family]
        body = f"expense ({fam}), play {_acts(spec.play_actions)}; {_use_text(spec)}"
        if spec.slots:
            body += f"; slots {_slots(spec)}"
    elif cat == "helper":
        body = f"helper, play {_acts(spec.play_actions)}"
        if spec.use_actions >= 0:
            body += f"; {_use_text(spec)}"
        priv = privilege_text(spec)
        if priv:
            body += f"; privilege: {priv}"
    elif cat == "companion":
        body = (
            f"companion ({COMPANIONS[spec.companion]}): a {COMPANIONS[spec.companion]} add-on "
            "of an event, or a token on the next slot of a board card (1 action)"
        )
    elif cat == "joker":
        body = "joker: counts as any one companion; cannot stay in a hand past the round"
    else:
        body = f"will card: starting money £{spec.money} (option starting_money)"
    return f"{spec.name}{crowns}: {body}"


# ---------------------------------------------------------------------------------------------
# docs/CARDS.md


def _table(head: list[str], rows: list[list[object]], right: set[int] | None = None) -> str:
    right = right or set()
    out = ["| " + " | ".join(head) + " |"]
    out.append("|" + "|".join("---:" if i in right else "---" for i in range(len(head))) + "|")
    out += ["| " + " | ".join(str(x) for x in r) + " |" for r in rows]
    return "\n".join(out)


def _by(pred) -> list[CardSpec]:
    return [c for c in CARDS if pred(c)]


def _ids(cards: list[CardSpec]) -> str:
    ids = [c.id for c in cards]
    return f"{min(ids)}-{max(ids)}" if ids else "-"


_DECK_NAMES = {"P": "property", "E": "event", "H": "helper/expense", "S": "special", "J": "joker"}


def cards_markdown() -> str:
    """The text of docs/CARDS.md, generated from the catalogue, section by section."""
    out: list[str] = []
    for section in (
        _md_head,
        _md_decks,
        _md_plans,
        _md_board,
        _md_white_cards,
        _md_black_cards,
        _md_costs,
    ):
        out += section()
    return "\n".join(out)


def _md_head() -> list[str]:
    """The title, how the file is made, and §1 (sources)."""
    out: list[str] = []
    add = out.append
    add("# Last Will: card and board reference")
    add("")
    add(
        "Generated from `lastwill_env/data/cards.json` by `python -m lastwill_env.cardref "
        "--write docs/CARDS.md`; do not edit it by hand (`tests/tools/test_docs.py` fails when it "
        "is stale). The rules that use these numbers are in docs/RULES.md; its §2 (component "
        "counts) and §9 (rulings) override anything here."
    )
    add("")
    add("## 1. Sources")
    add("")
    add(
        "The figures were transcribed from a public third-party simulator of the game "
        "(GitHub `dftaken/last_will`, `src/assets/cards/CardLibrary.cpp` and "
        "`src/gameboards/GameBoard.cpp`) and cross-checked against published component lists "
        "and reviews: every deck count matches. Card names are that simulator's labels, not "
        "necessarily the printed titles. Two rulings of docs/RULES.md §9 change the "
        "transcription: `TrainingGround_1` counts horses (the transcription repeats "
        "`TrainingGround_4`), and using a training ground costs 1 action."
    )
    add("")
    return out


def _md_decks() -> list[str]:
    """§2: the decks and their card ids."""
    out: list[str] = []
    add = out.append
    add("## 2. Decks and card ids")
    add("")
    add(
        "A card id is the card's index in the catalogue (and in the observation's card "
        "pieces). Copies of one card are separate ids."
    )
    add("")
    rows = []
    for deck, label in (
        ("events", "Events (white border)"),
        ("helpers", "Helpers and expenses (black border)"),
        ("properties", "Properties (black border)"),
        ("companions", "Companions"),
        ("special", "Special cards (crown backs)"),
        ("joker", "Companion jokers"),
        ("will", "Will cards"),
    ):
        cards = [x for x in CARDS if x.deck == deck]
        assert len(cards) == DECK_COUNTS[deck]
        rows.append([label, f"`{deck}`", len(cards), _ids(cards)])
    rows.append(["All cards", "", len(CARDS), f"0-{len(CARDS) - 1}"])
    add(_table(["deck", "name", "cards", "ids"], rows, {2}))
    add("")
    return out


def _md_plans() -> list[str]:
    """§3: the plan spaces of the planning board."""
    c = CATALOGUE
    out: list[str] = []
    add = out.append
    add("## 3. Planning board (plan spaces)")
    add("")
    add(
        "A plan gives the cards drawn at once (blind, from any normal decks), the errand boys "
        "(1 or 2), the actions of the action phase and the turn order for the rest of the "
        "round (order 1 acts first)."
    )
    for key, label in (("2-3", "2-3 players"), ("4-5", "4-5 players")):
        plans = c.plans[2 if key == "2-3" else 4]
        add("")
        add(f"### {label} ({len(plans)} plan spaces)")
        add("")
        add(
            _table(
                ["space", "order", "cards drawn", "errand boys", "actions"],
                [[i + 1, p.order, p.cards, p.errand_boys, p.actions] for i, p in enumerate(plans)],
                {0, 1, 2, 3, 4},
            )
        )
    add("")
    return out


def _md_board() -> list[str]:
    """§4: the offer board's card spaces per player count and round, the other errands."""
    c = CATALOGUE
    out: list[str] = []
    add = out.append
    add("## 4. Offer board and other errand spaces")
    add("")
    add("### 4.1 Card spaces per player count and round")
    add("")
    add(
        "Each offer space gets one face-up card per round from the deck named here: "
        + ", ".join(f"**{k}** {v}" for k, v in _DECK_NAMES.items())
        + ". Companions never appear on the offer board."
    )
    for n in PLAYER_COUNTS:
        sched = c.offer_schedule[n]
        shared = c.shared_top_spaces[n]
        add("")
        note = ""
        if shared:
            note = f"; spaces 1-3 share {shared} errand slots: at most {shared} of them are taken"
        add(f"**{n} players** ({len(sched)} spaces{note})")
        add("")
        add(
            _table(
                ["space"] + [f"R{r + 1}" for r in range(7)],
                [[i + 1, *row] for i, row in enumerate(sched)],
                {0},
            )
        )
    add("")
    add(
        "Over seven rounds every layout deals exactly the "
        f"{DECK_COUNTS['special']} special cards (the whole crown deck, 1-crown cards first)."
    )
    add("")
    add("### 4.2 Other errand spaces")
    add("")
    cap = c.extension_capacity
    sup = ", ".join(f"{COMPANIONS[i]} {k}" for i, k in enumerate(c.token_supply))
    add(
        _table(
            ["errand", "effect", "capacity per round"],
            [
                ["offer space", "take that card into your hand", "1 errand boy per space"],
                [
                    "board extension",
                    f"+1 card space on your board for good ({c.extensions} in the supply)",
                    f"{cap[2]} ({cap[5]} with 5 players)",
                ],
                ["property market", "rearrange the 4 modifier tiles (any of 24 orders)", "1"],
                ["unknown card", "draw the top card of one normal deck", "once per player"],
                ["opera", f"spend £{c.opera_cost}", "1"],
            ],
        )
    )
    add("")
    mods = ", ".join(f"{m:+d}" for m in c.modifiers)
    add(
        f"Market modifier tiles: {mods}, one under each property type, shuffled at setup. "
        f"Companion token supply: {sup}. Hand limit at the end of a round: {c.hand_limit}."
    )
    add("")
    return out


def _md_white_cards() -> list[str]:
    """§5 and its first tables: properties, events, balls."""
    out: list[str] = []
    add = out.append
    add("## 5. Cards")
    add("")
    add(
        "Amounts are pounds spent (or received, for sales). Companion slots fill top-down in "
        "the printed order; the amount after an arrow is the card's total when that slot is "
        "filled. The `text` column is what `lastwill play` shows (`card NAME`)."
    )
    add("")
    add("### 5.1 Properties")
    add("")
    add(
        "Buy: 1 action and the first value plus the type's market modifier, in cash. Maintain: "
        "1 action and the upkeep (a maintained house does not depreciate that round). Sell: 1 "
        "action, receive the current value plus the modifier (nothing when that is 0 or less)."
    )
    add("")
    props = _by(lambda x: x.category == "property")
    add(
        _table(
            ["card", "id", "type", "value track", "upkeep", "companion slots"],
            [
                [
                    f"`{p.name}`",
                    p.id,
                    TYPE_WORDS[PROPERTY_TYPES[p.prop_type]],
                    " > ".join(str(v) for v in p.values),
                    f"£{p.upkeep}",
                    _slots(p) or "-",
                ]
                for p in props
            ],
            {1},
        )
    )
    add("")
    add("### 5.2 Events (white border, discarded after use)")
    add("")
    events = _by(lambda x: x.category == "event" and x.deck == "events" and not x.ball)
    add(
        _table(
            ["card", "id", "family", "actions", "spend", "companion add-ons"],
            [
                [
                    f"`{e.name}`",
                    e.id,
                    _FAMILY_WORDS[e.family],
                    e.play_actions,
                    f"£{e.spend}",
                    ", ".join(f"{COMPANIONS[t]} +£{m}" for t, m in e.addons) or "-",
                ]
                for e in events
            ],
            {1, 3},
        )
    )
    add("")
    add("### 5.3 Ball tables")
    add("")
    add(
        "A ball is a party event: the player invests 2 or more actions and spends the amount "
        "of that row (the amounts are not added up)."
    )
    add("")
    balls = _by(lambda x: bool(x.ball))
    add(
        _table(
            ["card", "id"] + [f"{k} actions" for k in range(2, 8)],
            [
                [f"`{b.name}`", b.id]
                + [f"£{dict(b.ball)[k]}" if k in dict(b.ball) else "-" for k in range(2, 8)]
                for b in balls
            ],
            set(range(1, 8)),
        )
    )
    add("")
    return out


def _md_black_cards() -> list[str]:
    """§5.4-5.8: expenses, helpers, companions and jokers, specials, wills."""
    c = CATALOGUE
    out: list[str] = []
    add = out.append
    add("### 5.4 Expenses (black border, used once per round)")
    add("")
    exps = _by(lambda x: x.category == "expense")
    add(
        _table(
            ["card", "id", "family", "play", "use", "companion slots"],
            [
                [
                    f"`{e.name}`",
                    e.id,
                    _FAMILY_WORDS[e.family],
                    _acts(e.play_actions),
                    _use_text(e)[4:],
                    _slots(e) or "-",
                ]
                for e in exps
            ],
            {1},
        )
    )
    add("")
    add("### 5.5 Helpers (black border; the privilege works while the card is on the board)")
    add("")
    helpers = _by(lambda x: x.category == "helper" and x.deck == "helpers")
    add(_helper_table(helpers))
    add("")
    add("### 5.6 Companions and jokers")
    add("")
    comps = _by(lambda x: x.category in ("companion", "joker"))
    rows = []
    for t in range(len(COMPANIONS)):
        cs = [x for x in comps if x.category == "companion" and x.companion == t]
        rows.append([COMPANIONS[t], len(cs), _ids(cs), c.token_supply[t]])
    js = [x for x in comps if x.category == "joker"]
    rows.append(["joker (any one type)", len(js), _ids(js), "-"])
    add(_table(["companion", "cards", "ids", "tokens in supply"], rows, {1, 3}))
    add("")
    add(
        "A companion is never played alone: it is discarded with an event for one of the "
        "event's add-ons of its type, or discarded for 1 action to put a token of its type on "
        "the next empty slot of a board card. Jokers count as any one type; a joker in a hand "
        "at the end of the round goes back beside the offer board."
    )
    add("")
    add("### 5.7 Special cards (crown deck: 1-crown on top, 3-crown at the bottom)")
    add("")
    specials = _by(lambda x: x.deck == "special")
    add(
        _table(
            ["card", "id", "crowns", "text"],
            [[f"`{s.name}`", s.id, s.crowns, card_text(s).split(": ", 1)[1]] for s in specials],
            {1, 2},
        )
    )
    add("")
    add("### 5.8 Will cards")
    add("")
    wills = _by(lambda x: x.category == "will")
    add(
        _table(
            ["card", "id", "starting money"],
            [[f"`{w.name}`", w.id, f"£{w.money}"] for w in wills],
            {1, 2},
        )
    )
    add("")
    add(
        "Used only with the option `starting_money` = `will-shared` (one card for everyone) or "
        "`will-each` (one card per player); by default everyone starts with £70."
    )
    add("")
    return out


def _md_costs() -> list[str]:
    """§6: what each action costs."""
    out: list[str] = []
    add = out.append
    add("## 6. Action costs summary")
    add("")
    two = [x.name for x in CARDS if x.is_black and x.play_actions >= 2]
    add(
        _table(
            ["action", "actions", "money", "notes"],
            [
                [
                    "play a helper or expense",
                    "1 (2: " + ", ".join(f"`{n}`" for n in two) + ")",
                    "-",
                    "needs a free board space (or a make-room discard)",
                ],
                ["buy a property", "1 (or a free estate-agent deal)", "price + modifier", ""],
                ["sell a property", "1 (or a free deal)", "receive value + modifier", ""],
                ["maintain a property", "1 (or a free steward action)", "upkeep", "once a round"],
                ["use an expense or helper", "0 or 1 (the card's use)", "the card's amount", ""],
                ["attach a companion", "1", "-", "discards the companion card or a joker"],
                ["play an event", "1 (boat trips 2, balls 2-7)", "spend + add-ons", ""],
                ["make room", "0", "-", "a placed helper or expense, as part of a play"],
            ],
        )
    )
    add("")
    return out


def _helper_table(helpers: list[CardSpec]) -> str:
    rows = []
    for h in helpers:
        use = _use_text(h)[4:] if h.use_actions >= 0 else "-"
        rows.append([f"`{h.name}`", h.id, _acts(h.play_actions), use, privilege_text(h)])
    return _table(["card", "id", "play", "use", "privilege"], rows, {1})


# ---------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m lastwill_env.cardref",
        description="Print one card's text, or write/check docs/CARDS.md from the card data.",
    )
    ap.add_argument("card", nargs="*", help="card names to describe (e.g. Farm_3 Tailor)")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--write", metavar="PATH", help="write the card reference to PATH")
    g.add_argument("--check", metavar="PATH", help="exit 1 when PATH differs from the data")
    args = ap.parse_args(argv)
    text = cards_markdown()
    if args.write:
        Path(args.write).write_text(text, encoding="utf-8")
        print(f"wrote {args.write} ({len(text.splitlines())} lines)")
        return 0
    if args.check:
        path = Path(args.check)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            print(
                f"{path} is stale: regenerate it with python -m lastwill_env.cardref "
                f"--write {path}",
                file=sys.stderr,
            )
            return 1
        print(f"{path} is up to date")
        return 0
    if not args.card:
        print(text)
        return 0
    code = 0
    for name in args.card:
        try:
            print(card_text(name))
        except CardNotFound as e:
            print(f"error: {e}", file=sys.stderr)
            code = 2
    return code


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
