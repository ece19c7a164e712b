"""Card catalogue for Last Will: all 140 cards and the board data, loaded from one JSON file.

The data lives in ``lastwill_env/data/cards.json`` and is validated here at load time
(standard library only). Sources:

* ``docs/CARDS.md`` §3 (planning board: plan spaces per player count), §4.1 (offer-board
  schedule per player count and round, shared top spaces with 2-3 players), §4.2 (opera
  cost, extension capacity), §5.1 (properties: value tracks, upkeep, companion slots),
  §5.2 (events), §5.3 (Ball tables), §5.4 (expenses), §5.5 (helpers), §5.6 (companions,
  jokers), §5.7 (special cards), §5.8 (will cards).
* ``docs/RULES.md`` §2 (component counts, enforced at load: 31 events; 39 helpers deck =
  21 helpers + 18 expenses; 24 properties = 11 farms / 4 town / 4 manor / 5 mansion;
  20 companions, 5 per type; 17 specials = 6/5/6 crowns; 2 jokers; 7 wills; 140 cards;
  token supply; 12 extensions; modifier tiles) and §9 (rulings that override docs/CARDS.md:
  ``TrainingGround_1`` counts horses, using a training ground costs 1 action).

Card ids are indexes into ``Catalogue.cards``; the order is fixed: events 0..30, expenses
31..48, helpers 49..69, properties 70..93, companions 94..113, specials 114..130 (docs/CARDS.md
§5.7 table order), jokers 131..132, wills 133..139. Every problem in the data raises
:class:`CardDataError` naming the card (or board entry) and the field.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gamecore.plain import is_int

from .config import PLAYER_COUNTS

__all__ = [
    "COMPANIONS",
    "PROPERTY_TYPES",
    "DECKS",
    "CATEGORIES",
    "ALL_DECKS",
    "FAMILIES",
    "BONUS_TAGS",
    "FREE_KINDS",
    "EXTRA_DRAWS",
    "EFFECTS",
    "OFFER_CODES",
    "DECK_COUNTS",
    "CardDataError",
    "CardSpec",
    "Plan",
    "Catalogue",
    "DEFAULT_PATH",
    "load_catalogue",
    "parse_catalogue",
    "CATALOGUE",
]

COMPANIONS = ("horse", "dog", "chef", "guest")  # index = companion type id
PROPERTY_TYPES = ("farm", "townhouse", "manor", "mansion")  # index = property type id
DECKS = ("events", "helpers", "properties", "companions")  # the four normal decks, index = deck id

CATEGORIES = ("event", "expense", "helper", "property", "companion", "joker", "will")
# every deck, in the order the cards appear in the catalogue
ALL_DECKS = ("events", "helpers", "properties", "companions", "special", "joker", "will")
EVENT_FAMILIES = ("carriage", "theatre", "boat", "party", "dinner")
EXPENSE_FAMILIES = ("party", "dinner", "carriage", "training")
FAMILIES = ("", "carriage", "theatre", "boat", "party", "dinner", "training")
BONUS_TAGS = (
    "carriage",
    "theatre",
    "boat",
    "party",
    "dinner",
    "training",
    "opera",
) + tuple(f"maintain:{t}" for t in PROPERTY_TYPES)
FREE_KINDS = ("", "house_maint", "farm_maint", "house_deal", "farm_deal", "event_action")
EXTRA_DRAWS = ("", "companions", "events", "any")
EFFECTS = ("", "breeders_fair", "wild_party")
OFFER_CODES = ("P", "E", "H", "S", "J")
ROUNDS = 7

# docs/RULES.md §2
DECK_COUNTS = {
    "events": 31,
    "helpers": 39,
    "properties": 24,
    "companions": 20,
    "special": 17,
    "joker": 2,
    "will": 7,
}
TOTAL_CARDS = 140
HELPERS_IN_DECK = 21
EXPENSES_IN_DECK = 18
PROPERTY_COUNTS = (11, 4, 4, 5)  # per PROPERTY_TYPES
COMPANION_COUNTS = (5, 5, 5, 5)  # per COMPANIONS
CROWN_COUNTS = (6, 5, 6)  # 1, 2, 3 crowns
PLAN_COUNTS = {"2-3": 6, "4-5": 8}
OFFER_SPACES = {2: 7, 3: 8, 4: 8, 5: 9}

DEFAULT_PATH = Path(__file__).resolve().parent.parent / "data" / "cards.json"


class CardDataError(ValueError):
    """Malformed card or board data; the message names the card (or board entry) and field."""


@dataclass(frozen=True, slots=True)
class CardSpec:
    id: int
    name: str
    category: str
    deck: str
    crowns: int = 0
    family: str = ""
    play_actions: int = 0
    play_cost: int = 0
    spend: int = 0
    addons: tuple[tuple[int, int], ...] = ()
    ball: tuple[tuple[int, int], ...] = ()
    use_actions: int = -1
    slots: tuple[tuple[int, int], ...] = ()
    training: tuple[int, int, int] = (0, 0, 0)
    prop_type: int = -1
    values: tuple[int, ...] = ()
    upkeep: int = 0
    companion: int = -1
    money: int = 0
    gain_actions: int = 0
    effect: str = ""
    bonus_tags: tuple[str, ...] = ()
    bonus_amount: int = 0
    buy_surcharge_types: tuple[int, ...] = ()
    buy_surcharge: int = 0
    sale_reduction_types: tuple[int, ...] = ()
    sale_reduction: int = 0
    free_kind: str = ""
    free_per_round: int = 0
    hand_limit_bonus: int = 0
    extra_actions: int = 0
    extra_draw: str = ""
    extra_draw_count: int = 0

    @property
    def is_event(self) -> bool:
        return self.category == "event"

    @property
    def is_black(self) -> bool:
        """Black border: expense, helper (special helpers too) or property."""
        return self.category in ("expense", "helper", "property")

    @property
    def is_special(self) -> bool:
        return self.deck == "special"

    @property
    def is_house(self) -> bool:
        return self.category == "property" and self.prop_type != 0


@dataclass(frozen=True, slots=True)
class Plan:
    order: int  # 1-based turn order
    cards: int
    errand_boys: int
    actions: int


@dataclass(frozen=True, slots=True)
class Catalogue:
    cards: tuple[CardSpec, ...]
    by_name: dict[str, int]
    plans: dict[int, tuple[Plan, ...]]
    offer_schedule: dict[int, tuple[tuple[str, ...], ...]]
    shared_top_spaces: dict[int, int]
    extensions: int
    extension_capacity: dict[int, int]
    token_supply: tuple[int, int, int, int]
    modifiers: tuple[int, int, int, int]
    opera_cost: int
    hand_limit: int
    _deck_ids: dict[str, tuple[int, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        ids: dict[str, list[int]] = {}
        for c in self.cards:
            ids.setdefault(c.deck, []).append(c.id)
        object.__setattr__(self, "_deck_ids", {d: tuple(v) for d, v in ids.items()})

    def ids_in(self, deck: str) -> tuple[int, ...]:
        """Card ids whose deck == deck, ascending."""
        if deck not in ALL_DECKS:
            raise KeyError(f"unknown deck {deck!r}; expected one of {ALL_DECKS}")
        return self._deck_ids.get(deck, ())


# ---------------------------------------------------------------------------
# field schema


class _Ctx:
    """Formats error messages for one card."""

    __slots__ = ("who",)

    def __init__(self, who: str) -> None:
        self.who = who

    def fail(self, fld: str, expected: str, got: Any) -> CardDataError:
        return CardDataError(f"{self.who} field '{fld}': expected {expected}, got {got!r}")

    def missing(self, fld: str, expected: str) -> CardDataError:
        return CardDataError(
            f"{self.who} field '{fld}': required field is missing (expected {expected})"
        )


def _nonneg(ctx: _Ctx, fld: str, v: Any) -> int:
    if not is_int(v) or v < 0:
        raise ctx.fail(fld, "a non-negative integer", v)
    return v


def _use_actions(ctx: _Ctx, fld: str, v: Any) -> int:
    if not is_int(v) or v < -1:
        raise ctx.fail(fld, "an integer >= 0, or -1 for 'cannot be used'", v)
    return v


def _string(ctx: _Ctx, fld: str, v: Any) -> str:
    if not isinstance(v, str):
        raise ctx.fail(fld, "a string", v)
    return v


def _choice(allowed: tuple[str, ...]):
    def check(ctx: _Ctx, fld: str, v: Any) -> str:
        if not isinstance(v, str) or v not in allowed:
            raise ctx.fail(fld, f"one of {list(allowed)}", v)
        return v

    return check


def _index_of(allowed: tuple[str, ...]):
    def check(ctx: _Ctx, fld: str, v: Any) -> int:
        if not isinstance(v, str) or v not in allowed:
            raise ctx.fail(fld, f"one of {list(allowed)}", v)
        return allowed.index(v)

    return check


def _pairs(first: str):
    """List of [companion name, non-negative int] (first == 'companion') or [int, int] pairs."""
    desc = (
        "a list of [companion, amount] pairs with companion in "
        f"{list(COMPANIONS)} and a non-negative integer amount"
        if first == "companion"
        else "a list of [integer, integer] pairs of non-negative integers"
    )

    def check(ctx: _Ctx, fld: str, v: Any) -> tuple[tuple[int, int], ...]:
        if not isinstance(v, list):
            raise ctx.fail(fld, desc, v)
        out = []
        for item in v:
            if not isinstance(item, list) or len(item) != 2 or not is_int(item[1]) or item[1] < 0:
                raise ctx.fail(fld, desc, v)
            if first == "companion":
                if not isinstance(item[0], str) or item[0] not in COMPANIONS:
                    raise ctx.fail(fld, desc, v)
                out.append((COMPANIONS.index(item[0]), item[1]))
            else:
                if not is_int(item[0]) or item[0] < 0:
                    raise ctx.fail(fld, desc, v)
                out.append((item[0], item[1]))
        return tuple(out)

    return check


def _values(ctx: _Ctx, fld: str, v: Any) -> tuple[int, ...]:
    if not isinstance(v, list) or not v or not all(is_int(x) and x >= 0 for x in v):
        raise ctx.fail(fld, "a non-empty list of non-negative integers", v)
    return tuple(v)


def _name_list(allowed: tuple[str, ...], as_index: bool):
    desc = f"a list of distinct names from {list(allowed)}"

    def check(ctx: _Ctx, fld: str, v: Any):
        if (
            not isinstance(v, list)
            or len(set(map(repr, v))) != len(v)
            or not all(isinstance(x, str) and x in allowed for x in v)
        ):
            raise ctx.fail(fld, desc, v)
        return tuple(allowed.index(x) for x in v) if as_index else tuple(v)

    return check


_TRAINING_KEYS = ("per_farm", "per_horse", "per_dog")


def _training(ctx: _Ctx, fld: str, v: Any) -> tuple[int, int, int]:
    desc = f"an object with exactly the keys {list(_TRAINING_KEYS)}, non-negative integers"
    if (
        not isinstance(v, dict)
        or set(v) != set(_TRAINING_KEYS)
        or not all(is_int(x) and x >= 0 for x in v.values())
    ):
        raise ctx.fail(fld, desc, v)
    return tuple(v[k] for k in _TRAINING_KEYS)  # type: ignore[return-value]


# field name -> (checker/converter, description used for missing fields)
_FIELDS: dict[str, tuple[Any, str]] = {
    "name": (_string, "a string"),
    "category": (_choice(CATEGORIES), f"one of {list(CATEGORIES)}"),
    "deck": (_choice(ALL_DECKS), f"one of {list(ALL_DECKS)}"),
    "note": (_string, "a string"),
    "crowns": (_nonneg, "an integer 1..3"),
    "family": (_choice(FAMILIES), f"one of {list(FAMILIES)}"),
    "play_actions": (_nonneg, "a non-negative integer"),
    "play_cost": (_nonneg, "a non-negative integer"),
    "spend": (_nonneg, "a non-negative integer"),
    "addons": (_pairs("companion"), "a list of [companion, amount] pairs"),
    "ball": (_pairs("int"), "a list of [actions, money] pairs"),
    "use_actions": (_use_actions, "an integer >= -1"),
    "slots": (_pairs("companion"), "a list of [companion, total] pairs"),
    "training": (_training, f"an object with keys {list(_TRAINING_KEYS)}"),
    "prop_type": (_index_of(PROPERTY_TYPES), f"one of {list(PROPERTY_TYPES)}"),
    "values": (_values, "a non-empty list of non-negative integers"),
    "upkeep": (_nonneg, "a non-negative integer"),
    "companion": (_index_of(COMPANIONS), f"one of {list(COMPANIONS)}"),
    "money": (_nonneg, "a non-negative integer"),
    "gain_actions": (_nonneg, "a non-negative integer"),
    "effect": (_choice(EFFECTS), f"one of {list(EFFECTS)}"),
    "bonus_tags": (_name_list(BONUS_TAGS, False), "a list of bonus tags"),
    "bonus_amount": (_nonneg, "a non-negative integer"),
    "buy_surcharge_types": (_name_list(PROPERTY_TYPES, True), "a list of property types"),
    "buy_surcharge": (_nonneg, "a non-negative integer"),
    "sale_reduction_types": (_name_list(PROPERTY_TYPES, True), "a list of property types"),
    "sale_reduction": (_nonneg, "a non-negative integer"),
    "free_kind": (_choice(FREE_KINDS), f"one of {list(FREE_KINDS)}"),
    "free_per_round": (_nonneg, "a non-negative integer"),
    "hand_limit_bonus": (_nonneg, "a non-negative integer"),
    "extra_actions": (_nonneg, "a non-negative integer"),
    "extra_draw": (_choice(EXTRA_DRAWS), f"one of {list(EXTRA_DRAWS)}"),
    "extra_draw_count": (_nonneg, "a non-negative integer"),
}

_HELPER_PRIVILEGES = (
    "bonus_tags",
    "bonus_amount",
    "buy_surcharge_types",
    "buy_surcharge",
    "sale_reduction_types",
    "sale_reduction",
    "free_kind",
    "free_per_round",
    "hand_limit_bonus",
    "extra_actions",
    "extra_draw",
    "extra_draw_count",
)

# category -> (required fields, optional fields); name/category/deck/note always allowed,
# crowns required exactly for deck "special".
_SCHEMA: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "event": (
        ("family", "play_actions", "spend"),
        ("addons", "ball", "play_cost", "gain_actions", "effect"),
    ),
    "expense": (("family", "play_actions", "use_actions", "spend"), ("slots", "training")),
    "helper": (("play_actions",), ("spend", "use_actions") + _HELPER_PRIVILEGES),
    "property": (("prop_type", "play_actions", "use_actions", "values", "upkeep"), ("slots",)),
    "companion": (("companion",), ()),
    "joker": ((), ()),
    "will": (("money",), ()),
}

_DECKS_FOR: dict[str, tuple[str, ...]] = {
    "event": ("events", "special"),
    "expense": ("helpers",),
    "helper": ("helpers", "special"),
    "property": ("properties",),
    "companion": ("companions",),
    "joker": ("joker",),
    "will": ("will",),
}

_ALWAYS = ("name", "category", "deck", "note")


def _strictly_increasing(xs) -> bool:
    return all(a < b for a, b in zip(xs, xs[1:], strict=False))


def _parse_card(index: int, raw: Any) -> CardSpec:
    """One entry of the card data, checked: its name, category and deck, the fields allowed
    for them and each field's value, then the rules of its kind."""
    if not isinstance(raw, dict):
        raise CardDataError(f"card #{index}: expected an object, got {raw!r}")
    name = raw.get("name")
    ctx = _Ctx(f"card '{name}'" if isinstance(name, str) and name else f"card #{index}")
    if not isinstance(name, str) or not name:
        if "name" not in raw:
            raise ctx.missing("name", "a non-empty string")
        raise ctx.fail("name", "a non-empty string", name)
    category, deck = _card_kind(ctx, raw)
    _check_field_names(ctx, raw, category, deck)
    kw: dict[str, Any] = {}
    for fld, v in raw.items():
        if fld in _ALWAYS:
            if fld == "note":
                _string(ctx, fld, v)
            continue
        kw[fld] = _FIELDS[fld][0](ctx, fld, v)
    if deck == "special" and not 1 <= kw["crowns"] <= 3:
        raise ctx.fail("crowns", "an integer 1..3 for a special card", kw["crowns"])
    check = _KIND_CHECKS.get(category)
    if check is not None:
        check(ctx, raw, kw, deck)
    return CardSpec(id=index, name=name, category=category, deck=deck, **kw)


