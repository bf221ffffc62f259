"""Alpha-beta search: ``search(board, limits) -> SearchResult``.

Gomoku positions go to the numba kernels in ``engine.search._kernels``: a threat-space solver (VCF,
then VCT) at the root, then PVS with iterative deepening, aspiration windows, a transposition
table, killers and history, with forced-move generation (only blocks against a four, only
defences and own fours against an open three) and a VCF probe at the leaves (at full strength
a deeper one along the lines of the last four, whose proofs enter the table). The small games
(tic-tac-toe, gravity three, Connect Four) go to an exact solver in ``engine.search._small``.

Scores are from the side to move's view; a forced win in ``n`` plies is ``WIN - n``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import numpy as np

from engine.board import Board
from engine.errors import GameOverError
from engine.search import _kernels as k
from engine.search import _small
from engine.search._position import MIN_TT_SIZE, TT_SIZE, Position, forget_kept
from engine.settings import rules_setting
from engine.settings import setting as _setting
from engine.types import Color, Point, Rule

__all__ = [
    "WIN",
    "Limits",
    "SearchOptions",
    "SearchResult",
    "forget_tables",
    "is_win_score",
    "search",
    "threat_proof",
    "tt_size",
    "wins_by_threats",
]

WIN = k.WIN  # the score of a five on the board; forced wins are WIN - plies
MAX_DEPTH = 60
# Time: the hard limit stops the search wherever it is (the kernels check the clock every few
# hundred nodes, and the protocol's budget already keeps its own margin below the turn time);
# the soft limit is the share of the budget after which no new iteration starts. An iteration
# cut short still searches the previous best move first and keeps a move that beats it.
_TIME_SAFETY = 0.97  # hard limit, as a share of the budget
_ROOT_VCF_DEPTH = 12  # attacking fours
_ROOT_VCT_DEPTH = 5  # attacking fours and threes
# master's deeper root VCT (``SearchOptions.deep_root_vct``): Rapfi judged several of master's
# lost games against Wine 2.1 thrown away from a forced win, some of them a win by threes 7-9
# attacking moves deep; its budget, in units of the shallow probe's
_DEEP_VCT_BUDGET = 2
# selectivity (``SearchOptions.selective``, master's): late quiet moves are skipped, and calm
# nodes near the horizon are cut by their static value. The evaluation gives the side to move
# a tempo worth about 650 (the best quiet move's value is typically that much below the static
# value of the node it is played from), hence the wide margin above beta; below alpha a calm
# node whose static value (tempo included) is already there is razored, which still runs the
# leaf's VCF probe. Chosen among a few settings by fixed-node self-play and the hard defences
# of the tactics suite (razoring margins of 200 and 400 a ply each lost one of them).
_SELECT = k.SEL_LMP | k.SEL_FUTILITY
# Late-move reductions and mate-distance pruning (k.SEL_LMR, k.SEL_MATE) are built and tested
# but off with the hand-set order: they win at fixed nodes (below) and master reaches a ply
# deeper, yet at 500 ms a move, together with the deeper root VCT, they lost ground against
# Wine 2.1, PentaZen and Rapfi (docs/engine.md, "How it searches"). Where the learned policy
# orders, master reduces by its rank instead (_POL_LMR, below).
_SELECT_TRIED = k.SEL_LMR | k.SEL_MATE
_LMP_BASE = 3  # quiet moves searched at remaining depth d: _LMP_BASE + d * d
# late-move reductions (k.SEL_LMR): ln(depth) * ln(move number) * _LMR_SCALE / 100 plies, a
# ply less at PV nodes, for killers and for moves making or stopping a three; fours never.
# Scales 100 and 150 scored alike against main at fixed nodes (58/0/38 over 96 games, 41/0/23
# over 64) and 150 beat 100 by 18/0/14; 150 reaches a ply deeper on the same nodes
_LMR_SCALE = 150
_FUTILITY_MARGIN = 800  # above beta, per ply of depth, in evaluation units
_RAZOR_MARGIN = 0  # below alpha, per ply of depth
_SOLVED_CELLS = 16  # small boards up to this size are searched to the end
_SMALL_DEFAULT_DEPTH = 12  # Connect Four plies when no limit is given
# what a brain process holds before its first search (interpreter, numpy, numba, compiled
# kernels, pattern tables): 182 MB resident after a first search, 17 MB of it its tables
_BASE_MEMORY = 160 * 2**20
_TT_ENTRY_BYTES = 16


# the soft time limit in thousandths of the budget: no new iteration starts after it
_SOFT_TIME = _setting("GOMOKU_SOFT_TIME", 600, most=1000) / 1000
# 1: a node limit has a soft limit as the time has, the same share of it, so that a search at
# a fixed node count ends where a timed one would, after the iteration that passes the share,
# not part-way through the last one; for measuring at fixed nodes what the clock would judge
# (0, the default: every iteration until the node limit)
_SOFT_NODES = _setting("GOMOKU_SOFT_NODES", 0, most=1)


# with the learned policy's order (k.G_POL_*, master's in evaluate.POLICY_RULES): quiet moves
# searched at remaining depth d (the late-move base, as _LMP_BASE); a quiet move more than
# _POL_CUT logits below the best candidate's score is not searched (chosen by fixed-node matches,
# docs/engine.md); _POL_RED logits below it cost a ply of depth (0: the reductions by move
# number); _POL_WIDTH candidates a node (0: the options' width)
_POL_LMP_BASE = _setting("GOMOKU_POLICY_LMP", _LMP_BASE)
_POL_CUT = _setting("GOMOKU_POLICY_CUT", 3)
_POL_RED = _setting("GOMOKU_POLICY_RED", 0)
_POL_WIDTH = _setting("GOMOKU_POLICY_WIDTH", 0)
# late-move reductions (k.SEL_LMR) by the policy's rank at this scale, in place of the
# reductions by move number and of _POL_RED (0: off), in the rules of _POL_LMR_RULES. In
# freestyle at 500 ms a move against PentaZen 0.4.17, 150 scored +7.6 +- 2.7 points over 256
# games paired with it off, and node for node against Rapfi 0.43.02 classical +0.037 +- 0.016
# a game over 1,024 at 20,000 nodes and +3.9 +- 2.6 points over 256 at 200,000; in standard
# (freestyle's network and policy) +5.3 +- 2.5 points over 384 at 500 ms against PentaZen and
# +1.8 +- 2.5 over 384 at 20,000 nodes against Rapfi (docs/engine.md, "Freestyle's reductions
# in standard"); scales 100 and 220 scored below 150 at 20,000 nodes ("Around the
# reductions"); with the hand-set order (renju, caro, the levels below master) they stay off
# everywhere (_SELECT_TRIED). GOMOKU_POLICY_LMR_RULES (comma-separated rule names) chooses the
# rules for measuring, as GOMOKU_POLICY_RULES does the policy's
_POL_LMR = _setting("GOMOKU_POLICY_LMR", 150)
_POL_LMR_RULES: Final = frozenset({Rule.FREESTYLE, Rule.STANDARD})


# null-move pruning (k.G_NULL) in the selective search: at non-PV nodes of at least
# _NULL_DEPTH plies to go whose static value is above beta and whose side to move faces no
# four, open three, four-three or double three, a pass searched _NULL_R plies shallower that
# still fails high cuts the node (0: off). Off: node for node against Rapfi 0.43.02 classical
# R = 2 scored -0.005 +- 0.012 a game over 512 games paired with it off at 20,000 nodes and
# -0.031 +- 0.020 over 256 at 40,000, R = 3 and R = 2 from depth 2 no better (docs/engine.md,
# "Settings screened against Rapfi")
_NULL_R = _setting("GOMOKU_NULL_MOVE", 0, most=8)
_NULL_DEPTH = _setting("GOMOKU_NULL_DEPTH", 3, most=60)
# the selective search's late-move pruning and reverse futility, for measuring: quiet moves
# searched at remaining depth d grow as d ** (GOMOKU_LMP_POW / 100) (0, the default: d * d),
# and a calm node near the horizon whose static value is GOMOKU_FUTILITY a ply above beta is cut.
# Node for node against Rapfi 0.43.02 classical at 20,000 nodes, over 128 games paired with
# master as shipped, 132 scored -0.027 +- 0.038 a game and a margin of 300 +0.008 +- 0.039
# (docs/engine.md, "Settings screened against Rapfi")
_LMP_POW = _setting("GOMOKU_LMP_POW", 0, most=300)
_FUTILITY = _setting("GOMOKU_FUTILITY", _FUTILITY_MARGIN, most=10000)
# three cheap selectivity settings: internal iterative reduction (k.G_IIR), a node of at
# least _IIR plies to go with no move from the table searched a ply shallower (0: off);
# reverse futility and razoring (k.SEL_FUTILITY) up to _FUT_DEPTH plies from the horizon; and
# a quiet-move cut of _POL_CUT_LOW logits in place of _POL_CUT at 1-2 plies to go (0: off).
# Off: node for node against Rapfi 0.43.02 classical at 20,000 nodes, paired with master as
# shipped, _IIR = 4 scored +0.007 +- 0.017 a game and 3 +0.003 +- 0.019 over 512 games,
# _POL_CUT_LOW = 2 +0.011 +- 0.014 over 512, _FUT_DEPTH = 3 -0.012 +- 0.028 over 256; at
# 40,000 nodes _IIR = 4 -0.021 +- 0.018 and _POL_CUT_LOW = 2 -0.012 +- 0.017 over 512
# (docs/engine.md, "Settings screened against Rapfi")
_IIR = _setting("GOMOKU_IIR", 0, most=60)
_FUT_DEPTH = _setting("GOMOKU_FUTILITY_DEPTH", 2, most=60)
_POL_CUT_LOW = _setting("GOMOKU_POLICY_CUT_LOW", 0)
# late-move pruning at a node whose static value has not risen over two plies keeps this
# percentage of the quiet moves it would search (k.G_LMP_IMPROVE; 0, the default: off). Off:
# node for node against Rapfi 0.43.02 classical at 20,000 nodes, paired with master as shipped
# over 128 games, 50 scored -1.6 +- 4.0 points a game and 70 -8.6 +- 3.5 (docs/engine.md,
# "Fewer late moves where the static value has not risen")
_LMP_IMPROVE = _setting("GOMOKU_LMP_IMPROVE", 0, most=100)
# reverse futility also where only the side to move threatens to win (k.G_FUT_OWN; 0: off).
# Off: node for node against Rapfi 0.43.02 classical at 20,000 nodes, paired with master as
# shipped over 128 games, -3.9 +- 3.7 points a game (docs/engine.md, "Reverse futility where
# only the side to move threatens")
_FUT_OWN = _setting("GOMOKU_FUTILITY_OWN", 0, most=1)
# singular extensions from this remaining depth (k.G_SE_DEPTH; 0, the default: off), the bar a
# margin of _SE_MARGIN evaluation units a ply below the table's score. Off: node for node
# against Rapfi 0.43.02 classical at 20,000 nodes, paired with master as shipped over 128
# games, from depth 4 -4.7 +- 4.4 points a game, from 3 -8.2 +- 4.6; from depth 6 at 200,000
# nodes, on three sets of 64 openings, +1.4 +- 2.1 (docs/engine.md, "Singular extensions")
_SE_DEPTH = _setting("GOMOKU_SE_DEPTH", 0, most=60)
_SE_MARGIN = _setting("GOMOKU_SE_MARGIN", 10, most=2000)
# late-move reductions in quarter plies, a child's depth rounded up and the rest owed down the
# line (k.G_LMR_QUARTERS, 1; 0, the default: whole plies, rounded down). Off: node for node
# against Rapfi 0.43.02 classical at 200,000 nodes, 128 games on each of three sets of openings,
# +6.2, -5.9 and +3.1 points a game against whole plies, +1.1 +- 2.0 in all (docs/engine.md,
# "Singular extensions on other openings, and reductions in quarter plies")
_LMR_QUARTERS = _setting("GOMOKU_LMR_QUARTERS", 0, most=1)
# late-move reductions at the root where the search reduces inside the tree (k.G_ROOT_LMR, their
# scale in hundredths as GOMOKU_POLICY_LMR's; 0, the default: every root move at full depth).
# Off: node for node against Rapfi 0.43.02 classical at 200,000 nodes, 128 games on each of
# three sets of openings, +0.7 +- 2.2 points a game at 150 and +0.4 +- 2.1 at 100, though a
# ply or two deeper (docs/engine.md, "Reductions at the root")
_ROOT_LMR = _setting("GOMOKU_ROOT_LMR", 0, most=1000)
# at PV nodes a reduced move that beats alpha is verified at full depth with the null window
# before the full window (k.G_LMR_VERIFY, 1; 0, the default: the full window at once). Off: in
# renju, node for node against Rapfi 0.43.02 classical at 20,000 nodes, -4.7 +- 2.8 points a
# game over 256 paired games (docs/engine.md, "A null-window check before the PV re-search")
_LMR_VERIFY = _setting("GOMOKU_LMR_VERIFY", 0, most=1)
# late-move reductions this many hundredths of a ply smaller at nodes that are or were on the PV
# (k.G_LMR_TTPV; 0, the default: off). Off: node for node against Rapfi 0.43.02 classical at
# 200,000 nodes, 128 games on each of three sets of openings, +2.2 +- 2.2 points a game at 100
# (docs/engine.md, "Reductions at the root")
_LMR_TTPV = _setting("GOMOKU_LMR_TTPV", 0, most=400)
# fail-high reduction's margin a ply above beta (k.G_FH_RED; 0: off), where the policy's rank
# reduces (master in freestyle and standard). At 70, in freestyle: node for node against Rapfi
# 0.43.02 classical at 200,000 nodes, +2.9 +- 2.0 points a game over three sets of 64
# openings; at 500 ms a move, +2.3 +- 2.4 against PentaZen 0.4.17 over 384 paired games and
# +1.2 +- 3.6 against Rapfi over 128 (docs/engine.md, "Fail-high reduction")
_FH_RED = _setting("GOMOKU_FH_RED", 70, most=5000)
# two of Rapfi's prunings, for measuring: at _TRIVIAL plies to go or fewer a move that makes
# nothing for either side is not searched (k.G_TRIVIAL; 0, the default: off), and with _KEPT 1
# late-move pruning and the policy's cut may skip one's own open threes and the blocks of the
# opponent's four points as well, only one's own fours being kept (k.G_KEPT; 0, the default)
_TRIVIAL = _setting("GOMOKU_TRIVIAL_DEPTH", 0, most=60)
_KEPT = _setting("GOMOKU_KEPT", 0, most=1)
# the quiescence over fours at the leaves, for measuring: at most _QVCF of the side to move's
# fours, each answered by its block (k.G_QVCF; 0, the default: off), after the local VCF probe
# found no win (with GOMOKU_DEEP_VCF=0, in the probe's place), none at a null-window leaf
# _QVCF_DELTA evaluation units below alpha (0: no such cut)
_QVCF = _setting("GOMOKU_QVCF", 0, most=20)
_QVCF_DELTA = _setting("GOMOKU_QVCF_DELTA", 0, most=100000)
# against the opponent's four-three point, in master's searches (freestyle, renju): only its exact
# defences and one's own fours (k.G_DEFEND43; 1, the default, each searched in full, like the
# answers to an open three; 2, with the node's usual reductions and pruning; 0: every
# candidate). At 1: node for node against Rapfi 0.43.02 classical at 200,000 nodes, +3.0 +- 2.2
# points a game over three sets of 64 openings; at 500 ms a move against PentaZen 0.4.17, +2.4
# +- 2.7 over two sets (docs/engine.md, "The exact answers to a four-three and to an open three")
_DEFEND43 = _setting("GOMOKU_DEFEND43", 1, most=2)
# in freestyle and renju (there White's four-three points, and Black's as _DEFEND43_BLACK
# says, below): White's in renju +3.1 +- 3.7 points a game at 500 ms against Rapfi
# (128 games) and +3.0 +- 2.0 node for node at 20,000 nodes; in standard -6.6 +- 3.8 at 500 ms
# against PentaZen, so not there (docs/engine.md, "The four-three's answers in standard and
# renju"). GOMOKU_DEFEND43_RULES (comma-separated rule names) chooses the rules for measuring
_DEFEND43_RULES: Final = frozenset({Rule.FREESTYLE, Rule.RENJU})


# in renju, Black's four-three points answered with the list too, where Black may play the
# point and its three is a true one (k.G_DEFEND43_BLACK): 2, the default, only in White's
# searches, where the list narrows one's own defence and never the opponent's; 1, in every
# search; 0, White's four-three points alone. Against Rapfi 0.43.02 classical in renju, in
# every search (1), White's games gained (+6.2 +- 4.4 points a game at 500 ms, +1.6 +- 2.8
# node for node at 20,000 nodes) and Black's lost at 500 ms and 200,000 nodes, as where a
# list that misses one of Rapfi's answers makes master's own attack look surer than it is
# (docs/engine.md, "Black's four-three points in renju")
_DEFEND43_BLACK = _setting("GOMOKU_DEFEND43_BLACK", 2, most=2)
# master's evaluation reads each side's sum of point values as the mean of the position's and
# the one's before the last move, as Rapfi's classical evaluation does (k.G_EVAL_AVG, 1; 0,
# the default, the position's alone)
_EVAL_AVG = _setting("GOMOKU_EVAL_AVG", 0, most=1)
# master's pruning by the static value reads the table's value where it bounds the node's more
# tightly, as Rapfi's search does (k.G_TT_EVAL, 1; 0, the default, the static value alone)
_TT_EVAL = _setting("GOMOKU_TT_EVAL", 0, most=1)
# a late move that makes a four (not a four-three) reduced by this share, in percent, of a
# quiet move's plies, as Rapfi's search reduces every move (k.G_LMR_FOUR; 0, the default:
# never reduced)
_LMR_FOUR = _setting("GOMOKU_LMR_FOUR", 0, most=200)
# the answer to a four gains a further ply once every K answers along a line, as Rapfi's search
# extends each by 1.3 plies where master keeps one (k.G_FOUR_EXT; 0, the default: off)
_FOUR_EXT = _setting("GOMOKU_FOUR_EXT", 0, most=8)
# a PV node whose table move comes from a shallower search is searched this many hundredths of
# a ply shallower for each ply between the two depths, at most 3, as Rapfi's search reduces a
# PV node whose table move has not been chosen for a few iterations (k.G_PV_TT_RED; 0, the
# default: off)
_PV_TT_RED = _setting("GOMOKU_PV_TT_RED", 0, most=100)
# off the PV, where the static value has not risen over two plies, a late move reduced by more
# than a ply loses this many hundredths of a ply more, as Rapfi's search reduces (k.G_LMR_IMPROVE;
# 0, the default: off)
_LMR_IMPROVE = _setting("GOMOKU_LMR_IMPROVE", 0, most=300)
# once a move has raised alpha at a PV node, the later moves are searched a ply shallower, from 3
# plies to go up to 11, as Rapfi's search does once a score has improved (k.G_ALPHA_RED; 1: inside
# the tree, 3: at the root as well; 0, the default: off)
_ALPHA_RED = _setting("GOMOKU_ALPHA_RED", 0, most=3)
# against the opponent's open three, for measuring: only the moves that leave it no straight
# four, and one's own fours (k.G_DEFEND3, 1; 0, the default: every point where it would make a
# four, and one's own fours)
_DEFEND3 = _setting("GOMOKU_DEFEND3", 0, most=1)
# against the opponent's open three, with the policy, for measuring: one's own fours that stop
# none of its fours, far from the last two moves, are left out near the horizon (1), searched
# shallower (2), or both (3) (k.G_DISTRACT, Rapfi's distracting defences; 0, the default: off)
_DISTRACT = _setting("GOMOKU_DISTRACT", 0, most=3)
# the fours a leaf's local VCF probe may play where a search probes one (k.G_DEEP_VCF; -1, the
# default: as its options say, 8 for master; 0: no probe at the leaves at all)
_DEEP_VCF = _setting("GOMOKU_DEEP_VCF", -1, most=20, least=-1)
# at the nodes of the root's opponent, with the policy: the cut in logits and the reductions'
# scale (k.G_POL_CUT_OPP, k.G_LMR_OPP; 0, the default: as at every node)
_POL_CUT_OPP = _setting("GOMOKU_POLICY_CUT_OPP", 0, most=20)
_LMR_OPP = _setting("GOMOKU_LMR_OPP", 0, most=400)
# 0: a search that asks to keep the tables from the last search (SearchOptions.keep_tt, the
# protocol brain's) starts with empty ones all the same (1, the default: it keeps them)
_KEEP_TT = _setting("GOMOKU_KEEP_TT", 1, most=1)
# the transposition table's ways (k.G_TT_WAYS): 1, one entry a hash, the newest kept; 2, pairs
# of entries, a new one replacing the less worth keeping by depth and age
_TT_WAYS = _setting("GOMOKU_TT_WAYS", 1, most=2)
# late-move reductions larger by this many hundredths of a ply for each logit a move's policy
# score lies below the node's best (k.G_LMR_GAP; 0, the default: off), with the policy only.
# Off: node for node against Rapfi 0.43.02 classical at 200,000 nodes, 128 games on each of
# three sets of openings, -1.0 +- 2.1 points a game at 50 (docs/engine.md, "Two more of
# Rapfi's reductions")
_LMR_GAP = _setting("GOMOKU_LMR_GAP", 0, most=1000)
# a reduced move that beats alpha by this many evaluation units at its reduced depth is searched
# again a ply deeper than in full (k.G_LMR_DEEPER; 0, the default: off). Off: node for node as
# above, +1.2 +- 2.2 points a game at 150 (docs/engine.md, "Two more of Rapfi's reductions")
_LMR_DEEPER = _setting("GOMOKU_LMR_DEEPER", 0, most=5000)
# the killers' lift in the candidates' order, in hundredths of a logit above the policy's score
# (k.G_KILLER_KEY; 0, the default: the killers come first, after the table's move), the second
# killer's half the first's; with the policy only. Off: at 200 (2 logits), node for node against
# Rapfi 0.43.02 classical at 200,000 nodes, +1.0 +- 2.4 points a game over three sets of 64
# openings (docs/engine.md, "The killers' place")
_KILLER_KEY = _setting("GOMOKU_KILLER_KEY", 0, most=5000)
# with the policy, for measuring: the most the history lifts a candidate's key, in hundredths of
# a logit (k.G_HIST_KEY; 0, the default: a quarter of a logit), and 1: the quiet moves searched
# before a cut-off's move lose what it gains, each value kept within bounds (k.G_HIST_MALUS; 0,
# the default: the cutting move alone gains)
_HIST_KEY = _setting("GOMOKU_HIST_KEY", 0, most=5000)
_HIST_MALUS = _setting("GOMOKU_HIST_MALUS", 0, most=1)
# with the policy, for measuring: from this many plies to go, neither the policy's cut nor the
# width leaves a candidate out (k.G_POL_CUT_HIGH; 0, the default: both at every depth)
_POL_CUT_HIGH = _setting("GOMOKU_POLICY_CUT_HIGH", 0, most=60)
# with the policy, for measuring: the counter-move (the quiet move that last cut a node off
# after the same move of the opponent's) lifted this many hundredths of a logit in the
# candidates' order (k.G_COUNTER; 0, the default: off)
_COUNTER = _setting("GOMOKU_COUNTER", 0, most=5000)
# when the selective search may skip a move (late-move pruning, the policy's cut, the width),
# for measuring (k.G_PRUNE_SAFE): 0, the default, from the first move on, so that a node whose
# first moves lose to a threat is called lost with its other defences unsearched, and the win
# one ply up may be false (master claimed such wins at 300,000 and 2,000,000 nodes in its lost
# games against Rapfi, docs/engine.md, "Wins that were not"); 1, only once a move has not lost,
# as chess engines prune, every claimed result then a proof; 2, from the first move on, but a
# node that skipped a move is never called lost by force
_PRUNE_SAFE = _setting("GOMOKU_PRUNE_SAFE", 0, most=2)
# with the policy, for measuring: the correction history's tables (k.G_CORR bits: 1 keyed by the
# threats' make-up, 2 by the last move, 4 by the last two; 0, the default: off), how far an
# entry moves a ply of depth (256ths) and the most it corrects (evaluation units)
_CORR = _setting("GOMOKU_CORR", 0, most=7)
_CORR_RATE = _setting("GOMOKU_CORR_RATE", 16, most=256)
_CORR_LIMIT = _setting("GOMOKU_CORR_LIMIT", 400, most=5000)
# 1: a search that keeps its transposition table keeps the correction history's tables too
# (0, the default: every search learns its own)
_CORR_KEEP = _setting("GOMOKU_CORR_KEEP", 0, most=1)
# the candidates' keys a logit of the policy's score (the settings above in logits or hundredths)
_KEYS_A_LOGIT = 1 << (2 * k.POL_SHIFT - k.POL_KEY_SHIFT)
# the aspiration window's half-width from the third iteration, in evaluation units (0: the
# full window), widened four times over at each failure; for measuring
_ASPIRATION = _setting("GOMOKU_ASPIRATION", 60, most=5000)
# the razoring margin a ply (k.G_RAZOR, below alpha; negative razors more), for measuring
_RAZOR = _setting("GOMOKU_RAZOR", _RAZOR_MARGIN, most=2000, least=-2000)
# the same margin at the nodes where the root's side is to move (k.G_RAZOR_ROOT), for measuring:
# 2,000 there (razoring only the opponent's nodes) scored +3.8 +- 1.8 points a game over 756
# games node for node against Rapfi 0.43.02 classical (20,000 and 40,000 nodes), but -0.4 +-
# 3.8 over 128 at 200,000 nodes and -3.9 +- 3.7 over 128 at 500 ms a move (docs/engine.md,
# "Razoring's margin")
_RAZOR_ROOT = _setting("GOMOKU_RAZOR_ROOT", _RAZOR, most=2000, least=-2000)
# the root's threat searches under a node limit: the win by fours and threes and the defence
# may each spend this many thousandths of it (0: none)
_VCT_SHARE = _setting("GOMOKU_VCT_SHARE", 200)
_DEFENCE_SHARE = _setting("GOMOKU_DEFENCE_SHARE", 200)
# the attacking moves of the opponent's threat sequences that the root defence looks for; 6
# scored -0.043 +- 0.024 a game over 128 games as the settings above (its probes take the
# main search's nodes)
_DEFENCE_VCT_DEPTH = _setting("GOMOKU_DEFENCE_DEPTH", 4, most=12)
# 1, the default: where the opponent's threat after a free move is a win by fours, the root
# moves that stop it are then held to the opponent's win by fours and threes as well (a move
# that stops the fours may leave the threes: the tactical suite's hard41); 0: by fours alone.
# Master's (SearchOptions.then_vct); neutral in play: -0.4 +- 0.8 points a game over 384
# node for node against Rapfi 0.43.02 classical at 20,000 nodes; at 500 ms +1.8 +- 3.3 over
# 192 against PentaZen 0.4.17 and -4.3 +- 3.9 over 128 against Rapfi (docs/engine.md, "The
# defence held to the threes after the fours")
_DEFENCE_THEN_VCT = _setting("GOMOKU_DEFENCE_THEN_VCT", 1, most=1)
# the proof-number search over threats (``_pns.dfpn``) at the root, master's (SearchOptions.pns):
# bit 1, its own win by fours and threes, after the depth-limited search finds none, within
# the same budget; bit 2, the defence's threats (the opponent's win after a free move, and
# after each root move) proved by it in place of the depth-limited search
PNS_ATTACK = 1
PNS_DEFENCE = 2
_PNS = _setting("GOMOKU_PNS", 0, most=3)
# where an iteration proves every root move lost, the proof-number search looks among the
# root moves, in the search's order, for one after which the opponent has no win by fours and
# threes (disproved), and the search plays it: a win by quieter moves, or one its pruning
# claimed falsely, is harder for the opponent to find than a forced one. Master's
# (SearchOptions.lost_check); 0: off. At 500 ms, paired across runs, +1.8 +- 2.7 points a
# game over 256 against PentaZen 0.4.17 and +4.3 +- 2.9 over 128 against Rapfi 0.43.02
# classical (docs/engine.md, "A move that leaves no win by threats, where lost")
_LOST_CHECK = _setting("GOMOKU_LOST_CHECK", 1, most=1)
# its nodes: at most 200,000 a search, a fifth of a node limit, 200 a millisecond of a time
# limit, and at most 50,000 for one root move
_LOST_CHECK_NODES = 200_000
_LOST_CHECK_MOVE = 50_000
# the check of the chosen move, master's (SearchOptions.verify): where the opponent, given a
# free move, wins by threats (the root defence's probe found it), the main search keeps
# GOMOKU_VERIFY_SHARE thousandths of what is left of the limits back; the proof-number search
# then checks its move, then the first attack of the proof that refutes a move checked, then
# the root's other moves in the search's order, and the search plays the first move after
# which the opponent's win by fours and threes is not proved within GOMOKU_VERIFY thousand
# nodes (its own move where every one is; 0: off). At 200, +3.9 +- 2.3 points a game over 384
# paired games against PentaZen 0.4.17 at 500 ms and +2.0 +- 2.1 over 384 against Rapfi
# 0.43.02 classical (docs/engine.md, "The search's move checked, in time kept for it")
_VERIFY = _setting("GOMOKU_VERIFY", 200, most=5000)
_VERIFY_SHARE = _setting("GOMOKU_VERIFY_SHARE", 250, most=900)
# which searches check so: 0, those the probe finds threatened; 2, the default, those and every
# other from its first iteration that scores -GOMOKU_VERIFY_BELOW or lower, the share then kept
# back from what is left (the probe looks four attacking moves deep, and a longer attack shows
# first as a falling score: the tactical suite's hard42); 1, every search. At 2 (the bar
# 1,000), paired at 500 ms against 0: +1.8 +- 2.1 points a game over 384 against Rapfi 0.43.02
# classical, +0.4 +- 2.5 over 256 against PentaZen 0.4.17 (docs/engine.md, "The check where
# the score falls"); the bar at 2,000 against 1,000: +0.1 +- 2.1 over 384 against Rapfi
# ("The bar at 2,000", there)
_VERIFY_WHEN = _setting("GOMOKU_VERIFY_WHEN", 2, most=2)
_VERIFY_BELOW = _setting("GOMOKU_VERIFY_BELOW", 1000, most=k.WIN)
# the rules whose searches check their move so, where the check is on: freestyle, where it was
# measured (standard and renju were not); GOMOKU_VERIFY_RULES (comma-separated rule names)
# chooses them for measuring
_VERIFY_RULES: Final = frozenset({Rule.FREESTYLE})


# the score of a win proved by the proof-number search: its length is not counted, only that it
# takes at most k.PNS_MAX_DEPTH attacking moves
_PNS_WIN = k.WIN - 2 * k.PNS_MAX_DEPTH - 1


@dataclass(frozen=True, slots=True)
class Limits:
    """When to stop: any of depth (plies), nodes, or wall-clock milliseconds."""

    depth: int | None = None  # iterative deepening stops after this depth
    nodes: int | None = None  # stop after about this many nodes (checked every 512)
    time_ms: int | None = None  # return the best move found so far by then
    memory_bytes: int | None = None  # the whole process's budget (Gomocup max_memory)


@dataclass(frozen=True, slots=True)
class SearchOptions:
    """How a search plays: the knobs the levels turn (defaults are full strength)."""

    width: int = 20  # candidates searched per node, best-ordered first (0 = all)
    noise: int = 0  # amplitude of a deterministic per-position evaluation noise
    seed: int = 0  # picks the noise
    leaf_vcf: int = 3  # VCF depth (attacking fours) probed at the leaves (0 = off)
    # deeper, local VCF (fours along the last four's lines) in place of the leaves' probe,
    # probed only below beta; its proofs enter the transposition table (0 = the probe above)
    deep_vcf: int = 8
    root_vct: bool = True  # look for a win by fours and threes before the main search
    # then, when that finds none, a deeper one (attacking moves) with a larger budget (0: none;
    # off for every level: neutral or worse by match at a fixed time, docs/engine.md)
    deep_root_vct: int = 0
    root_defence: bool = True  # keep only root moves that stop the opponent's forced win
    # the root's threat searches by proof numbers (PNS_ATTACK | PNS_DEFENCE bits; 0: the
    # depth-limited threat search alone, as the levels below master were spaced; -1: the
    # process's setting, GOMOKU_PNS, read when the search starts)
    pns: int = -1
    # the root defence's moves that stop the opponent's fours held to its threes as well (1),
    # or to the fours alone (0, as the levels below master were spaced); -1: the process's
    # setting, GOMOKU_DEFENCE_THEN_VCT
    then_vct: int = -1
    # where the search proves itself lost, a root move after which the opponent has no win by
    # fours and threes is played instead (1), or not (0, as the levels below master were
    # spaced); -1: the process's setting, GOMOKU_LOST_CHECK
    lost_check: int = -1
    # where the opponent wins by threats after a free move, the search's move is checked by
    # the proof-number search and, proved lost, gives way to a move not proved lost
    # (thousands of nodes a move checked; 0: off, as the levels below master were spaced);
    # -1: the process's setting, GOMOKU_VERIFY (200 by default)
    verify: int = -1
    keep_tt: bool = False  # reuse this process's transposition table from the last search
    selective: bool = True  # prune late quiet moves and hopeless quiet nodes near the horizon
    exhaustive: bool = False  # plain alpha-beta over every candidate, no threat logic (tests)
    # evaluate with the weights' network where they have one (evaluate.NET_RULES); off, the sums
    # alone (the levels below master were spaced without it)
    network: bool = True
    # order the candidates by the learned move policy where the process has one
    # (``engine.search.evaluate.policy``, evaluate.POLICY_RULES); off, by the hand-set scores (the
    # levels below master)
    policy: bool = True


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The move chosen and what the search knows about it."""

    move: Point  # the move to play
    score: int  # from the side to move's view; |score| > WIN - 1000 is a forced result
    depth: int  # the deepest completed iteration (0 for book or forced answers)
    nodes: int  # positions visited
    time_ms: float  # wall-clock time spent
    pv: tuple[Point, ...]  # the expected line, starting with ``move``
    # where the nodes went: those before the main search (the threat searches at the root, all
    # of them where it answered without one), those the leaves' VCF probes played, and the
    # moves into the main search's leaves (all three 0 from the small boards' exact solver)
    before_nodes: int = 0
    probe_nodes: int = 0
    leaf_nodes: int = 0


