"""The flat action table of Money! (docs/games/MONEY.md §10.1).

index   kind (argument)      rule
0..36   add (card kind)      §4.1 put one more card of that kind into my hidden bid: the copy
                             with the lowest serial not yet in the bid (§8.2)
37      commit               §4.1 my bid is complete (legal once it holds a card)
38      take_right           §4.4 swap my bid for the right group
39      take_left            §4.4 swap my bid for the left group
40..43  take_bid (1..4)      §4.4 swap my bid for the bid of the seat that many places to my
                             left (relative seat), which must not have acted yet
44      keep                 §4.4 take my own bid back

A card kind is `currency * 5 + v` (v indexes the values 20, 30, 40, 50, 60), 35 a coin, 36 the
bluff (`cards.KIND`).
"""

from __future__ import annotations

from .cards import NUM_KINDS, kind_name

ADD = 0  # ADD + kind
COMMIT = NUM_KINDS  # 37
TAKE_RIGHT = COMMIT + 1  # 38
TAKE_LEFT = COMMIT + 2  # 39
TAKE_BID = COMMIT + 3  # 40: TAKE_BID + (relative seat - 1)
KEEP = TAKE_BID + 4  # 44
NUM_ACTIONS = KEEP + 1  # 45

ACTION_TABLE: tuple[tuple[str, int], ...] = (
    tuple(("add", k) for k in range(NUM_KINDS))
    + (("commit", -1), ("take_right", -1), ("take_left", -1))
    + tuple(("take_bid", r) for r in range(1, 5))
    + (("keep", -1),)
)
assert len(ACTION_TABLE) == NUM_ACTIONS


def decode(action: int) -> tuple[str, int]:
    """(kind, argument) of an action index."""
    if not isinstance(action, int) or isinstance(action, bool) or not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action {action!r} is outside the action table 0..{NUM_ACTIONS - 1}")
    return ACTION_TABLE[action]


def describe_action(action: int) -> str:
    """A readable name: `bid Euro 20`, `bid coin`, `commit bid`, `take bid of seat +2`..."""
    kind, arg = decode(action)
    if kind == "add":
        return f"bid {kind_name(arg)}"
    if kind == "take_bid":
        return f"take bid of seat +{arg}"
    return {
        "commit": "commit bid",
        "take_right": "take right group",
        "take_left": "take left group",
        "keep": "keep own bid",
    }[kind]


def action_table_text() -> str:
    """The whole table, one `index  name` line per action."""
    return "\n".join(f"{i:4d}  {describe_action(i)}" for i in range(NUM_ACTIONS))