def _card_kind(ctx: _Ctx, raw: dict) -> tuple[str, str]:
    """The card's category and deck, and that the deck holds cards of that category."""
    for fld in ("category", "deck"):
        if fld not in raw:
            raise ctx.missing(fld, _FIELDS[fld][1])
    category = _FIELDS["category"][0](ctx, "category", raw["category"])
    deck = _FIELDS["deck"][0](ctx, "deck", raw["deck"])
    if deck not in _DECKS_FOR[category]:
        raise ctx.fail(
            "deck", f"one of {list(_DECKS_FOR[category])} for category '{category}'", deck
        )
    return category, deck


def _check_field_names(ctx: _Ctx, raw: dict, category: str, deck: str) -> None:
    """Every field is known and allowed for the category and deck; the required ones are
    there (crowns exactly for deck "special")."""
    required, optional = _SCHEMA[category]
    if deck == "special":
        required = required + ("crowns",)
    allowed = set(_ALWAYS) | set(required) | set(optional)
    for fld in raw:
        if fld not in _FIELDS:
            raise CardDataError(
                f"{ctx.who} field '{fld}': unknown field name (expected one of {sorted(allowed)})"
            )
        if fld not in allowed:
            raise CardDataError(
                f"{ctx.who} field '{fld}': not allowed for a card of category "
                f"'{category}' in deck '{deck}' (allowed: {sorted(allowed)})"
            )
    for fld in required:
        if fld not in raw:
            raise ctx.missing(fld, _FIELDS[fld][1])