def tt_size(memory_bytes: int | None) -> int:
    """Transposition-table entries for a process memory budget: the largest power of two
    that fits in half of what the budget leaves beyond the process's base, within
    [``MIN_TT_SIZE``, ``TT_SIZE``]; the full size when there is no budget."""
    if not memory_bytes:
        return TT_SIZE
    spare = (memory_bytes - _BASE_MEMORY) // 2
    size = TT_SIZE
    while size > MIN_TT_SIZE and size * _TT_ENTRY_BYTES > spare:
        size //= 2
    return size


def forget_tables() -> None:
    """Forget the tables ``SearchOptions.keep_tt`` keeps: the next such search starts with
    empty ones, as a fresh process does."""
    forget_kept()


def is_win_score(score: int) -> bool:
    """Whether a score says the side to move forces a win."""
    return score > k.WIN_MIN


def wins_by_threats(board: Board, nodes: int = 1_000_000) -> bool | None:
    """Whether the side to move of a five-in-a-row ``board`` wins by fours and threes, by the
    proof-number search's proof: True, proved (every answer of the defender's that could hold
    searched); False, no such win within ``k.PNS_MAX_DEPTH`` attacking moves (a win by quieter
    moves may still exist); None, not known within ``nodes`` nodes."""
    found, _ = threat_proof(board, nodes)
    return None if found < 0 else found == 1


