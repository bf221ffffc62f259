"""The layout every search kernel shares: the state arrays, their rows and slots, the
pattern and threat-class codes, and the clock.

State lives in a few numpy arrays so numba can keep Python objects out of the hot loops:

* ``b``: int8 cells of a board padded by ``PAD`` off-board points (value 3) on every side;
  a point ``(x, y)`` is index ``(y + PAD) * S + x + PAD`` with ``S = width + 2 * PAD``.
* ``cell``: int32 ``[index, column]``: line keys (columns 0-3, one per direction), the pattern
  of each side in each direction (4-11) and each side's pattern code (12-13), kept up to date
  on play/undo for the points within ``half`` of the stone, in the first 64-byte line of each
  point; then the learned value's features of the point (``R_VH`` on), zeros unless a value is
  named.
* ``near``: stones in the 5x5 square around each point (candidates are points with one).
* ``us`` (in ``st``): int64 ``[move number, column]``, what a move changed, for its undo to
  put back (``U_*``): the running sums of ``g``, then each point whose patterns it touched with
  that point's patterns and codes as they were.
* ``ev`` (in ``st``): per side and pattern code, ``value << 4 | threat class``.
* ``g``: int64 scalars (``G_*``): geometry, rule, side to move, nodes, limits, the running
  evaluation of each side and each side's count of points per threat class.

The kernels read this layout in one place, here; ``engine.search._kernels`` gathers the
kernels for their callers.
"""

from __future__ import annotations

import time
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from engine.search._jit import njit, njit_inline

# one hash of every kernel file (engine.search._jit), so numba recompiles all after a change
KERNELS_STAMP = "c36f9652438b6287"

PAD = 5
MAX_PLY = 128
MAX_MOVES = 400
WIN = 30000  # a five now; mate-style scores are WIN - plies
WIN_MIN = WIN - 1000  # anything above is a forced win
INF = 32000

# cell rows
R_PAT = 4
R_CODE = 12
# the learned value head's features of the point (``_state``, ``_tree._value``): VH_MAX for
# Black to move, then VH_MAX for White to move, in units of 2 ** -VH_SHIFT; with the head off
# they stay zero and the first 64-byte line of a point holds all that the search reads
R_VH = 16
VH_MAX = 32
NROWS = R_VH + 2 * VH_MAX