def _check_play_actions(ctx: _Ctx, kw: dict) -> None:
    if kw["play_actions"] < 1:
        raise ctx.fail("play_actions", "an integer >= 1", kw["play_actions"])


def _check_event(ctx: _Ctx, raw: dict, kw: dict, deck: str) -> None:
    """An event: its family (none allowed only on special cards), actions and ball table."""
    fam = kw.get("family", "")
    allowed_f = EVENT_FAMILIES if deck == "events" else ("",) + EVENT_FAMILIES
    if fam not in allowed_f:
        raise ctx.fail("family", f"one of {list(allowed_f)} for an event in deck '{deck}'", fam)
    _check_play_actions(ctx, kw)
    ball = kw.get("ball", ())
    if not ball:
        return
    if not (
        _strictly_increasing([a for a, _ in ball]) and _strictly_increasing([m for _, m in ball])
    ):
        raise ctx.fail("ball", "rows with strictly increasing actions and money", raw["ball"])
    if ball[0][0] < 1 or ball[0][0] != kw["play_actions"]:
        raise ctx.fail(
            "play_actions",
            f"the first ball row's actions ({ball[0][0]}, >= 1)",
            kw["play_actions"],
        )
    if kw["spend"] != 0:
        raise ctx.fail("spend", "0 for a card with a ball table", kw["spend"])
    if kw.get("addons"):
        raise ctx.fail("addons", "no add-ons on a card with a ball table", raw["addons"])


