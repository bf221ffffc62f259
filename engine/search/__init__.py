"""The search: numba kernels, pattern evaluation, alpha-beta with threat-space solving, the
small-board solver and the bot's levels. Built on the rules core (``engine``), never on
``engine.gomocup``.

Importing this package loads no numba (``engine.search.levels`` is imported by the bot's own
process for the presets); the search names load on first use, as in ``engine``.
"""

from typing import TYPE_CHECKING

from engine._lazy import lazy_names

if TYPE_CHECKING:
    from engine.search.alphabeta import Limits, SearchOptions, SearchResult, search
    from engine.search.levels import choose_move

_LAZY = {
    "choose_move": "engine.search.levels",
    "Limits": "engine.search.alphabeta",
    "SearchOptions": "engine.search.alphabeta",
    "SearchResult": "engine.search.alphabeta",
    "search": "engine.search.alphabeta",
}

__getattr__ = lazy_names(__name__, _LAZY)


__all__ = ["Limits", "SearchOptions", "SearchResult", "choose_move", "search"]
