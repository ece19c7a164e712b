"""Money! as text for a person at a terminal (`lastwill play --game money`, `apps.tableplay`).

Everything here reads one seat's `PlayerView` (docs/games/MONEY.md §9) and nothing else, so a
picture can show only what that seat may know: another seat's bid is never in a view before the
reveal, not even its size. Seats are named by their absolute number (``P2``), the viewer ``you``.

- `view_text(view)`: the picture: the round and whose turn it is; the hand by currency with each
  currency's sum and what it would score (docs/games/MONEY.md §6), the own hidden bid marked;
  both groups; the pile's size; each other seat's hand size and known cards; in the exchange the
  revealed bids, what lies on the table and the order still to act; at the end every hand with
  its score and place.
- `move_text(view, action)`: one legal action in the context of the view (the bid's value
  before and after, the cards an exchange brings and what the hand would then score).
- `change_text(before, after)`: what changed between two views of one seat: the reveal with the
  exchange order, each exchange, the refill and a new round, the end. Exact for views one action
  apart (how `apps.tableplay` calls it); a summary of the groups and hands otherwise.
- `help_text(view)`: the rules page and what the current phase is about.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .engine import (
    ADD,
    BID_PHASE,
    COMMIT,
    EXCHANGE_PHASE,
    GAME_OVER,
    KEEP,
    TAKE_BID,
    TAKE_LEFT,
    TAKE_RIGHT,
    PlayerView,
    decode,
    kind_name,
)
from .engine.cards import (
    BLUFF_KIND,
    CARDS,
    COIN_KIND,
    CURRENCY,
    FIRST_BLUFF,
    FIRST_COIN,
    KIND,
    NUM_CURRENCIES,
    VALUE,
)
from .engine.score import currency_points, score_hand

RULES_PAGE = "docs/games/MONEY.md"


# ---------------------------------------------------------------------------------------------
# Words


def count_of(k: int, noun: str) -> str:
    """The count with its noun in the right number: "1 card", "2 cards"."""
    return f"{k} {noun if k == 1 else noun + 's'}"


def ordinal(k: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def who(view: PlayerView, rel: int) -> str:
    """``you`` for the viewer, else the seat's absolute name ``P2``."""
    return "you" if rel == 0 else f"P{view.absolute(rel)}"


def _their(view: PlayerView, rel: int) -> str:
    return "your" if rel == 0 else "its"


def bid_value(cards: Iterable[int]) -> int:
    """The printed values of the notes and coins (docs/games/MONEY.md §4.3)."""
    return sum(VALUE[c] for c in cards)


def cards_text(cards: Iterable[int]) -> str:
    """``Euro 20 20 30, Yen 40, 2 coins, bluff``: notes by currency (values ascending), then
    the coins and the bluff; ``nothing`` for no card."""
    by_cur: dict[int, list[int]] = {}
    coins = bluffs = 0
    for c in sorted(cards):
        if c < FIRST_COIN:
            by_cur.setdefault(CURRENCY[c], []).append(VALUE[c])
        elif c < FIRST_BLUFF:
            coins += 1
        else:
            bluffs += 1
    parts = [f"{CARDS.currencies[k]} {' '.join(map(str, v))}" for k, v in sorted(by_cur.items())]
    if coins:
        parts.append(count_of(coins, "coin"))
    if bluffs:
        parts.append("bluff" if bluffs == 1 else count_of(bluffs, "bluff"))
    return ", ".join(parts) or "nothing"


def bid_text(cards: Sequence[int], bluffed: bool = False) -> str:
    """A bid with its value: ``Euro 20, 1 coin (value 30)``; ``+ bluff`` when it held it."""
    if not cards:
        return "the bluff only: sits the round out" if bluffed else "nothing"
    return f"{cards_text(cards)}{' + bluff' if bluffed else ''} (value {bid_value(cards)})"


# ---------------------------------------------------------------------------------------------
# The hand and what it scores


def _scoring_note(notes: list[int]) -> str:
    """Why a currency scores what it does (docs/games/MONEY.md §6)."""
    pts, trios, full = currency_points(notes)
    if full:
        return f"all nine notes: {pts}"
    why = []
    if sum(VALUE[c] for c in notes) < CARDS.cliff:
        why.append(f"under {CARDS.cliff}: -{CARDS.cliff_penalty}")
    if trios:
        why.append(f"{count_of(trios, 'trio')} +{trios * CARDS.trio_bonus}")
    return f"scores {pts}" + (f" ({'; '.join(why)})" if why else "")