def _check_expense(ctx: _Ctx, raw: dict, kw: dict, deck: str) -> None:
    """An expense: its family, actions, use, training rates and companion slots."""
    fam = kw.get("family", "")
    if fam not in EXPENSE_FAMILIES:
        raise ctx.fail("family", f"one of {list(EXPENSE_FAMILIES)} for an expense", fam)
    _check_play_actions(ctx, kw)
    if kw["use_actions"] < 0:
        raise ctx.fail("use_actions", "a non-negative integer for an expense", kw["use_actions"])
    if (fam == "training") != ("training" in kw):
        raise ctx.fail("training", "present exactly when family is 'training'", raw.get("training"))
    if fam == "training" and sum(kw["training"]) == 0:
        raise ctx.fail("training", "at least one positive rate", raw["training"])
    _check_slots(ctx, raw, kw, "expense")


def _check_helper(ctx: _Ctx, raw: dict, kw: dict, deck: str) -> None:
    """A helper: its actions, its enjoy spend and use, and each privilege with its amount."""
    _check_play_actions(ctx, kw)
    spend = kw.get("spend", 0)
    use = kw.get("use_actions", -1)
    if spend > 0 and use < 0:
        raise ctx.fail(
            "use_actions", "a non-negative integer for a helper with an enjoy spend", use
        )
    if spend == 0 and use != -1:
        raise ctx.fail("use_actions", "-1 (or omitted) for a helper without an enjoy spend", use)
    for tags, amount in (
        ("bonus_tags", "bonus_amount"),
        ("buy_surcharge_types", "buy_surcharge"),
        ("sale_reduction_types", "sale_reduction"),
        ("free_kind", "free_per_round"),
        ("extra_draw", "extra_draw_count"),
    ):
        if bool(kw.get(tags)) != (kw.get(amount, 0) > 0):
            raise ctx.fail(
                amount,
                f"a positive integer exactly when '{tags}' is non-empty",
                kw.get(amount, 0),
            )


