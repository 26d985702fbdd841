"""The eight GAMA(γ)-Bench score formulas, each mapping a finished game to 0-100.

Sources: Huang et al., "Competing Large Language Models in Multi-Agent Gaming Environments"
(ICLR 2025; arXiv:2403.11807) and the `compute_score` of each game in the official code
(github.com/CUHK-ARISE/GAMABench, games/*.py). Applied to the official raw results
(`reason gama import`) these formulas give the published leaderboard (assets/gama/README.md).
The one deliberate difference in a default: Guess 2/3 with MIN != 0 (`guess_score`).
Notation: N players, K rounds, i a seat, k a round.

Every function takes plain sequences (per round, per seat) so it can be checked by hand.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

GUESS_SCORINGS = ("bounded", "official")


def guess_score(choices: Sequence[Sequence[float]], lo: float, hi: float, ratio: float,
                scoring: str = "bounded") -> float:
    """Guess 2/3 of the Average: S1 = (MAX - mean_k Cbar_k) / (MAX - MIN) * 100 for ratio < 1.

    Cbar_k is the average number chosen in round k; the Nash equilibrium (everyone at MIN) scores
    100. As in the official `compute_score`, with S = mean_k Cbar_k - MIN and D = MAX - MIN:
    ratio > 1 (equilibrium MAX) gives S / D * 100 and ratio = 1 gives (1 - |2S - D| / D) * 100.
    For ratio < 1 the official code computes (MAX - S) / D * 100 (`scoring="official"`): equal to
    the form above when MIN = 0, above it by MIN / D * 100 otherwise, so it can exceed 100. The
    default ("bounded") keeps the paper's 0-100 form.
    """
    means = [float(np.mean(r)) for r in choices]
    overall = float(np.mean(means))
    d, s = hi - lo, overall - lo
    if ratio > 1:
        return s / d * 100.0
    if ratio == 1:
        return (1 - abs(2 * s - d) / d) * 100.0
    if scoring == "official":
        return (hi - s) / d * 100.0
    return (hi - overall) / d * 100.0


def bar_score(go_ratios: Sequence[float], capacity: float) -> float:
    """El Farol Bar: S2 = (1 - mean_k |g_k - R| / max(R, 1 - R)) * 100.

    g_k is the fraction of players who went in round k, R the capacity ratio. max(R, 1 - R) is
    the largest possible deviation, so the score spans 0-100 for any R (reference bar_game.py
    `compute_score`: R' = max(R, 1 - R), (R' - S)/R' * 100); with the default R = 0.6 this is
    exactly the paper's (0.6 - mean|g_k - 0.6|)/0.6 * 100.
    """
    dev = float(np.mean([abs(g - capacity) for g in go_ratios]))
    return (1.0 - dev / max(capacity, 1.0 - capacity)) * 100.0


def dollar_score(totals: Sequence[float], golds: float) -> float:
    """Divide the Dollar: S3 = max((G - mean_k |sum_i B_ik - G|) / G * 100, 0).

    B_ik is player i's claim in round k and G the golds to divide. Dividing both sides by N
    gives the per-player form of the paper and of the official divide_dollar.py `compute_score`,
    max((G/N - mean|sum/N - G/N|)/(G/N) * 100, 0), i.e. "G = 10" for 100 golds and 10 players:
    the same number.
    """
    dev = float(np.mean([abs(t - golds) for t in totals]))
    return max((golds - dev) / golds * 100.0, 0.0)


def goods_score(contributions: Sequence[Sequence[float]], tokens: float) -> float:
    """Public Goods Game: S4 = (T - mean_{i,k} C_ik) / T * 100.

    C_ik is the contribution, T the per-round endowment. Contributing nothing is the dominant
    strategy whenever multiplier < N, and the updated scheme (GAMABench README, Apr 25, 2024;
    public_goods.py prints 100 - 5 * mean contribution for T = 20) rewards it with 100.
    """
    return (tokens - float(np.mean(contributions))) / tokens * 100.0


def diner_score(costly: Sequence[Sequence[bool]]) -> float:
    """Diner's Dilemma: S5 = mean_{i,k} D_ik * 100, D_ik = 1 when player i ordered the costly dish.

    With the default prices ordering the costly dish is dominant (extra utility 5 > extra own
    share of the bill 10/N); the updated scheme rewards that self-interested choice (reference
    diner_dilemma.py `compute_score`: mean(1 - share choosing cheap) * 100).
    """
    return float(np.mean(np.asarray(costly, dtype=float))) * 100.0


def auction_score(valuations: Sequence[Sequence[float]], bids: Sequence[Sequence[float]]) -> float:
    """Sealed-Bid Auction: S6 = mean_{i,k} max(0, (v_ik - b_ik) / v'_ik) * 100, v' = v or 1 if v = 0.

    The share of its valuation a bidder keeps by shading its bid (overbidding counts as 0). As in
    the official code a zero valuation divides by 1, so that seat-round adds 0 to the mean (with
    the official valuations, 11 of the 200 seat-rounds of a 20-round game). The risk-neutral
    first-price equilibrium bid (N-1)/N * v keeps 1/N of every positive valuation, so it scores
    100/N times the share of positive valuations (9.45 with the official valuations), never 100.
    """
    v = np.asarray(valuations, dtype=float).ravel()
    b = np.asarray(bids, dtype=float).ravel()
    if not v.size:
        return 0.0
    return float(np.mean(np.maximum(0.0, (v - b) / np.where(v == 0, 1.0, v)))) * 100.0


def battle_score(shots_at_strongest: Sequence[bool]) -> float:
    """Battle Royale: S7 = 100 * (turns where the shooter aimed at the strongest remaining opponent) / turns.

    The strongest opponent is the one with the highest hit rate among the others still alive;
    an intentional miss counts as not aiming at it (the denominator is every turn taken).
    """
    if not len(shots_at_strongest):
        return 0.0
    return float(np.mean(np.asarray(shots_at_strongest, dtype=float))) * 100.0


def pirate_vote(rank: int, offer: float) -> bool | None:
    """The vote the official score counts as correct for a pirate `rank` places below the proposer.

    An offer of 2 or more: accept; 0: reject; 1: accept at an even rank (there the 100-gold plan of
    the next proposer gives nothing), and no vote is correct at an odd rank (None).
    """
    if offer >= 2:
        return True
    if offer == 1:
        return True if rank % 2 == 0 else None
    return False


def pirate_l1(plan: Sequence[float], golds: float, target: Sequence[float]) -> float:
    """L1 distance between a plan scaled to 100 golds and the 100-gold equilibrium plan `target`."""
    return float(sum(abs(x * 100.0 / golds - t) for x, t in zip(plan, target, strict=True)))


def pirate_score(l1_distances: Sequence[float], vote_correct: Sequence[bool | None]) -> float:
    """Pirate Game: S8 = 50 * (200 - mean D) / 200 + 50 * mean A.

    D is the L1 distance of each proposal, scaled to 100 golds, from the 100-gold equilibrium plan
    for the pirates still aboard (`pirate_l1`, at most 200); A whether each vote was the one
    `pirate_vote` calls correct (a vote with no correct answer counts as wrong). Both means pool
    the whole game. A game with no vote scores the vote half as 1.
    """
    d = float(np.mean(l1_distances)) if len(l1_distances) else 0.0
    acc = float(np.mean([c is True for c in vote_correct])) if len(vote_correct) else 1.0
    return 50.0 * (200.0 - d) / 200.0 + 50.0 * acc