# g slots
G_W, G_H, G_S, G_RULE, G_HALF, G_SIDE, G_NMOVES, G_NODES = range(8)
G_NODE_LIMIT, G_STOP, G_TIMED, G_NEXT_CHECK, G_VAL, G_VAL_W = range(8, 14)
G_P4 = 14  # 2 * NP4 counters: points of each threat class per side
G_WIDTH = 36  # candidate width (0 = all)
G_BEST = 37  # best root move of the current iteration
G_SELDEPTH = 38
G_VCF_DEPTH = 39  # VCF depth at the leaves (0 = off)
G_SEARCHED = 40  # root moves completely searched in the current iteration
G_NOISE = 41  # evaluation noise amplitude (levels)
G_SEED = 42
# the constant 1, as an int64 read at run time: recursive kernels must always be called with
# the argument types of their own recursive calls, or numba's disk cache crashes on load (a
# literal 1 or an int32 from an int32 array each make another specialization)
G_ONE = 44
G_POL = 43  # the policy's features a point (0: candidates ordered by the hand-set scores)
G_POL_LMP = 47  # with the policy: quiet moves searched at depth d, G_POL_LMP + d * d (0: G_LMP)
G_PURE = 45  # plain alpha-beta: no threat pruning, extensions or tactical shortcuts (tests)
G_DEEP_VCF = 46  # attacking fours of the local VCF (vcf_local) at the leaves (0 = off)
# selectivity of the full-strength search (0 = off: the levels below master search as before)
G_SELECT = 48  # SEL_* bits
G_LMP = 49  # quiet moves searched at a node of depth d: G_LMP + d * d, then the rest are skipped
G_FUTILITY = 50  # reverse futility margin per ply of depth (above beta)
G_RAZOR = 51  # razoring margin per ply of depth (below alpha) where the root's opponent moves
G_LMR = 52  # SEL_LMR: reduction = ln(depth) * ln(move number) * G_LMR / 100 plies
G_MINE = 53  # the evaluation is (G_MINE * mine - 4 * theirs) // 4 (the weights' "mine")
# the evaluation network (0 hidden units: the linear evaluation above). Its inputs are the
# side to move's threat-class counts, the other side's, both sides' linear sums and whether
# Black is to move; each hidden unit is a row of G_NET_W: NET_IN input weights and a bias in
# units of 2 ** -NET_SHIFT, then its output weight
G_NET = 54  # hidden units
G_NET_OUT = 55  # the output's bias, in evaluation units
G_NET_W = 56
NET_IN = 2 * 11 + 3
NET_ROW = NET_IN + 2
NET_MAX = 32
NET_SHIFT = 24
NET_CLIP = 20000  # below WIN_MIN: a network's opinion is never a proof
NET_OUT_SHIFT = 8  # output weights in units of 2 ** -NET_OUT_SHIFT evaluation units
# a hidden unit's value is held below 2 ** 32 (256 in logits); with the loader's bounds on the
# weights (|input weight| < 64, |bias| < 1024, |output weight| < 2 ** 16 evaluation units) no
# sum overflows while the sides' sums of values stay below 2 ** 27 (the learned values' stay
# below 2 ** 16)
NET_HIDDEN_MAX = 1 << 32
# the move policy (``_tree._policy``): a point's code in a direction is the side to move's
# pattern * NPAT + the other side's; each code has a row of POL_MAX feature weights (G_POL_E),
# a point's four rows are summed with a bias (G_POL_B), and the ReLU of each feature times its
# weight (G_POL_U) is the point's score, all in units of 2 ** -POL_SHIFT (the score's unit is
# 2 ** -(2 * POL_SHIFT) logits); the candidates' key is the score >> POL_KEY_SHIFT
NPAT = 12
POL_MAX = 32  # room for this many features a point: a policy file's width (g[G_POL]) is its own
POL_SHIFT = 8
POL_KEY_SHIFT = 4  # keys in units of 2 ** -12 logits: 4096 a logit
G_POL_E = G_NET_W + NET_MAX * NET_ROW
G_POL_B = G_POL_E + NPAT * NPAT * POL_MAX
G_POL_U = G_POL_B + POL_MAX
# a policy's other inputs (G_POL_IN, bits: POL_DISTANCE, POL_THREAT; tools/mixnet.py's INPUTS),
# each more rows a point adds to its sum: its Chebyshev distance to the last move (1, 2, 3, or
# POL_NEAR or more, or no such move), then to the one before (G_POL_D, 2 * POL_NEAR rows), and
# its threat classes, the side to move's * 11 + the other's (G_POL_T, 121 rows); G_POL_Z is a
# row of zeros, read in place of an input the policy lacks
POL_NEAR = 4
POL_DISTANCE, POL_THREAT = 1, 2
# a policy may also read each direction's line window (POL_WINDOW in G_POL_IN): the WIN_HALF
# points on each side of the point, two bits each (empty, the side to move's, the other's, off
# the board), from the line key; its rows are not in g but in the state's window table
# (``st[14]``, ``[window, feature]``, every raw window's row, a window and its mirror image
# sharing one), summed beside the four codes' rows
POL_WINDOW = 4
WIN_HALF = 4
NWINDOW = 1 << (4 * WIN_HALF)  # raw windows
G_POL_D = G_POL_U + POL_MAX
G_POL_T = G_POL_D + 2 * POL_NEAR * POL_MAX
G_POL_Z = G_POL_T + 11 * 11 * POL_MAX
G_POL_IN = G_POL_Z + POL_MAX
# with the policy: a quiet move whose key is more than this many keys below the best
# candidate's is not searched (0: none is cut); _generate leaves the best key in G_POL_TOP
G_POL_CUT = G_POL_IN + 1
G_POL_TOP = G_POL_CUT + 1
# with the policy: a quiet move searched after the first loses a ply for every this many keys
# it lies below the best candidate's, at most two and never down to the leaf (0: the fixed
# reductions by move number)
G_POL_RED = G_POL_TOP + 1
# a point's score depends only on its two pattern codes (R_CODE), its distance buckets and,
# where the policy reads them, its four windows: the scores met are kept in POL_CACHE
# direct-mapped triples of (1 + the codes and buckets, the windows, score), zeros when empty
G_POL_CACHE = G_POL_RED + 1
POL_CACHE = 4096
NCODE4 = NPAT**4  # a side's pattern code: its four directions' patterns in base NPAT
# null-move pruning (in ``_tree.alphabeta``): the reduction R of the null search (0: off), the
# least remaining depth where a node tries it, the ply just below the null move being searched
# (none twice in a row), how many null moves were searched and how many of them cut
G_NULL = G_POL_CACHE + 3 * POL_CACHE
G_NULL_DEPTH = G_NULL + 1
G_NULL_PLY = G_NULL + 2
G_NULLS = G_NULL + 3
G_NULL_CUTS = G_NULL + 4
# late-move pruning's growth with depth (SEL_LMP): quiet moves searched at remaining depth d are
# the base + d ** (G_LMP_POW / 100), or the base + d * d where it is 0
G_LMP_POW = G_NULL + 5
# internal iterative reduction (in ``_tree.alphabeta``): a node of at least this remaining
# depth with no move from the transposition table searches a ply shallower (0: off)
G_IIR = G_LMP_POW + 1
# reverse futility and razoring (SEL_FUTILITY) act at remaining depths up to this
G_FUT_DEPTH = G_IIR + 1
# with the policy: at remaining depth 1-2 the quiet-move cut is this many keys below the best
# candidate's instead of G_POL_CUT (0: G_POL_CUT at every depth)
G_POL_CUT_LOW = G_FUT_DEPTH + 1
# the learned value head (tools/value.py's fit, evaluate.ValueHead), used in place of the
# network when G_VH_F > 0: every empty point's features are the ReLU of the sum of a bias, a
# row of G_VH_E for each direction's code (the side to move's pattern * NPAT + the other's) and
# a row for its threat classes (NCODE + the side to move's class * NP4 + the other's), kept for
# both sides to move in cell (R_VH) as stones come and go; their sums over the empty points
# (G_VH_POOL, Black to move then White) feed one layer of ReLU units and a logit. Weights in
# units of 2 ** -VH_SHIFT; a unit's bias in 2 ** -VH_Z, the output's bias in 2 ** -VH_Z
G_VH_F = G_POL_CUT_LOW + 1  # features a point (0: off)
G_VH_H = G_VH_F + 1  # hidden units
G_VH_SCALE = G_VH_F + 2  # evaluation units a logit
G_VH_B2 = G_VH_F + 3
G_VH_ADD = G_VH_F + 4  # 1: the head's value is added to the network's (a correction), 0: alone
VH_ROWS = NPAT * NPAT + 11 * 11  # the direction codes, then the threat-class pairs
VH_HMAX = 32
VH_SHIFT = 8
VH_POOL_SHIFT = 4  # the head reads the sum of the features / 16 (tools/mixnet.py's POOL)
VH_Z = 2 * VH_SHIFT + VH_POOL_SHIFT
G_VH_E = G_VH_F + 5
G_VH_B = G_VH_E + VH_ROWS * VH_MAX
G_VH_W1 = G_VH_B + VH_MAX  # VH_MAX rows (features) of VH_HMAX (units)
G_VH_B1 = G_VH_W1 + VH_MAX * VH_HMAX
G_VH_W2 = G_VH_B1 + VH_HMAX
G_VH_POOL = G_VH_W2 + VH_HMAX
# late-move pruning where the static value has not improved (in ``_tree.alphabeta``): at a node
# whose static value is no higher than two plies before, only this percentage of the quiet
# moves late-move pruning would search is searched (0: off); G_SEVAL keeps each ply's value
G_LMP_IMPROVE = G_VH_POOL + 2 * VH_MAX
G_SEVAL = G_LMP_IMPROVE + 1
# reverse futility (SEL_FUTILITY) also at nodes where only the side to move threatens to win
# (1; 0: only where neither side does)
G_FUT_OWN = G_SEVAL + MAX_PLY + 2
# singular extensions (in ``_tree.alphabeta``): from this remaining depth (0: off), a node's
# table move that fails high alone, every other move below its score less G_SE_MARGIN a ply,
# is searched a ply deeper; G_SKIP holds, per ply, the move a probe leaves out, plus 1
G_SE_DEPTH = G_FUT_OWN + 1
G_SE_MARGIN = G_SE_DEPTH + 1
G_SKIP = G_SE_MARGIN + 1
# razoring's margin a ply (SEL_FUTILITY) at the nodes where the root's side is to move (even
# plies); G_RAZOR's at those of its opponent
G_RAZOR_ROOT = G_SKIP + MAX_PLY + 2
# late-move reductions (SEL_LMR) in quarter plies (1; 0: in whole plies): a child's depth is
# rounded up to whole plies and the quarters that added are owed down the line, paid by the
# next reductions; G_DEBT holds, per ply, the quarters a node owes
G_LMR_QUARTERS = G_RAZOR_ROOT + 1
G_DEBT = G_LMR_QUARTERS + 1
# late-move reductions at the root (with SEL_LMR), their scale in hundredths of
# ln(depth) * ln(move number) plies, less a ply (the root is a PV node); 0: none
G_ROOT_LMR = G_DEBT + MAX_PLY + 2
# at PV nodes a reduced move that beats alpha is searched again at full depth with the null
# window first, and with the full window only if that lands inside it (1; 0: at once with the
# full window)
G_LMR_VERIFY = G_ROOT_LMR + 1
# late-move reductions (SEL_LMR) this many hundredths of a ply smaller at a node that is or was
# on the PV (a PV node, or one whose table entry a PV node wrote: the entry's bit TT_PV, kept
# only while this is set); 0: off
G_LMR_TTPV = G_LMR_VERIFY + 1
# fail-high reduction (in ``_tree.alphabeta``): at a null-window node of two plies or more to go
# whose static value is at least this many units a ply above beta, and where the opponent has
# no four, every move but one that makes a four is searched a ply shallower (0: off)
G_FH_RED = G_LMR_TTPV + 1
# late-move reductions (SEL_LMR) this many hundredths of a ply larger for each logit a move's
# policy score lies below the node's best candidate's (0: off)
G_LMR_GAP = G_FH_RED + 1
# a reduced move whose null-window search beats alpha by at least this many evaluation units is
# searched again a ply deeper than its full depth (0: off)
G_LMR_DEEPER = G_LMR_GAP + 1
# the last move of a position's setup and the one before, plus 1 (0: none), for a policy that
# reads the distance to the last two moves (POL_DISTANCE) at nodes the search's own moves do not
# reach
G_PREV = G_LMR_DEEPER + 1
# with the policy: the killers' lift in the candidates' keys (keys, 4,096 a logit), the first
# killer's whole and the second's half, in place of their place ahead of every other move (0)
G_KILLER_KEY = G_PREV + 2
# stones in each padded row and column (``_box``: the part of the board a scan need look at)
G_ROWS = G_KILLER_KEY + 1
G_COLS = G_ROWS + 32
# the transposition table's ways: 1, one entry a hash (the newest stays); 2, pairs of entries, a
# new entry replacing the less worth keeping, by its depth less 8 plies for each search since it
# was written (G_TT_GEN: the search's number among those that keep the table, modulo 32, kept in
# bits 3-7 of an entry)
G_TT_WAYS = G_COLS + 32
G_TT_GEN = G_TT_WAYS + 1
# at the nodes of the root's opponent (odd plies), with the policy: the quiet-move cut this many
# keys below the best candidate's instead of G_POL_CUT (0: G_POL_CUT), and the late-move
# reductions' scale instead of G_LMR (0: G_LMR)
G_POL_CUT_OPP = G_TT_GEN + 1
G_LMR_OPP = G_POL_CUT_OPP + 1
# where a search's nodes go (counted, never read by the search): the stones the leaves' VCF
# probes played, and the moves into the main search's leaves
G_PROBE_NODES = G_LMR_OPP + 1
G_LEAF_NODES = G_PROBE_NODES + 1
# trivial-move pruning (in ``_tree.alphabeta``): at this many plies to go or fewer (0: off), past
# the first move and once a move has not lost, a move that makes nothing for either side (its
# point's threat class P4_NONE for both) is not searched
G_TRIVIAL = G_LEAF_NODES + 1
# the moves late-move pruning and the policy's cut never skip: 0, one's own fives, fours and
# open threes and the opponent's four points (``_tree._tactical``); 1, one's own fives and fours
G_KEPT = G_TRIVIAL + 1
# the quiescence over fours at the leaves (``_tree.qvcf``): at most this many of the side to
# move's fours, each answered by its forced block, may raise a leaf's static value (0: off), and
# a null-window leaf this many evaluation units or more below alpha plays none (0: no such cut)
G_QVCF = G_KEPT + 1
G_QVCF_DELTA = G_QVCF + 1
# the answers to the opponent's four-three point (``_threats._defences43``; in renju, White's,
# and Black's as G_DEFEND43_BLACK says): 1, only its exact defences and one's own fours are
# searched, each in full like the answers to an open three; 2, only those, with the node's
# usual reductions and pruning (0: off, every candidate)
G_DEFEND43 = G_QVCF_DELTA + 1
# 1: the answers to the opponent's open three are only those that leave it no straight four,
# and one's own fours (``_threats._stopping``, in freestyle); 0: every point where it would
# make a four, and one's own fours
G_DEFEND3 = G_DEFEND43 + 1
# against the opponent's open three, one's own fours that stop none of its fours and lie more
# than four points from the last move (by the opponent) or the one before (one's own), Rapfi's
# "distracting" defences: bit 1, those far from both are not searched within 4 plies of the
# horizon; bit 2, the others are searched 2 plies shallower far from the last move and 1 far
# from the one before (then again in full where they beat alpha); 0: off, all in full
G_DISTRACT = G_DEFEND3 + 1
# in renju, 1: Black's four-three points are answered with the list too (``G_DEFEND43`` on),
# once ``_threats._real43`` finds the point one Black may play and its three a true one; 0:
# White's alone (``alphabeta`` sets it in White's searches only, by default)
G_DEFEND43_BLACK = G_DISTRACT + 1
# 1: the evaluation reads each side's sum of point values as the mean of the position's and
# the one before the last move (Rapfi's classical evaluation so halves the swing of the side
# that just moved); the threat classes stay the position's own. 0: the position's alone.
# G_PVAL holds the sums before the last move (``_state.play`` and ``undo`` keep them, from the
# undo stack's rows); G_PVAL0 the root's, since its setup stones are never taken back
G_EVAL_AVG = G_DEFEND43_BLACK + 1
G_PVAL = G_EVAL_AVG + 1
G_PVAL0 = G_PVAL + 2
# 1: where the transposition table bounds a node's value more tightly than its static value
# does (a lower bound above it, an upper bound below it, or an exact value), the pruning by
# the static value (reverse futility, razoring, fail-high reduction) reads the table's value
# instead, as Rapfi's search does; 0: the static value alone
G_TT_EVAL = G_PVAL0 + 2
# N > 0: a late move that makes a four (not a four-three) is reduced by N% of a quiet move's
# log-log reduction, before the node's adjustments, as Rapfi's search reduces every move; 0:
# never reduced (the reply is forced, so its line is cheap and decisive)
G_LMR_FOUR = G_TT_EVAL + 1
# with the policy: the most the history lifts a candidate's key, in keys (4,096 a logit; 0: a
# quarter of a logit, 1,024, as with the hand-set order); and 1: a quiet move searched before
# the one that cut a node off loses the history that move gains, each kept within +-65,536 by
# gravity (the further a value from zero, the less a bonus or malus moves it); 0: the cutting
# move alone gains, without bound
G_HIST_KEY = G_LMR_FOUR + 1
G_HIST_MALUS = G_HIST_KEY + 1
# with the policy: at this many plies to go or more, no quiet move is cut by its policy score
# and the candidates are not capped at the width, so that a deep search can still find what the
# policy misjudges (0: the cut and the width at every depth)
G_POL_CUT_HIGH = G_HIST_MALUS + 1
# with the policy: the counter-move's lift in the candidates' keys (keys, 4,096 a logit), the
# quiet move that last cut a node off after the same move of the opponent's (the search
# buffers' counter-move table, ``sr[12]``, the move + 1 by side and the opponent's point); 0: off
G_COUNTER = G_POL_CUT_HIGH + 1
# 1: late-move pruning, the policy's cut and the width skip a move only once the node has a
# move that does not lose by force, so that a node whose first moves all lose searches the rest
# before it is called lost (a pruned defence would make the loss, and the win one ply up, false);
# 2: they skip as ever, but a node that skipped a move and lost with every other is valued
# ``_tree.UNPROVEN``, not lost by force; 0: they skip, and such a node is called lost
G_PRUNE_SAFE = G_COUNTER + 1
# K > 0: the answer to a four gains a ply beyond the one it already keeps once every K such
# answers along the line from the root (G_FOURS holds, per ply, the answers made on the way
# there), as Rapfi's search extends each answer by 1.3 plies; 0: the ply it keeps alone
G_FOUR_EXT = G_PRUNE_SAFE + 1
G_FOURS = G_FOUR_EXT + 1
# S > 0: a PV node whose table entry has a move but is shallower than the node is searched
# (depth less the entry's depth) x S / 100 plies shallower (rounded down, at most 3, never
# below a ply), as Rapfi's search reduces a PV node whose table move has not been chosen for
# a few iterations; 0: at its full depth
G_PV_TT_RED = G_FOURS + MAX_PLY + 2
# S > 0: at a node off the PV whose static value has not risen over the last two plies, a late
# move reduced by more than a ply loses S hundredths of a ply more, as Rapfi's search reduces
# (the values kept in G_SEVAL, as for G_LMP_IMPROVE); 0: off
G_LMR_IMPROVE = G_PV_TT_RED + 1
# bit 1: at a node inside the tree whose move has raised alpha short of beta (a PV node), the
# moves after it are searched a ply shallower, from 3 plies to go up to 11, as Rapfi's search
# reduces once a score has improved; bit 2: the root's moves after the first that raised alpha
# as well; 0: off
G_ALPHA_RED = G_LMR_IMPROVE + 1
# correction history (``_tree._corrected``; 0: off): the static value a node prunes and a leaf
# returns is corrected by what this search found at the nodes alike, each table keyed by one
# trait of the node and the side to move. Bit 1: both sides' counts of threes and fours (the
# threats' make-up); bit 2: the last move's point; bit 4: the last two moves' points. An entry
# holds, in 1/CORR_UNIT of an evaluation unit, its share of the running mean of a searched value
# less the static value: the named tables' sum moves G_CORR_RATE 256ths of the way to the
# searched value a ply of depth (at most 8 plies, at most the whole way), each entry kept
# within G_CORR_LIMIT evaluation units
G_CORR = G_ALPHA_RED + 1
G_CORR_RATE = G_CORR + 1
G_CORR_LIMIT = G_CORR + 2
G_CORR_T = G_CORR + 3  # CORR_TABLES tables, each 2 sides of CORR_N entries
CORR_N = 4096
CORR_TABLES = 3
CORR_UNIT = 64
NG = G_CORR_T + CORR_TABLES * 2 * CORR_N

