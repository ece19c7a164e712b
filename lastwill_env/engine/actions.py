"""The flat action table: one integer per decision the game can ask for (docs/DESIGN.md).

Composite choices of docs/RULES.md are split into sequential decisions, each a row of this table:

kind (argument): rule
- pass: end the turn / stop an optional series / skip an add-on or an errand boy
- keep (card): §3.7 keep one of the six starting cards (twice)
- block (plan space): §4.2 two players: block a plan space with a neutral marker
- plan (plan space): §4.2 choose a plan
- draw (deck): §4.2 one plan card from a deck, decided before any is seen; §4.3 unknown card
- errand (space): §4.3 an errand boy on offer spaces 1-9, extension, market, unknown, opera
- market (permutation): §4.3 rearrange the four modifier tiles (24 orders)
- play (card): §4.4 play a card from hand (event, helper, expense; a property = buy)
- use (card): §4.4 use a board card: maintain a property, enjoy an expense or helper
- sell (card): §4.4 sell a property
- attach_card / attach_joker (card): §4.4 a companion / joker onto the card's next slot
- addon_card / addon_joker: §4.4 a companion / joker for the event's next add-on
- ball (actions 2-7): §4.4 Ball table: actions invested
- room (card): §4.4 discard a placed helper or expense to make room
- wild_party (house): special card: one depreciation step on that house
- discard (card) / discard_companion (type): §6.1 discard down to the hand limit
- use_option (option 0-3): §4.4 the option of the used board card: 0 its printed amount, k the
  option of its k-th companion slot (offered when slots 1..k are filled); appended last (v1)

Identical companion cards are referred to by their type, never by copy, so no two legal actions
have the same effect.
"""

from __future__ import annotations

from itertools import permutations

from .cards import CATALOGUE, COMPANIONS, DECKS

CARDS = CATALOGUE.cards
MAX_PLAN_SPACES = 8
MAX_OFFER_SPACES = 9
ERRAND_EXTENSION = MAX_OFFER_SPACES
ERRAND_MARKET = MAX_OFFER_SPACES + 1
ERRAND_UNKNOWN = MAX_OFFER_SPACES + 2
ERRAND_OPERA = MAX_OFFER_SPACES + 3
NUM_ERRAND_SPACES = MAX_OFFER_SPACES + 4
ERRAND_NAMES = tuple(f"offer space {i + 1}" for i in range(MAX_OFFER_SPACES)) + (
    "board extension",
    "property market",
    "unknown card",
    "opera",
)
MARKET_PERMUTATIONS: tuple[tuple[int, int, int, int], ...] = tuple(permutations(range(4)))
BALL_ACTIONS = tuple(range(2, 8))

_table: list[tuple[str, int]] = [("pass", -1)]


def _segment(kind: str, args) -> dict[int, int]:
    out = {}
    for a in args:
        out[a] = len(_table)
        _table.append((kind, a))
    return out


def _ids(pred) -> list[int]:
    return [c.id for c in CARDS if pred(c)]


KEEP = _segment("keep", _ids(lambda c: c.deck in ("helpers", "properties")))
BLOCK = _segment("block", range(MAX_PLAN_SPACES))
PLAN = _segment("plan", range(MAX_PLAN_SPACES))
DRAW = _segment("draw", range(len(DECKS)))
ERRAND = _segment("errand", range(NUM_ERRAND_SPACES))
MARKET = _segment("market", range(len(MARKET_PERMUTATIONS)))
_PLAYABLE = _ids(lambda c: c.category in ("event", "expense", "helper", "property"))
PLAY = _segment("play", _PLAYABLE)
USE = _segment("use", _ids(lambda c: c.use_actions >= 0))
SELL = _segment("sell", _ids(lambda c: c.category == "property"))
ATTACH_CARD = _segment("attach_card", _ids(lambda c: len(c.slots) > 0))
ATTACH_JOKER = _segment("attach_joker", _ids(lambda c: len(c.slots) > 0))
ADDON_CARD = _segment("addon_card", [-1])[-1]
ADDON_JOKER = _segment("addon_joker", [-1])[-1]
BALL = _segment("ball", BALL_ACTIONS)
ROOM = _segment("room", _ids(lambda c: c.category in ("expense", "helper")))
WILD_PARTY = _segment("wild_party", _ids(lambda c: c.category == "property" and c.prop_type != 0))
DISCARD = _segment("discard", _PLAYABLE)
DISCARD_COMPANION = _segment("discard_companion", range(len(COMPANIONS)))
MAX_SLOTS = max(len(c.slots) for c in CARDS)
USE_OPTION = _segment("use_option", range(MAX_SLOTS + 1))
PASS = 0

ACTION_TABLE: tuple[tuple[str, int], ...] = tuple(_table)
NUM_ACTIONS = len(ACTION_TABLE)
ACTION_INDEX: dict[tuple[str, int], int] = {row: i for i, row in enumerate(ACTION_TABLE)}
ACTION_KINDS: tuple[str, ...] = tuple(dict.fromkeys(k for k, _ in ACTION_TABLE))
_CARD_KINDS = {
    "keep",
    "play",
    "use",
    "sell",
    "attach_card",
    "attach_joker",
    "room",
    "wild_party",
    "discard",
}


def encode(kind: str, arg: int = -1) -> int:
    """Action index of (kind, argument); raises a ValueError naming the allowed kinds."""
    try:
        return ACTION_INDEX[(kind, arg)]
    except KeyError:
        if kind not in ACTION_KINDS:
            raise ValueError(
                f"unknown action kind {kind!r}; kinds: {', '.join(ACTION_KINDS)}"
            ) from None
        allowed = sorted(a for k, a in ACTION_TABLE if k == kind)
        raise ValueError(
            f"action kind {kind!r} has no argument {arg!r}; allowed: {allowed}"
        ) from None


def decode(action: int) -> tuple[str, int]:
    """(kind, argument) of an action index."""
    if not isinstance(action, int) or not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action {action!r} is outside the action table 0..{NUM_ACTIONS - 1}")
    return ACTION_TABLE[action]


def describe_action(action: int) -> str:
    """A readable name, e.g. `play Farm_3` or `errand opera`."""
    kind, arg = decode(action)
    if kind in _CARD_KINDS:
        return f"{kind} {CARDS[arg].name}"
    if kind in ("block", "plan"):
        return f"{kind} space {arg + 1}"
    if kind == "draw":
        return f"draw from {DECKS[arg]}"
    if kind == "errand":
        return f"errand {ERRAND_NAMES[arg]}"
    if kind == "market":
        return f"market order {MARKET_PERMUTATIONS[arg]}"
    if kind == "ball":
        return f"ball invest {arg} actions"
    if kind == "discard_companion":
        return f"discard a {COMPANIONS[arg]}"
    if kind == "use_option":
        return "use option: printed amount" if arg == 0 else f"use option: slot {arg}"
    return kind


def action_table_text() -> str:
    """The whole table, one `index  name` line per action."""
    return "\n".join(f"{i:4d}  {describe_action(i)}" for i in range(NUM_ACTIONS))