def _check_property(ctx: _Ctx, raw: dict, kw: dict, deck: str) -> None:
    """A property: its actions, value track, use and companion slots."""
    _check_play_actions(ctx, kw)
    values = kw["values"]
    if any(a < b for a, b in zip(values, values[1:], strict=False)):
        raise ctx.fail("values", "a non-increasing value track", raw["values"])
    if kw["prop_type"] == 0 and len(values) != 1:
        raise ctx.fail("values", "exactly one value for a farm", raw["values"])
    if kw["use_actions"] < 0:
        raise ctx.fail("use_actions", "a non-negative integer for a property", kw["use_actions"])
    _check_slots(ctx, raw, kw, "property")


def _check_slots(ctx: _Ctx, raw: dict, kw: dict, category: str) -> None:
    """Companion slots: totals above the card's base; a property's companions fit its type."""
    slots = kw.get("slots", ())
    if not slots:
        return
    base = kw["upkeep"] if category == "property" else kw["spend"]
    totals = [base] + [t for _, t in slots]
    if not _strictly_increasing(totals):
        raise ctx.fail("slots", f"totals strictly increasing above the base £{base}", raw["slots"])
    if category == "property":
        ok = (0, 1) if kw["prop_type"] == 0 else (2, 3)
        if any(c not in ok for c, _ in slots):
            raise ctx.fail(
                "slots",
                f"companions from {[COMPANIONS[i] for i in ok]} "
                f"for a {PROPERTY_TYPES[kw['prop_type']]}",
                raw["slots"],
            )