SEL_LMP = 1  # late quiet moves are not searched at all
SEL_FUTILITY = 2  # reverse futility and razoring near the horizon (G_FUT_DEPTH) in calm positions
SEL_LMR = 4  # late-move reductions growing with depth and move number (_reduction)
SEL_MATE = 8  # mate-distance pruning, and proven results cut off at PV nodes too

RULE_FREESTYLE, RULE_STANDARD, RULE_RENJU, RULE_CARO = range(4)
NONE, B1, F1, B2, F2, B3, F3, B4, F4, FIVE, OVERLINE, FOUR_FOUR = range(12)
NP4 = 11

# the undo stack ``us``: a row per move number, the running sums (G_VAL's two, then G_P4's) as
# they were, the end of the touched points, then a column a point (its index * 4 + direction,
# its patterns and its codes, packed by ``_state``)
U_SUMS = 2 + 2 * NP4
U_COUNT = U_SUMS
U_POINTS = U_COUNT + 1
U_ROW = U_POINTS + 4 * 10  # four lines of up to 2 * 5 points (half = 5)
P4_NONE, P4_TWO, P4_TWO_PLUS, P4_F3, P4_F3_PLUS, P4_F3_F3 = range(6)
P4_B4, P4_B4_PLUS, P4_B4_F3, P4_FLEX4, P4_FIVE = range(6, 11)

