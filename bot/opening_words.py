"""Every word players read about opening rules (swap, swap2, Soosõrv-8, Taraguchi-10).

A sibling of ``bot.errors``: button labels, the opening's status line under a board, the
refusals of opening steps, and how an AI's choice is told. Nothing here decides anything.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from engine.errors import (
    NotOfferedError,
    OfferCountError,
    OpeningError,
    OpeningStepError,
    OutsideOpeningAreaError,
    SymmetricOfferError,
)
from engine.opening_rules import Choice, OpeningRule, Phase

if TYPE_CHECKING:
    from bot.service import GameView
    from storage.repository import Player

__all__ = [
    "CHOICE_LABELS",
    "NO_OPENING",
    "OPENING_CHOICES",
    "RULE_NAMES",
    "choice_summary",
    "error_message",
    "opening_status",
    "rated_opening_field",
]

RULE_NAMES: Final = {
    OpeningRule.SWAP: "Swap",
    OpeningRule.SWAP2: "Swap2",
    OpeningRule.SOOSORV8: "Soosõrv-8",
    OpeningRule.TARAGUCHI10: "Taraguchi-10",
}

# the /gomoku start option (name shown, value stored)
OPENING_CHOICES: Final = (
    ("Swap: first places 3 stones, the other picks a colour", OpeningRule.SWAP.value),
    ("Swap2: like swap, or place 2 more and let the first pick", OpeningRule.SWAP2.value),
    ("Soosõrv-8 (renju)", OpeningRule.SOOSORV8.value),
    ("Taraguchi-10 (renju)", OpeningRule.TARAGUCHI10.value),
)

NO_OPENING: Final = "None: the challenger decides"  # the settings option that clears it


def rated_opening_field(rule: str | None) -> tuple[str, str]:
    """The settings card's field (name, value) for the opening of rated games."""
    value = RULE_NAMES[OpeningRule(rule)] if rule is not None else "no opening rule"
    return "Rated games open with", value


CHOICE_LABELS: Final = {
    Choice.BLACK: "Take Black",
    Choice.WHITE: "Take White",
    Choice.TWO: "Place two more",
    Choice.OFFER: "Offer ten fifth moves",
}

_ORDINALS: Final = ("first", "second", "third", "fourth", "fifth", "sixth")


def _stones_due(view: GameView) -> tuple[int, int]:
    """(this stone's number in the run, stones in the run) for the stone to place now."""
    opening = view.opening
    assert opening is not None
    moves = len(opening.board.moves)
    if opening.rule is not OpeningRule.TARAGUCHI10 and moves < 3:
        return moves + 1, 3
    if opening.rule is OpeningRule.SWAP2 and moves < 5:
        return moves - 2, 2
    return 1, 1


def opening_status(view: GameView, names: Callable[[Player], str]) -> str:
    """What the opening waits for, and from whom (under the board)."""
    opening = view.opening
    assert opening is not None
    actor = opening.actor
    assert actor is not None
    who = names(view.seat_player(actor))
    rule = RULE_NAMES[opening.rule]
    match opening.phase:
        case Phase.PLACE:
            number, run = _stones_due(view)
            stone = _ORDINALS[len(opening.board.moves)]
            colour = "black" if len(opening.board.moves) % 2 == 0 else "white"
            where = ""
            if opening.area is not None:
                where = (
                    " at the centre"
                    if opening.area == 1
                    else (f" inside the central {opening.area}x{opening.area}")
                )
            count = f" ({number} of {run})" if run > 1 else ""
            return (
                f"{rule} opening · {who} places the {stone} stone ({colour}){where}{count} "
                "with /place"
            )
        case Phase.CHOOSE:
            options = ", ".join(CHOICE_LABELS[c].lower() for c in opening.choices())
            return f"{rule} opening · {who} chooses: {options}"
        case Phase.DECLARE:
            return f"{rule} opening · {who} declares how many fifth moves Black must offer (1-8)"
        case Phase.OFFER:
            offered = ", ".join(str(p) for p in opening.offers) or "none yet"
            return (
                f"{rule} opening · {who} offers fifth move {len(opening.offers) + 1} of "
                f"{opening.offer_count} with /place (offered: {offered})"
            )
        case Phase.PICK:
            offered = ", ".join(str(p) for p in opening.offers)
            return f"{rule} opening · {who} picks the fifth move with /place from: {offered}"
    return f"{rule} opening"


def choice_summary(step: str, *, ai: bool) -> str:
    """A choice told in the reply ("You took White." / "The AI chose: place two more.")."""
    try:
        label = CHOICE_LABELS[Choice(step)].lower()
    except ValueError:
        label = f"{step} fifth moves"
    return f"The AI chose: {label}." if ai else f"You chose: {label}."


def error_message(error: OpeningError) -> str:
    """The refusal of an opening step."""
    match error:
        case OpeningStepError(expected="done"):
            return "The opening is over; play on with /place."
        case OpeningStepError(expected=expected):
            wanted = {
                "place": "a stone (use /place)",
                "choose": "a choice (use the buttons)",
                "declare": "the number of fifth moves (use the buttons)",
                "offer": "a fifth-move offer (use /place)",
                "pick": "one of the offered fifth moves (use /place)",
            }.get(expected, "another step")
            return f"The opening waits for {wanted}."
        case OutsideOpeningAreaError(area=1):
            return "This stone must go at the centre of the board (h8)."
        case OutsideOpeningAreaError(point=point, area=area):
            return f"**{point}** is outside the central {area}x{area} square this stone must use."
        case OfferCountError(most=most):
            return f"Declare between 1 and {most} fifth moves."
        case SymmetricOfferError(point=point, twin=twin):
            return f"**{point}** mirrors the offer **{twin}**; offer a different fifth move."
        case NotOfferedError(point=point):
            return f"**{point}** was not offered; pick one of the offered fifth moves."
    return "That step is not allowed in this opening."
