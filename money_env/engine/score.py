"""Final scoring and ranks (docs/games/MONEY.md §6-7)."""

from __future__ import annotations

from typing import Any

from .cards import CARDS, CURRENCY, FIRST_BLUFF, FIRST_COIN, NUM_CURRENCIES, VALUE


def currency_points(notes: list[int]) -> tuple[int, int, bool]:
    """(points, complete trios, full set) of the notes of one currency held at the end.

    §6.2-6.4: the face sum, less the cliff penalty when under the cliff (floored at 0), plus the
    trio bonus per complete trio; all nine notes score the full-set score flat (§6.5)."""
    if len(notes) == len(CARDS.note_values):
        return CARDS.full_set_score, len(CARDS.trio_values), True
    total = sum(VALUE[c] for c in notes)
    if total < CARDS.cliff:
        total = max(0, total - CARDS.cliff_penalty)
    values = [VALUE[c] for c in notes]
    trios = sum(1 for v in CARDS.trio_values if values.count(v) == 3)
    return total + trios * CARDS.trio_bonus, trios, False


def score_hand(hand: list[int]) -> dict[str, Any]:
    """The breakdown of one final hand (§6): per currency (all seven, in the data's order) the
    face sum, the points, the complete trios and whether the set is full; coin points (§6.6;
    bluffs score 0) and the total."""
    by_cur: list[list[int]] = [[] for _ in range(NUM_CURRENCIES)]
    coins = 0
    for c in hand:
        if c < FIRST_COIN:
            by_cur[CURRENCY[c]].append(c)
        elif c < FIRST_BLUFF:
            coins += VALUE[c]
    sums, points, trios, full = [], [], [], []
    for notes in by_cur:
        pts, t, f = currency_points(notes)
        sums.append(sum(VALUE[c] for c in notes))
        points.append(pts)
        trios.append(t)
        full.append(int(f))
    return {
        "currency_sums": sums,
        "currency_points": points,
        "trios": trios,
        "full_sets": full,
        "coins": coins,
        "total": sum(points) + coins,
    }


def ranks(scores: list[int]) -> list[int]:
    """Rank per seat, 0 = first; tied seats share a rank (§7): [50, 50, 20] -> [0, 0, 2]."""
    return [sum(1 for t in scores if t > x) for x in scores]


def seat_results(hands: list[list[int]]) -> list[dict[str, Any]]:
    """Per seat: `score`, `rank` (0 = first, shared on ties), `place` (the same counted from 1,
    as `gamecore.results` counts ranks: [1, 1, 3]), `win_share` (1/k for each of k seats sharing
    first place, else 0: §7) and the `scores` breakdown."""
    breakdown = [score_hand(h) for h in hands]
    totals = [b["total"] for b in breakdown]
    rk = ranks(totals)
    winners = rk.count(0)
    return [
        {
            "score": totals[p],
            "rank": rk[p],
            "place": rk[p] + 1,
            "win_share": (1.0 / winners) if rk[p] == 0 else 0.0,
            "scores": breakdown[p],
        }
        for p in range(len(hands))
    ]