def threat_proof(board: Board, nodes: int) -> tuple[int, int]:
    """``wins_by_threats``'s search with its count: 1 proved, 0 disproved, -1 not known within
    ``nodes``; and the nodes it took, from a fresh table of 2^18 entries.

    Raises:
        GameOverError: the game has ended.
        ValueError: the board is not five in a row.
    """
    if board.outcome is not None:
        raise GameOverError()
    if board.gravity or board.win_length != 5:
        raise ValueError("the threat search plays five in a row")
    pos = Position.from_board(board)
    size = 1 << 18
    pnk = np.zeros(size, dtype=np.uint64)
    pnv = np.zeros(2 * size, dtype=np.int64)
    pos.g[k.G_NODE_LIMIT] = nodes
    found = int(k.dfpn(pos.st, pos.sr, pnk, pnv, int(pos.g[k.G_SIDE]), True, k.PNS_MAX_DEPTH))
    return found, int(pos.g[k.G_NODES])


def search(board: Board, limits: Limits, options: SearchOptions | None = None) -> SearchResult:
    """Find the best move for the side to move.

    With neither depth nor nodes nor time given: Gomoku to depth 8, Connect Four to depth 12,
    tic-tac-toe and gravity three to the end (perfect play). Deterministic for a fixed depth
    or node limit.

    Raises:
        GameOverError: the game has ended (a five, a full board, or no legal move).
    """
    start = time.perf_counter()
    options = options or SearchOptions()
    if board.outcome is not None or board.is_full():
        raise GameOverError()
    unlimited = limits.depth is None and limits.nodes is None and limits.time_ms is None
    deadline = None if limits.time_ms is None else start + limits.time_ms / 1000 * _TIME_SAFETY
    if board.gravity or board.win_length != 5:
        # tic-tac-toe and gravity three are solved outright; Connect Four needs a horizon
        depth = limits.depth
        if unlimited and board.width * board.height > _SOLVED_CELLS:
            depth = _SMALL_DEFAULT_DEPTH
        return _small.search(board, depth, limits.nodes, deadline, start)
    if unlimited:
        limits = Limits(depth=8)
    if not board.moves and not board.setup[0] and not board.setup[1]:
        centre = Point(board.width // 2, board.height // 2)
        return SearchResult(centre, 0, 0, 0, _elapsed(start), (centre,))
    searcher = _Searcher(board, limits, options, start, deadline)
    result = searcher.run()
    if searcher.pos.g[k.G_CORR] and _CORR_KEEP:
        searcher.pos.keep_corrections(save=True)
    return result


def _elapsed(start: float) -> float:
    return (time.perf_counter() - start) * 1000


class _Searcher:
    def __init__(
        self,
        board: Board,
        limits: Limits,
        options: SearchOptions,
        start: float,
        deadline: float | None,
    ) -> None:
        self.board = board
        self.limits = limits
        self.options = options
        self.start = start
        self.deadline = deadline
        self.main_from: int | None = None  # the nodes counted when the main search began
        self.pns = _PNS if options.pns < 0 else options.pns
        self.then_vct = _DEFENCE_THEN_VCT if options.then_vct < 0 else options.then_vct
        self.lost_check = _LOST_CHECK if options.lost_check < 0 else options.lost_check
        self.verify = _VERIFY if options.verify < 0 else options.verify
        if board.rule not in rules_setting("GOMOKU_VERIFY_RULES", _VERIFY_RULES):
            self.verify = 0
        # the opponent wins by threats after a free move (the root defence's probe found it)
        self.threatened = False
        # the limits as they were before the check's share was kept back from them (node
        # limit, soft and hard deadlines, soft node count), once it is
        self.kept: tuple[int, float | None, float | None, int | None] | None = None
        self.soft_deadline = (
            None if limits.time_ms is None else start + limits.time_ms / 1000 * _SOFT_TIME
        )
        # GOMOKU_SOFT_NODES: the node count after which no new iteration starts
        self.soft_nodes = int(limits.nodes * _SOFT_TIME) if _SOFT_NODES and limits.nodes else None
        self.pos = Position.from_board(
            board, tt_size(limits.memory_bytes), keep=options.keep_tt and _KEEP_TT == 1
        )
        g = self.pos.g
        g[k.G_WIDTH] = 0 if options.exhaustive else options.width
        g[k.G_NOISE] = options.noise
        g[k.G_SEED] = options.seed & 0x7FFFFFFF
        g[k.G_VCF_DEPTH] = 0 if options.exhaustive else options.leaf_vcf
        g[k.G_PURE] = int(options.exhaustive)
        g[k.G_DEEP_VCF] = 0 if options.exhaustive else options.deep_vcf
        # the quiescence where the leaves probe for a local VCF (master), beside the probe or,
        # with GOMOKU_DEEP_VCF=0, in its place
        g[k.G_QVCF] = _QVCF if g[k.G_DEEP_VCF] > 0 else 0
        g[k.G_QVCF_DELTA] = _QVCF_DELTA
        if g[k.G_DEEP_VCF] > 0 and _DEEP_VCF >= 0:
            g[k.G_DEEP_VCF] = _DEEP_VCF
            if _DEEP_VCF == 0 and _QVCF == 0:
                g[k.G_VCF_DEPTH] = 0
        if not options.network:
            g[k.G_NET] = 0
            g[k.G_VH_F] = 0
        if not options.policy or options.exhaustive:
            g[k.G_POL] = 0
        if options.selective and not options.exhaustive:
            g[k.G_SELECT] = _SELECT
            g[k.G_LMP] = _LMP_BASE
            g[k.G_FUTILITY] = _FUTILITY
            g[k.G_LMP_POW] = _LMP_POW
            g[k.G_RAZOR] = _RAZOR
            g[k.G_RAZOR_ROOT] = _RAZOR_ROOT
            g[k.G_LMR] = _LMR_SCALE
            g[k.G_FUT_DEPTH] = _FUT_DEPTH
            g[k.G_IIR] = _IIR
            g[k.G_LMP_IMPROVE] = _LMP_IMPROVE
            g[k.G_FUT_OWN] = _FUT_OWN
            g[k.G_SE_DEPTH] = _SE_DEPTH
            g[k.G_SE_MARGIN] = _SE_MARGIN
            g[k.G_LMR_QUARTERS] = _LMR_QUARTERS
            g[k.G_ROOT_LMR] = _ROOT_LMR
            g[k.G_LMR_VERIFY] = _LMR_VERIFY
            g[k.G_LMR_TTPV] = _LMR_TTPV
            g[k.G_LMR_DEEPER] = _LMR_DEEPER
            g[k.G_TRIVIAL] = _TRIVIAL
            g[k.G_PRUNE_SAFE] = _PRUNE_SAFE
            g[k.G_KEPT] = _KEPT
            if g[k.G_POL] > 0:
                g[k.G_POL_LMP] = _POL_LMP_BASE
                g[k.G_POL_CUT] = _POL_CUT * _KEYS_A_LOGIT
                g[k.G_POL_CUT_LOW] = _POL_CUT_LOW * _KEYS_A_LOGIT
                g[k.G_POL_CUT_OPP] = _POL_CUT_OPP * _KEYS_A_LOGIT
                g[k.G_POL_RED] = _POL_RED * _KEYS_A_LOGIT
                g[k.G_LMR_GAP] = _LMR_GAP
                g[k.G_KILLER_KEY] = _KILLER_KEY * _KEYS_A_LOGIT // 100
                g[k.G_HIST_KEY] = _HIST_KEY * _KEYS_A_LOGIT // 100
                g[k.G_HIST_MALUS] = _HIST_MALUS
                g[k.G_POL_CUT_HIGH] = _POL_CUT_HIGH
                g[k.G_COUNTER] = _COUNTER * _KEYS_A_LOGIT // 100
                g[k.G_DEFEND3] = _DEFEND3
                g[k.G_CORR] = _CORR
                g[k.G_CORR_RATE] = _CORR_RATE
                g[k.G_CORR_LIMIT] = _CORR_LIMIT
                if _CORR and _CORR_KEEP:
                    self.pos.keep_corrections()
                g[k.G_DISTRACT] = _DISTRACT
                if _POL_WIDTH and options.width:
                    g[k.G_WIDTH] = _POL_WIDTH
                lmr_rules = rules_setting("GOMOKU_POLICY_LMR_RULES", _POL_LMR_RULES)
                if _POL_LMR and board.rule in lmr_rules:
                    g[k.G_SELECT] = _SELECT | k.SEL_LMR
                    g[k.G_LMR] = _POL_LMR
                    g[k.G_FH_RED] = _FH_RED
                    g[k.G_LMR_OPP] = _LMR_OPP
            defend43_rules = rules_setting("GOMOKU_DEFEND43_RULES", _DEFEND43_RULES)
            g[k.G_DEFEND43] = _DEFEND43 if options.policy and board.rule in defend43_rules else 0
            g[k.G_DEFEND43_BLACK] = int(
                _DEFEND43_BLACK == 1 or (_DEFEND43_BLACK == 2 and board.to_move is Color.WHITE)
            )
            g[k.G_EVAL_AVG] = int(_EVAL_AVG == 1 and options.policy)
            g[k.G_TT_EVAL] = int(_TT_EVAL == 1 and options.policy)
            g[k.G_LMR_FOUR] = _LMR_FOUR if options.policy else 0
            g[k.G_FOUR_EXT] = _FOUR_EXT if options.policy else 0
            g[k.G_PV_TT_RED] = _PV_TT_RED if options.policy else 0
            g[k.G_LMR_IMPROVE] = _LMR_IMPROVE if options.policy else 0
            g[k.G_ALPHA_RED] = _ALPHA_RED if options.policy else 0
            g[k.G_NULL] = _NULL_R
            g[k.G_NULL_DEPTH] = max(_NULL_DEPTH, 1)
        g[k.G_TT_WAYS] = _TT_WAYS
        g[k.G_NODE_LIMIT] = limits.nodes or 0
        g[k.G_TIMED] = 0 if deadline is None else 1
        self.pos.tm[0] = deadline if deadline is not None else 0.0
        g[k.G_NEXT_CHECK] = 0

    def _result(self, move: int, score: int, depth: int, pv: list[int]) -> SearchResult:
        pos = self.pos
        g = pos.g
        points = tuple(pos.point(i) for i in pv) if pv else (pos.point(move),)
        if points[0] != pos.point(move):
            points = (pos.point(move),)
        nodes = int(g[k.G_NODES])
        return SearchResult(
            pos.point(move),
            int(score),
            depth,
            nodes,
            _elapsed(self.start),
            points,
            nodes if self.main_from is None else self.main_from,
            int(g[k.G_PROBE_NODES]),
            int(g[k.G_LEAF_NODES]),
        )

    def _fallback(self) -> SearchResult:
        # no candidate near the stones is playable (renju): any legal point will do
        legal = self.board.legal_moves()
        if not legal:
            raise GameOverError()
        centre = Point(self.board.width // 2, self.board.height // 2)
        move = min(legal, key=lambda p: (abs(p.x - centre.x) + abs(p.y - centre.y), p))
        return SearchResult(move, -k.WIN + 2, 0, 0, _elapsed(self.start), (move,))

    def run(self) -> SearchResult:
        pos = self.pos
        st, sr = pos.st, pos.sr
        g = pos.g
        n = int(k.root_moves(st, sr))
        rootm = sr[11]
        if n == 0:
            return self._fallback()
        if self._out_of_time():  # building the pattern tables took the whole budget
            return self._result(int(rootm[0]), 0, 0, [int(rootm[0])])
        side = int(g[k.G_SIDE])
        first = int(rootm[0])
        if self.options.exhaustive:
            return self._iterate(n)
        # an immediate five
        if g[k.G_P4 + (side - 1) * k.NP4 + k.P4_FIVE] > 0:
            five = pos.five_points(pos.side)[0]
            return self._result(five, k.WIN - 1, 1, [five])
        if n == 1:
            return self._result(first, int(k.evaluate(g, pos.hsh)), 0, [first])
        tline = sr[8]
        g[k.G_SELDEPTH] = 0
        if k.threat_search(st, sr, side, _ROOT_VCF_DEPTH, False, 0):
            line = self._vcf_line([int(x) for x in tline])
            return self._result(line[0], k.WIN - len(line), 0, line)
        if self.options.root_vct and g[k.G_STOP] == 0:
            saved = int(g[k.G_NODE_LIMIT])
            budget = self._vct_budget()
            if budget > 0:
                g[k.G_NODE_LIMIT] = int(g[k.G_NODES]) + budget
                found = k.threat_search(st, sr, side, _ROOT_VCT_DEPTH, True, 0)
                stopped_by_budget = (
                    g[k.G_STOP] != 0
                    and (saved == 0 or g[k.G_NODES] < saved)
                    and not self._out_of_time()
                )
                g[k.G_NODE_LIMIT] = saved
                if stopped_by_budget:
                    g[k.G_STOP] = 0
                if found:
                    move = int(tline[0])
                    return self._result(move, k.WIN - 4 * _ROOT_VCT_DEPTH - 1, 0, [move])
            if (
                self.pns & PNS_ATTACK
                and budget > 0
                and g[k.G_STOP] == 0
                and self._prove(side, True, budget) == 1
            ):
                move = int(tline[0])
                return self._result(move, _PNS_WIN, 0, [move])
            deeper = self.options.deep_root_vct
            if (
                deeper > _ROOT_VCT_DEPTH
                and budget > 0
                and g[k.G_STOP] == 0
                and self._probe(side, True, deeper, budget * _DEEP_VCT_BUDGET)
            ):
                move = int(tline[0])
                return self._result(move, k.WIN - 4 * deeper - 1, 0, [move])
        if self.options.root_defence and g[k.G_STOP] == 0:
            n = self._defend(n)
            if n == 1:
                only = int(rootm[0])
                return self._result(only, int(k.evaluate(g, pos.hsh)), 0, [only])
        if self.verify and g[k.G_STOP] == 0 and (self.threatened or _VERIFY_WHEN == 1):
            return self._verified(n)
        # where an iteration's score falls to the check's bar (GOMOKU_VERIFY_WHEN=2), the time
        # kept back from then on goes to the check
        return self._checked(self._iterate(n), n)

    def _verified(self, n: int) -> SearchResult:
        """The main search within what is left of the limits less a share, then the first
        root move, in its order from its best, after which the opponent's win by fours and
        threes is not proved within the check's budget (its own move where every one is)."""
        self._keep_back()
        return self._checked(self._iterate(n), n)

    def _keep_back(self) -> None:
        # the limits cut to what is left of them less the check's share, the old ones kept
        pos = self.pos
        g = pos.g
        keep = 1000 - _VERIFY_SHARE
        node_limit = int(g[k.G_NODE_LIMIT])
        soft, deadline = self.soft_deadline, self.deadline
        self.kept = (node_limit, soft, deadline, self.soft_nodes)
        if node_limit:
            used = int(g[k.G_NODES])
            g[k.G_NODE_LIMIT] = used + (node_limit - used) * keep // 1000
            if self.soft_nodes is not None:
                self.soft_nodes = used + max(self.soft_nodes - used, 0) * keep // 1000
        if deadline is not None:
            now = time.perf_counter()
            pos.tm[0] = now + (deadline - now) * keep / 1000
            if soft is not None:
                self.soft_deadline = now + max(soft - now, 0.0) * keep / 1000

    def _checked(self, result: SearchResult, n: int) -> SearchResult:
        """``result``'s move, or, where the check's share was kept back and the opponent's
        win by threats after that move is proved within it, the first root move in the
        search's order after which it is not (``result``'s own where every one is)."""
        pos = self.pos
        g = pos.g
        if self.kept is None:
            return result
        node_limit, soft, deadline, soft_nodes = self.kept
        g[k.G_NODE_LIMIT] = node_limit
        if deadline is not None:
            pos.tm[0] = deadline
        self.soft_deadline = soft
        self.soft_nodes = soft_nodes
        if self._out_of_time() or (node_limit and g[k.G_NODES] >= node_limit):
            return result
        g[k.G_STOP] = 0
        if is_win_score(result.score):
            return result
        rootm = pos.sr[11]
        tline = pos.sr[8]
        best = pos.index(result.move)
        opp = 3 - int(g[k.G_SIDE])
        moves = [int(rootm[i]) for i in range(n)]
        order = [best] + [m for m in moves if m != best]
        checked: set[int] = set()
        chosen = best
        while order:
            move = order.pop(0)
            if move in checked:
                continue
            checked.add(move)
            pos.play_index(move)
            refuted = self._prove(opp, True, self.verify * 1000) == 1
            pos.undo()
            if not refuted:
                # not proved within the budget, or before the clock or the node limit ran
                # out: either way better than a move proved lost
                chosen = move
                break
            if g[k.G_STOP] != 0:
                break
            # the proof's first attacking move is often the point the defence must take
            vital = int(tline[0])
            if vital in moves and vital not in checked:
                order.insert(0, vital)
        pv = [pos.index(p) for p in result.pv] if chosen == best else [chosen]
        return self._result(chosen, result.score, result.depth, pv)

    def _budgeted(self, budget: int, run: Callable[[], int]) -> tuple[int, bool]:
        # a threat search run within ``budget`` more nodes (and the search's own limit): its
        # answer, and whether the budget stopped it (not the node limit or the clock), in
        # which case the stop is lifted and the search goes on
        g = self.pos.g
        saved = int(g[k.G_NODE_LIMIT])
        g[k.G_NODE_LIMIT] = int(g[k.G_NODES]) + budget
        if saved:
            g[k.G_NODE_LIMIT] = min(int(g[k.G_NODE_LIMIT]), saved)
        found = int(run())
        stopped_by_budget = (
            g[k.G_STOP] != 0 and (saved == 0 or g[k.G_NODES] < saved) and not self._out_of_time()
        )
        g[k.G_NODE_LIMIT] = saved
        if stopped_by_budget:
            g[k.G_STOP] = 0
        return found, stopped_by_budget

    def _probe(self, attacker: int, vct: bool, depth: int, budget: int) -> bool:
        # a threat-space search for ``attacker`` within ``budget`` nodes; running out of nodes
        # (not time) answers "no threat found" and lets the search go on
        st, sr = self.pos.st, self.pos.sr
        found, by_budget = self._budgeted(
            budget, lambda: k.threat_search(st, sr, attacker, depth, vct, 0)
        )
        return bool(found) and not by_budget and self.pos.g[k.G_STOP] == 0

    def _prove(self, attacker: int, vct: bool, budget: int) -> int:
        # the proof-number search for ``attacker`` within ``budget`` nodes: 1 a win (its first
        # move in tline[0]), 0 none, -1 not known
        st, sr = self.pos.st, self.pos.sr
        pnk, pnv = self.pos.pns
        return self._budgeted(
            budget, lambda: k.dfpn(st, sr, pnk, pnv, attacker, vct, k.PNS_MAX_DEPTH)
        )[0]

    def _defend(self, n: int) -> int:
        """Threat-based root moves: if the opponent, given a free move, would win by fours
        (or by fours and threes, found within a small budget), keep only the root moves after
        which that win is gone. The search's horizon is too short to see most such lines;
        a move is dropped only on a proof, and if every move loses all are kept."""
        pos = self.pos
        st, sr = pos.st, pos.sr
        g = pos.g
        rootm = sr[11]
        side = int(g[k.G_SIDE])
        opp = 3 - side
        if g[k.G_P4 + (opp - 1) * k.NP4 + k.P4_FIVE] > 0:
            return n  # a four to block: the candidates are the blocks already
        per_move, null_budget = self._defence_budget(n)
        if per_move <= 0:
            return n
        zob, hsh = st[6], st[7]
        g[k.G_SIDE] = opp  # a free move for the opponent
        hsh[0] ^= zob[2, 0]
        vct = False
        by_pns = bool(self.pns & PNS_DEFENCE)
        threat = self._probe(opp, False, _ROOT_VCF_DEPTH, null_budget)
        if not threat and g[k.G_STOP] == 0:
            vct = True
            if by_pns:
                threat = self._prove(opp, True, null_budget) == 1
            else:
                threat = self._probe(opp, True, _DEFENCE_VCT_DEPTH, null_budget)
        g[k.G_SIDE] = side
        hsh[0] ^= zob[2, 0]
        if not threat or g[k.G_STOP] != 0:
            return n
        self.threatened = True
        depth = _DEFENCE_VCT_DEPTH if vct else _ROOT_VCF_DEPTH
        keep: list[int] = []
        for i in range(n):
            move = int(rootm[i])
            pos.play_index(move)
            if vct and by_pns:
                refuted = self._prove(opp, True, per_move) == 1
            else:
                refuted = self._probe(opp, vct, depth, per_move)
            pos.undo()
            if g[k.G_STOP] != 0:
                return n  # out of time: no verdict on the rest
            if not refuted:
                keep.append(move)
        if not keep:
            return n
        if not vct and self.then_vct and len(keep) > 1:
            # the fours are stopped; of the moves that stop them, keep those that leave the
            # opponent no win by threes either, where any does
            held: list[int] = []
            for move in keep:
                pos.play_index(move)
                refuted = self._probe(opp, True, _DEFENCE_VCT_DEPTH, per_move)
                pos.undo()
                if g[k.G_STOP] != 0:
                    held = []
                    break
                if not refuted:
                    held.append(move)
            if held:
                keep = held
        for i, move in enumerate(keep):
            rootm[i] = move
        return len(keep)

    def _not_lost_by_threats(self, n: int) -> int:
        """The first root move, in the search's order, after which the proof-number search
        proves that the opponent has no win by fours and threes, within a budget shared out
        over the moves; -1 where none is found."""
        pos = self.pos
        g = pos.g
        rootm = pos.sr[11]
        opp = 3 - int(g[k.G_SIDE])
        left = self._probe_budget(_LOST_CHECK_NODES, per_ms=_LOST_CHECK_NODES // 1000, share=200)
        for i in range(n):
            if left <= 0 or g[k.G_STOP] != 0:
                break
            move = int(rootm[i])
            before = int(g[k.G_NODES])
            pos.play_index(move)
            found = self._prove(opp, True, min(left, _LOST_CHECK_MOVE))
            pos.undo()
            left -= int(g[k.G_NODES]) - before
            if found == 0 and g[k.G_STOP] == 0:
                return move
        return -1

    def _defence_budget(self, n: int) -> tuple[int, int]:
        # (nodes for each root move's probe, nodes for the free-move probe)
        # ~ a sixth of the time at 600k nodes/s
        total = self._probe_budget(300_000, per_ms=100, share=_DEFENCE_SHARE)
        return total // (2 * max(n, 1)), total // 4

    def _vcf_line(self, attacks: list[int]) -> list[int]:
        # the attacker's fours are at even plies of tline; each reply is the one answer
        pos = Position.from_board(self.board)
        attacker = pos.side
        ci = 0 if attacker is Color.BLACK else 1
        answers = np.zeros(k.MAX_MOVES, dtype=np.int64)
        line: list[int] = []
        for ply in range(0, len(attacks), 2):
            move = attacks[ply]
            if pos.b[move] != 0:
                break  # the search followed another answer than the one shown (caro)
            line.append(move)
            if pos.has_five_point(attacker) and move in pos.five_points(attacker):
                break  # the five
            pos.play_index(move)
            if int(k.four_answers(pos.st, ci, answers)) != 1:
                break  # two fives to block, or (caro) two answers: the proof holds for each
            block = int(answers[0])
            if pos.side is Color.BLACK and pos.forbidden_index(block):
                break  # renju: Black may not block there
            line.append(block)
            pos.play_index(block)
        return line

    def _out_of_time(self) -> bool:
        return self.deadline is not None and time.perf_counter() >= self.deadline

    def _vct_budget(self) -> int:
        # ~ a fifth of the time at 300k nodes/s
        return self._probe_budget(200_000, per_ms=60, share=_VCT_SHARE)

    def _probe_budget(self, most: int, *, per_ms: int, share: int) -> int:
        # nodes for a probe before the main search: at most ``most``, ``share`` thousandths of
        # a node limit, ``per_ms`` nodes for each millisecond of a time limit, 20k a ply
        # under a depth alone
        limits = self.limits
        budget = most
        if limits.nodes is not None:
            budget = min(budget, limits.nodes * share // 1000)
        if limits.time_ms is not None:
            budget = min(budget, limits.time_ms * per_ms)
        if limits.depth is not None and limits.nodes is None and limits.time_ms is None:
            budget = min(budget, 20_000 * limits.depth)
        return budget

    def _iterate(self, n: int) -> SearchResult:
        pos = self.pos
        st, sr = pos.st, pos.sr
        g = pos.g
        rootm = sr[11]
        pv_arr, pvlen = sr[6], sr[7]
        max_depth = min(self.limits.depth or MAX_DEPTH, MAX_DEPTH)
        self.main_from = int(g[k.G_NODES])
        best_move = int(rootm[0])
        best_score = 0
        best_pv: list[int] = [best_move]
        done_depth = 0
        score = 0
        for depth in range(1, max_depth + 1):
            if depth >= 3 and _ASPIRATION > 0 and not is_win_score(abs(score)):
                window = _ASPIRATION
                alpha, beta = score - window, score + window
                while True:
                    g[k.G_BEST] = -1
                    v = int(k.root_search(st, sr, n, depth, alpha, beta))
                    if g[k.G_STOP] != 0:
                        break
                    if v <= alpha:
                        alpha = max(-k.INF, alpha - window * 4)
                    elif v >= beta:
                        beta = min(k.INF, beta + window * 4)
                    else:
                        break
                    window *= 4
            else:
                g[k.G_BEST] = -1
                v = int(k.root_search(st, sr, n, depth, -k.INF, k.INF))
            if g[k.G_STOP] != 0:
                # keep a move of the unfinished iteration only if it beat the previous best
                if g[k.G_BEST] >= 0 and g[k.G_SEARCHED] > 0 and v > best_score:
                    best_move = int(g[k.G_BEST])
                    best_score = v
                    best_pv = [int(x) for x in pv_arr[0, : max(int(pvlen[0]), 1)]]
                break
            score = v
            best_move = int(rootm[0])
            best_score = v
            best_pv = [int(x) for x in pv_arr[0, : max(int(pvlen[0]), 1)]]
            done_depth = depth
            if self.lost_check and is_win_score(-v) and not self.options.exhaustive:
                self.lost_check = 0  # once a search
                held = self._not_lost_by_threats(n)
                if held >= 0:
                    best_move = held
                    best_pv = [held]
                    break
            if is_win_score(abs(v)) and k.WIN - abs(v) <= depth:
                break  # a proven result cannot change
            if (
                _VERIFY_WHEN == 2
                and self.verify
                and self.kept is None
                and v <= -_VERIFY_BELOW
                and not self.options.exhaustive
            ):
                self._keep_back()
            if self.soft_deadline is not None and time.perf_counter() > self.soft_deadline:
                break  # the next iteration would mostly run into the hard limit
            if self.soft_nodes is not None and g[k.G_NODES] > self.soft_nodes:
                break
        return self._result(best_move, best_score, done_depth, best_pv)