TT_EXACT, TT_LOWER, TT_UPPER = 1, 2, 3
TT_PV = 4  # a table entry's bit: a PV node wrote it (G_LMR_TTPV)

IntArray = npt.NDArray[np.int64]
I32Array = npt.NDArray[np.int32]
I8Array = npt.NDArray[np.int8]
U8Array = npt.NDArray[np.uint8]
U64Array = npt.NDArray[np.uint64]
F64Array = npt.NDArray[np.float64]
State = tuple[Any, ...]  # the arrays above, see the module docstring


@njit
def now() -> float:
    """Seconds from a monotonic clock (numba has no clock of its own)."""
    with numba.objmode(t="float64"):
        t = time.perf_counter()
    return t


@njit_inline
def _steps(s: int) -> tuple[int, int, int, int]:
    return (1, s, s + 1, s - 1)


@njit_inline
def _shift(k: int, half: int) -> int:
    # bit offset of the point k steps away (k != 0) inside a line key
    return 2 * (k + half if k < 0 else k + half - 1)


@njit_inline
def _box(g: IntArray) -> tuple[int, int, int, int]:
    # the rows and columns (first and last, unpadded) within two points of a stone: every
    # candidate (a point with a stone in its 5x5 square) and every point where a stone would make
    # a three or more (its line's other stones lie within two points of it) is inside; with no
    # stone, an empty range
    h = g[G_H]
    w = g[G_W]
    y0 = -1
    for y in range(h):
        if g[G_ROWS + PAD + y] > 0:
            y0 = y
            break
    if y0 < 0:
        return 0, -1, 0, -1
    y1 = y0
    for y in range(h - 1, y0, -1):
        if g[G_ROWS + PAD + y] > 0:
            y1 = y
            break
    x0 = 0
    for x in range(w):
        if g[G_COLS + PAD + x] > 0:
            x0 = x
            break
    x1 = x0
    for x in range(w - 1, x0, -1):
        if g[G_COLS + PAD + x] > 0:
            x1 = x
            break
    return max(y0 - 2, 0), min(y1 + 2, h - 1), max(x0 - 2, 0), min(x1 + 2, w - 1)