def _check_will(ctx: _Ctx, raw: dict, kw: dict, deck: str) -> None:
    if kw["money"] <= 0:
        raise ctx.fail("money", "a positive integer", kw["money"])


# category -> the rules of that kind of card, checked after every field's own check
_KIND_CHECKS: dict[str, Callable[[_Ctx, dict, dict, str], None]] = {
    "event": _check_event,
    "expense": _check_expense,
    "helper": _check_helper,
    "property": _check_property,
    "will": _check_will,
}


# ---------------------------------------------------------------------------
# board


def _bfail(path: str, expected: str, got: Any) -> CardDataError:
    return CardDataError(f"board field '{path}': expected {expected}, got {got!r}")


def _bint(path: str, v: Any, lo: int | None = 0, hi: int | None = None) -> int:
    if not is_int(v) or (lo is not None and v < lo) or (hi is not None and v > hi):
        rng = (
            f"an integer in {lo}..{hi}"
            if hi is not None
            else f"an integer >= {lo}"
            if lo is not None
            else "an integer"
        )
        raise _bfail(path, rng, v)
    return v


def _bkeys(path: str, v: Any, keys: tuple[str, ...]) -> dict:
    if not isinstance(v, dict):
        raise _bfail(path, f"an object with keys {list(keys)}", v)
    for k in v:
        if k not in keys:
            raise CardDataError(
                f"board field '{path}.{k}': unknown field name (expected one of {list(keys)})"
            )
    for k in keys:
        if k not in v:
            raise CardDataError(f"board field '{path}.{k}': required field is missing")
    return v


_BOARD_KEYS = (
    "plans",
    "offer_schedule",
    "shared_top_spaces",
    "extensions",
    "extension_capacity",
    "token_supply",
    "modifiers",
    "opera_cost",
    "hand_limit",
)
_PC_KEYS = tuple(str(n) for n in PLAYER_COUNTS)