def hand_lines(hand: Sequence[int], marked: Sequence[int] = ()) -> list[str]:
    """One line per currency held (values, sum, what it scores), the coins and the bluff;
    cards in ``marked`` (the own hidden bid) carry a ``*``."""
    lines = []
    for k in range(NUM_CURRENCIES):
        notes = [c for c in sorted(hand) if CURRENCY[c] == k]
        if not notes:
            continue
        values = " ".join(f"{VALUE[c]}{'*' if c in marked else ''}" for c in notes)
        total = sum(VALUE[c] for c in notes)
        lines.append(f"  {CARDS.currencies[k]:<7} {values} = {total}, {_scoring_note(notes)}")
    coins = [c for c in hand if FIRST_COIN <= c < FIRST_BLUFF]
    if coins:
        stars = "".join("*" for c in coins if c in marked)
        lines.append(
            f"  {count_of(len(coins), 'coin')}{' (' + stars + ')' if stars else ''} = "
            f"{bid_value(coins)}, always counted"
        )
    if any(c >= FIRST_BLUFF for c in hand):
        star = "*" if any(c >= FIRST_BLUFF for c in marked) else ""
        lines.append(f"  bluff{star} (scores 0)")
    return lines


def _own_lines(view: PlayerView) -> list[str]:
    hand = view.hand
    score = score_hand(list(hand))["total"]
    lines = [
        f"Your hand (P{view.seat}): {count_of(len(hand), 'card')}; it would score {score} "
        "if the game ended now"
    ]
    lines += hand_lines(hand, view.bid)
    if view.phase == BID_PHASE:
        lines.append(
            f"Your bid, hidden from the others (* above): {bid_text(view.bid)}"
            if view.bid
            else "Your bid, hidden from the others: nothing yet"
        )
    return lines


# ---------------------------------------------------------------------------------------------
# The table


def acting_order(view: PlayerView) -> list[int]:
    """Relative seats with a bid on the table that have not acted, in acting order: the highest
    value first, a tie to the bid holding the lowest serial (docs/games/MONEY.md §4.3)."""
    seats = [r for r in range(view.num_players) if view.table[r] and not view.acted[r]]
    return sorted(seats, key=lambda r: (-bid_value(view.table[r]), min(view.table[r])))


def _heading(view: PlayerView) -> str:
    last = " (the last round)" if view.last_round else ""
    if view.phase == GAME_OVER:
        return f"Money! game over after round {view.round}"
    if view.phase == BID_PHASE:
        turn = "your turn to bid" if view.to_act == 0 else f"{who(view, view.to_act)} is bidding"
        first = who(view, view.first_bidder)
        return f"Money! round {view.round}{last}, bids ({first} bid first): {turn}"
    turn = "your turn" if view.to_act == 0 else f"{who(view, view.to_act)} to act"
    return f"Money! round {view.round}{last}, exchange: {turn}"


def _table_lines(view: PlayerView) -> list[str]:
    lines = [
        f"Right group: {bid_text(view.right)}",
        f"Left group:  {bid_text(view.left)}",
        f"Pile: {count_of(view.pile_size, 'card')}",
    ]
    for r in range(1, view.num_players):
        lines.append(
            f"{who(view, r)}: {count_of(view.hand_sizes[r], 'card')} in hand; known: "
            f"{cards_text(view.known_hands[r])}"
        )
    return lines


def _exchange_lines(view: PlayerView) -> list[str]:
    lines = ["Bids revealed this round:"]
    for r in range(view.num_players):
        now = ""
        if view.acted[r]:
            now = "; acted"
        elif view.table[r] and sorted(view.table[r]) != sorted(view.revealed[r]):
            now = f"; now holds {bid_text(view.table[r])}"
        lines.append(f"  {who(view, r)}: {bid_text(view.revealed[r], view.bluffed[r])}{now}")
    order = acting_order(view)
    if order:
        lines.append("Still to act, in order: " + ", ".join(who(view, r) for r in order))
    return lines