def _parse_board(raw: Any, cards: tuple[CardSpec, ...]) -> dict[str, Any]:
    b = _bkeys("board", raw, _BOARD_KEYS)
    out: dict[str, Any] = {}

    # plans (docs/CARDS.md §3)
    plans_raw = _bkeys("plans", b["plans"], tuple(PLAN_COUNTS))
    by_board: dict[str, tuple[Plan, ...]] = {}
    for key, n in PLAN_COUNTS.items():
        rows = plans_raw[key]
        path = f"plans.{key}"
        if not isinstance(rows, list) or len(rows) != n:
            raise _bfail(path, f"a list of {n} plan objects", rows)
        plist = []
        for i, row in enumerate(rows):
            p = f"{path}[{i}]"
            _bkeys(p, row, ("order", "cards", "errand_boys", "actions"))
            order = _bint(f"{p}.order", row["order"], i + 1, i + 1)
            plist.append(
                Plan(
                    order=order,
                    cards=_bint(f"{p}.cards", row["cards"], 0),
                    errand_boys=_bint(f"{p}.errand_boys", row["errand_boys"], 1, 2),
                    actions=_bint(f"{p}.actions", row["actions"], 1),
                )
            )
        by_board[key] = tuple(plist)
    out["plans"] = {n: by_board["2-3" if n <= 3 else "4-5"] for n in PLAYER_COUNTS}

    # offer schedule (docs/CARDS.md §4.1)
    sched_raw = _bkeys("offer_schedule", b["offer_schedule"], _PC_KEYS)
    n_special = sum(1 for c in cards if c.deck == "special")
    n_jokers = sum(1 for c in cards if c.deck == "joker")
    sched: dict[int, tuple[tuple[str, ...], ...]] = {}
    for n in PLAYER_COUNTS:
        path = f"offer_schedule.{n}"
        spaces = sched_raw[str(n)]
        want = OFFER_SPACES[n]
        if not isinstance(spaces, list) or len(spaces) != want:
            raise _bfail(path, f"a list of {want} offer spaces", spaces)
        rows = []
        for i, s in enumerate(spaces):
            if not isinstance(s, str) or len(s) != ROUNDS or not all(ch in OFFER_CODES for ch in s):
                raise _bfail(
                    f"{path}[{i}]",
                    f"a string of {ROUNDS} deck codes from "
                    f"{''.join(OFFER_CODES)} (rounds 1..{ROUNDS})",
                    s,
                )
            rows.append(tuple(s))
        total_s = sum(r.count("S") for r in rows)
        if total_s != n_special:
            raise _bfail(
                path,
                f"{n_special} special-card deals over {ROUNDS} rounds (the whole special deck)",
                total_s,
            )
        for r in range(ROUNDS):
            jokers = sum(1 for row in rows if row[r] == "J")
            if jokers > n_jokers:
                raise _bfail(path, f"at most {n_jokers} joker spaces in round {r + 1}", jokers)
        sched[n] = tuple(rows)
    out["offer_schedule"] = sched

    shared = _bkeys("shared_top_spaces", b["shared_top_spaces"], _PC_KEYS)
    out["shared_top_spaces"] = {
        n: _bint(f"shared_top_spaces.{n}", shared[str(n)], 0, 3) for n in PLAYER_COUNTS
    }
    out["extensions"] = _bint("extensions", b["extensions"], 0)
    cap = _bkeys("extension_capacity", b["extension_capacity"], _PC_KEYS)
    out["extension_capacity"] = {
        n: _bint(f"extension_capacity.{n}", cap[str(n)], 1) for n in PLAYER_COUNTS
    }
    sup = _bkeys("token_supply", b["token_supply"], COMPANIONS)
    out["token_supply"] = tuple(_bint(f"token_supply.{c}", sup[c], 0) for c in COMPANIONS)
    mods = b["modifiers"]
    if (
        not isinstance(mods, list)
        or len(mods) != len(PROPERTY_TYPES)
        or not all(is_int(m) for m in mods)
        or len(set(mods)) != len(mods)
    ):
        raise _bfail("modifiers", f"a list of {len(PROPERTY_TYPES)} distinct integers", mods)
    out["modifiers"] = tuple(mods)
    out["opera_cost"] = _bint("opera_cost", b["opera_cost"], 0)
    out["hand_limit"] = _bint("hand_limit", b["hand_limit"], 0)
    return out


# ---------------------------------------------------------------------------
# deck counts and order (docs/RULES.md §2)


def _check_counts(cards: tuple[CardSpec, ...]) -> None:
    def fail(fld: str, what: str, got: int) -> CardDataError:
        return CardDataError(f"cards field '{fld}': expected {what}, got {got}")

    for deck, n in DECK_COUNTS.items():
        got = sum(1 for c in cards if c.deck == deck)
        if got != n:
            raise fail("deck", f"{n} cards in deck '{deck}'", got)
    for cat, n in (("helper", HELPERS_IN_DECK), ("expense", EXPENSES_IN_DECK)):
        got = sum(1 for c in cards if c.deck == "helpers" and c.category == cat)
        if got != n:
            raise fail("category", f"{n} {cat} cards in deck 'helpers'", got)
    for t, n in enumerate(PROPERTY_COUNTS):
        got = sum(1 for c in cards if c.category == "property" and c.prop_type == t)
        if got != n:
            raise fail("prop_type", f"{n} properties of type '{PROPERTY_TYPES[t]}'", got)
    for t, n in enumerate(COMPANION_COUNTS):
        got = sum(1 for c in cards if c.category == "companion" and c.companion == t)
        if got != n:
            raise fail("companion", f"{n} companion cards of type '{COMPANIONS[t]}'", got)
    for k, n in enumerate(CROWN_COUNTS, start=1):
        got = sum(1 for c in cards if c.deck == "special" and c.crowns == k)
        if got != n:
            raise fail("crowns", f"{n} special cards with {k} crown(s)", got)
    if len(cards) != TOTAL_CARDS:
        raise fail("cards", f"{TOTAL_CARDS} cards in all", len(cards))