def _final_lines(view: PlayerView) -> list[str]:
    lines = []
    res = view.results or ()
    for r in range(view.num_players):
        place = res[r]["place"]
        shared = sum(1 for x in res if x["place"] == place) > 1
        lines.append(
            f"{who(view, r)}: {ordinal(place)} place{' (shared)' if shared else ''}, "
            f"score {res[r]['score']}"
        )
        lines += hand_lines(view.final_hands[r])
    return lines


def view_text(view: PlayerView) -> str:
    """The whole picture of what the view's seat may know (module docstring)."""
    lines = [_heading(view)]
    if view.phase == GAME_OVER:
        return "\n".join(lines + _final_lines(view))
    lines += _own_lines(view)
    if view.phase == EXCHANGE_PHASE:
        lines += _exchange_lines(view)
    lines += _table_lines(view)
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Moves


def _would_score(view: PlayerView, cards: Sequence[int]) -> str:
    return f"your hand would score {score_hand(list(view.hand) + list(cards))['total']}"


def _bid_move(view: PlayerView, kind: int) -> str:
    if kind == BLUFF_KIND:
        return "add your bluff to the bid (worth 0; a bid of only the bluff sits the round out)"
    now = bid_value(view.bid)
    card = next(c for c in sorted(view.hand) if c not in view.bid and KIND[c] == kind)
    what = "a coin" if kind == COIN_KIND else kind_name(kind)
    return f"add {what} to the bid: value {now} -> {now + VALUE[card]}"


def _commit_move(view: PlayerView) -> str:
    notes = [c for c in view.bid if c < FIRST_BLUFF]
    bluffed = len(notes) < len(view.bid)
    if not notes:
        return "commit the bid: the bluff only (you sit this round out)"
    return f"commit the bid: {bid_text(notes, bluffed)}"


def move_text(view: PlayerView, action: int) -> str:
    """A legal action of the view's seat, said in its context (module docstring)."""
    kind, arg = decode(action)
    if kind == "add":
        return _bid_move(view, action - ADD)
    if action == COMMIT:
        return _commit_move(view)
    own = view.table[0]
    if action in (TAKE_RIGHT, TAKE_LEFT):
        side = "right" if action == TAKE_RIGHT else "left"
        group = view.right if action == TAKE_RIGHT else view.left
        return (
            f"take the {side} group: {bid_text(group)}; your bid goes there; "
            f"{_would_score(view, group)}"
        )
    if TAKE_BID <= action < KEEP:
        other = who(view, arg)
        return (
            f"take {other}'s bid: {bid_text(view.table[arg])}; {other} gets yours and acts "
            f"next; {_would_score(view, view.table[arg])}"
        )
    return f"keep your bid: {cards_text(own)} back into your hand; {_would_score(view, own)}"


# ---------------------------------------------------------------------------------------------
# What changed


def _reveal_lines(view: PlayerView) -> list[str]:
    lines = [f"round {view.round}: the bids are revealed"]
    for r in range(view.num_players):
        lines.append(f"  {who(view, r)}: {bid_text(view.revealed[r], view.bluffed[r])}")
    order = acting_order(view)
    lines.append(
        "exchange order: " + ", ".join(who(view, r) for r in order)
        if order
        else "nobody has a bid on the table: no exchange this round"
    )
    return lines


def _start(before: PlayerView, after: PlayerView) -> tuple | None:
    """What lay on the table when the exchanges seen between the views began: ``(table, known,
    acted)`` per relative seat, or None when no exchange can lie between them."""
    if before.phase == EXCHANGE_PHASE:
        return before.table, before.known_hands, before.acted
    if before.phase == BID_PHASE and after.phase == EXCHANGE_PHASE and after.round == before.round:
        known = tuple(
            tuple(c for c in k if c not in rev)
            for k, rev in zip(before.known_hands, after.revealed, strict=True)
        )
        return after.revealed, known, (False,) * before.num_players
    return None