def _order_key(c: CardSpec) -> tuple[int, int]:
    deck = ALL_DECKS.index(c.deck)
    if c.deck == "helpers":
        sub = 0 if c.category == "expense" else 1
    elif c.deck == "properties":
        sub = c.prop_type
    elif c.deck == "companions":
        sub = c.companion
    elif c.deck == "special":
        sub = c.crowns
    else:
        sub = 0
    return deck, sub


def _check_order(cards: tuple[CardSpec, ...]) -> None:
    for prev, c in zip(cards, cards[1:], strict=False):
        if _order_key(c) < _order_key(prev):
            raise CardDataError(
                f"card '{c.name}' field 'deck': expected cards ordered by deck {list(ALL_DECKS)} "
                "(expenses before helpers, properties and companions by type, specials by crowns), "
                f"got it after '{prev.name}'"
            )


# ---------------------------------------------------------------------------
# entry points

_TOP_KEYS = ("format", "source", "board", "cards")
FORMAT = "lastwill-cards/1"


def parse_catalogue(data: dict) -> Catalogue:
    """Validate the decoded JSON document and build the catalogue; raises CardDataError."""
    if not isinstance(data, dict):
        raise CardDataError(
            f"card data: expected a JSON object at top level, got {type(data).__name__}"
        )
    for k in data:
        if k not in _TOP_KEYS:
            raise CardDataError(
                f"card data field '{k}': unknown field name (expected one of {list(_TOP_KEYS)})"
            )
    for k in ("format", "board", "cards"):
        if k not in data:
            raise CardDataError(f"card data field '{k}': required field is missing")
    if data["format"] != FORMAT:
        raise CardDataError(
            f"card data field 'format': expected {FORMAT!r}, got {data['format']!r}"
        )
    if "source" in data and not isinstance(data["source"], str):
        raise CardDataError(f"card data field 'source': expected a string, got {data['source']!r}")
    raw_cards = data["cards"]
    if not isinstance(raw_cards, list):
        raise CardDataError(
            f"card data field 'cards': expected a list of card objects, got {raw_cards!r}"
        )

    cards = tuple(_parse_card(i, raw) for i, raw in enumerate(raw_cards))
    by_name: dict[str, int] = {}
    for c in cards:
        if c.name in by_name:
            raise CardDataError(
                f"card '{c.name}' field 'name': expected a unique name, "
                f"got a duplicate of card #{by_name[c.name]}"
            )
        by_name[c.name] = c.id
    _check_counts(cards)
    _check_order(cards)
    board = _parse_board(data["board"], cards)
    return Catalogue(cards=cards, by_name=by_name, **board)


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict:
    out: dict = {}
    for k, v in pairs:
        if k in out:
            who = f" in card '{out['name']}'" if isinstance(out.get("name"), str) else ""
            raise CardDataError(f"card data field '{k}': duplicate key{who}")
        out[k] = v
    return out


def _load(path: Path) -> Catalogue:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise CardDataError(f"card data file {str(path)!r}: cannot be read ({e})") from e
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as e:
        raise CardDataError(f"card data file {str(path)!r}: invalid JSON ({e})") from e
    return parse_catalogue(data)


_DEFAULT: Catalogue | None = None


def load_catalogue(path: str | os.PathLike | None = None) -> Catalogue:
    """Load and validate a card data file; the packaged default is loaded once and cached."""
    global _DEFAULT
    if path is None:
        if _DEFAULT is None:
            _DEFAULT = _load(DEFAULT_PATH)
        return _DEFAULT
    return _load(Path(path))


CATALOGUE: Catalogue = load_catalogue()