def _one_exchange(before: PlayerView, after: PlayerView, start: tuple, r: int) -> str:
    """What relative seat ``r`` did with its bid, read from the cards it took face up."""
    table, known, _ = start
    bid = tuple(sorted(table[r]))
    gained = tuple(sorted(set(after.known_hands[r]) - set(known[r])))
    name, its = who(after, r), _their(after, r)
    for side, group in (("right", before.right), ("left", before.left)):
        if gained == tuple(sorted(group)):
            return (
                f"{name} took the {side} group ({cards_text(gained)}); {its} bid "
                f"({cards_text(bid)}) is the {side} group now"
            )
    if gained == bid:
        return f"{name} kept {its} bid ({cards_text(bid)})"
    for q in range(after.num_players):
        if q != r and table[q] and gained == tuple(sorted(table[q])):
            whose = "your" if r == 0 else f"{name}'s"
            return (
                f"{name} took {who(after, q)}'s bid ({cards_text(gained)}); {who(after, q)} "
                f"now holds {whose} bid ({cards_text(bid)}) and acts next"
            )
    return f"{name} took {cards_text(gained)} into {its} hand"


def _exchanges(before: PlayerView, after: PlayerView) -> list[str]:
    start = _start(before, after)
    if start is None:
        return []
    table, _, acted = start
    moved_on = after.round != before.round or after.phase != EXCHANGE_PHASE
    done = [
        r
        for r in range(after.num_players)
        if table[r] and not acted[r] and (moved_on or after.acted[r])
    ]
    return [_one_exchange(before, after, start, r) for r in done]


def _refill_lines(before: PlayerView, after: PlayerView) -> list[str]:
    seen = set(before.right) | set(before.left)
    seen |= {c for t in before.table for c in t} | {c for t in after.revealed for c in t}
    lines = []
    for side, group in (("right", after.right), ("left", after.left)):
        new = [c for c in group if c not in seen]
        if new:
            lines.append(f"the {side} group got {cards_text(new)} from the pile")
    return lines


def _new_round_lines(after: PlayerView) -> list[str]:
    lines = [
        f"round {after.round} began: {who(after, after.first_bidder)} bids first; right group "
        f"{cards_text(after.right)}; left group {cards_text(after.left)}; pile "
        f"{count_of(after.pile_size, 'card')}"
    ]
    if after.last_round:
        why = "the pile is empty" if after.pile_size == 0 else "the round limit"
        lines.append(f"this is the last round ({why})")
    return lines


def change_text(before: PlayerView, after: PlayerView) -> str:
    """What changed between two views of one seat (module docstring), one line each; "" when
    nothing that seat may see did (another seat adding to its hidden bid, for one)."""
    lines: list[str] = []
    if before.phase == BID_PHASE and (after.phase != BID_PHASE or after.round != before.round):
        if after.phase == EXCHANGE_PHASE and after.round == before.round:
            lines += _reveal_lines(after)
        else:
            lines.append(f"round {before.round}: every bid was the bluff only; no exchange")
    lines += _exchanges(before, after)
    if after.round != before.round and after.phase != GAME_OVER:
        lines += _refill_lines(before, after)
        lines += _new_round_lines(after)
    if after.phase == GAME_OVER and before.phase != GAME_OVER:
        lines.append("the game is over: every hand is shown and scored")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Help

PHASE_HELP = {
    BID_PHASE: "bids: build a secret bid from your hand, one card at a time (notes, coins, your "
    "bluff), then commit it. Nobody learns anything of a bid, not even its size, until every bid "
    "is revealed at once. A bluff adds nothing and comes back to your hand; a bid of only the "
    "bluff sits the round out.",
    EXCHANGE_PHASE: "exchange: the highest bid acts first (a tie goes to the bid with the lowest "
    "serial). On your turn take the right or the left group (your bid takes its place), take "
    "the bid of a seat that has not acted yet (it gets your bid and acts next), or keep your "
    "bid. Then the groups are refilled to 4 from the pile.",
    GAME_OVER: "the game is over: the pile ran out.",
}

SCORING_HELP = (
    "Scoring at the end: per currency the sum of its notes; under 200 loses 100 (not below 0); "
    "all three 20s or all three 30s of a currency add 100 each; all nine notes score 500; coins "
    "10 each; the bluff 0. The game ends when the pile runs out: the round after a refill that "
    "empties it is the last."
)


def help_text(view: PlayerView) -> str:
    """The rules page, what the current phase is about and how the game is scored."""
    return "\n".join(
        [f"Money! rules: {RULES_PAGE}", f"Now: {PHASE_HELP[view.phase]}", SCORING_HELP]
    )
