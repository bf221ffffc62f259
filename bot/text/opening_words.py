"""Every word players read about opening rules (swap, swap2, Soosõrv-8, Taraguchi-10).

A sibling of ``bot.text.refusals``: button labels, the opening's status line under a board, the
refusals of opening steps, and how an AI's choice is told. Nothing here decides anything.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from bot.text.i18n import N_, _, pgettext
from bot.text.words import command
from engine.errors import (
    NotOfferedError,
    OfferCountError,
    OpeningError,
    OpeningStepError,
    OutsideOpeningAreaError,
    SymmetricOfferError,
)
from engine.opening_rules import Choice, OpeningRule, Phase
from storage.records import COIN_TOSS

if TYPE_CHECKING:
    from bot.core.service.states import GameState
    from storage.records import Player

__all__ = [
    "CHOICE_LABELS",
    "NO_OPENING",
    "OPENING_CHOICES",
    "RULE_NAMES",
    "choice_label",
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

# the /gomoku start option (name shown, value stored; the command picker translates names)
OPENING_CHOICES: Final = (
    (N_("Swap: first places 3 stones, the other picks a colour"), OpeningRule.SWAP.value),
    (N_("Swap2: like swap, or place 2 more and let the first pick"), OpeningRule.SWAP2.value),
    (N_("Soosõrv-8 (renju)"), OpeningRule.SOOSORV8.value),
    (N_("Taraguchi-10 (renju)"), OpeningRule.TARAGUCHI10.value),
)

# the settings option for rated games without an opening rule (storage.records.COIN_TOSS)
NO_OPENING: Final = N_("None: colours by a coin toss")


def rated_opening_field(rule: str | None) -> tuple[str, str]:
    """The settings card's field (name, value) for the opening of rated games (None: the
    default, swap2; ``COIN_TOSS``: none, colours by a coin toss)."""
    if rule == COIN_TOSS:
        value = _("no opening rule; colours by a coin toss")
    else:
        value = RULE_NAMES[OpeningRule(rule or OpeningRule.SWAP2)]
    return _("Rated games open with"), value


CHOICE_LABELS: Final = {
    Choice.BLACK: N_("Take Black"),
    Choice.WHITE: N_("Take White"),
    Choice.TWO: N_("Place two more"),
    Choice.OFFER: N_("Offer ten fifth moves"),
}


def choice_label(choice: Choice) -> str:
    """An opening choice's button label, in the current language."""
    return _(CHOICE_LABELS[choice])


def _choice_words(choice: Choice) -> str:
    # The same choice inside a sentence ("You chose: take white."); some languages capitalise
    # neither, so it has its own entry rather than a lower-cased label.
    return {
        Choice.BLACK: pgettext("opening choice", "take Black"),
        Choice.WHITE: pgettext("opening choice", "take White"),
        Choice.TWO: pgettext("opening choice", "place two more"),
        Choice.OFFER: pgettext("opening choice", "offer ten fifth moves"),
    }[choice]


def _ordinal(index: int) -> str:
    return (
        pgettext("stone", "first"),
        pgettext("stone", "second"),
        pgettext("stone", "third"),
        pgettext("stone", "fourth"),
        pgettext("stone", "fifth"),
        pgettext("stone", "sixth"),
    )[index]


def _stones_due(view: GameState) -> tuple[int, int]:
    """(this stone's number in the run, stones in the run) for the stone to place now."""
    opening = view.opening
    assert opening is not None
    moves = len(opening.board.moves)
    if opening.rule is not OpeningRule.TARAGUCHI10 and moves < 3:
        return moves + 1, 3
    if opening.rule is OpeningRule.SWAP2 and moves < 5:
        return moves - 2, 2
    return 1, 1


def opening_status(view: GameState, names: Callable[[Player], str]) -> str:
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
            stone = _ordinal(len(opening.board.moves))
            colour = _("black") if len(opening.board.moves) % 2 == 0 else _("white")
            where = ""
            if opening.area is not None:
                where = (
                    _(" at the centre")
                    if opening.area == 1
                    else _(" inside the central {area}x{area}").format(area=opening.area)
                )
            count = _(" ({number} of {run})").format(number=number, run=run) if run > 1 else ""
            return _(
                "{rule} opening · {player} places the {stone} stone ({colour}){where}{count} "
                "with {place}"
            ).format(
                rule=rule,
                player=who,
                stone=stone,
                colour=colour,
                where=where,
                count=count,
                place=command("place"),
            )
        case Phase.CHOOSE:
            options = _(", ").join(_choice_words(c) for c in opening.choices())
            return _("{rule} opening · {player} chooses: {options}").format(
                rule=rule, player=who, options=options
            )
        case Phase.DECLARE:
            return _(
                "{rule} opening · {player} declares how many fifth moves Black must offer (1-8)"
            ).format(rule=rule, player=who)
        case Phase.OFFER:
            offered = _(", ").join(str(p) for p in opening.offers) or _("none yet")
            return _(
                "{rule} opening · {player} offers fifth move {number} of {count} with {place} "
                "(offered: {offered})"
            ).format(
                place=command("place"),
                rule=rule,
                player=who,
                number=len(opening.offers) + 1,
                count=opening.offer_count,
                offered=offered,
            )
        case Phase.PICK:
            offered = _(", ").join(str(p) for p in opening.offers)
            return _(
                "{rule} opening · {player} picks the fifth move with {place} from: {offered}"
            ).format(rule=rule, player=who, offered=offered, place=command("place"))
    return _("{rule} opening").format(rule=rule)


def choice_summary(step: str, *, ai: bool) -> str:
    """A choice told in the reply ("You took White." / "The AI chose: place two more.")."""
    try:
        label = _choice_words(Choice(step))
    except ValueError:
        label = _("{count} fifth moves").format(count=step)
    if ai:
        return _("The AI chose: {choice}.").format(choice=label)
    return _("You chose: {choice}.").format(choice=label)


def error_message(error: OpeningError) -> str:
    """The refusal of an opening step."""
    match error:
        case OpeningStepError(expected="done"):
            return _("The opening is over; play on with {place}.").format(place=command("place"))
        case OpeningStepError(expected=expected):
            place = command("place")
            wanted = {
                "place": _("The opening waits for a stone (use {place}).").format(place=place),
                "choose": _("The opening waits for a choice (use the buttons)."),
                "declare": _("The opening waits for the number of fifth moves (use the buttons)."),
                "offer": _("The opening waits for a fifth-move offer (use {place}).").format(
                    place=place
                ),
                "pick": _(
                    "The opening waits for one of the offered fifth moves (use {place})."
                ).format(place=place),
            }
            return wanted.get(expected) or _("The opening waits for another step.")
        case OutsideOpeningAreaError(area=1):
            return _("This stone must go at the centre of the board (h8).")
        case OutsideOpeningAreaError(point=point, area=area):
            return _(
                "**{point}** is outside the central {area}x{area} square this stone must use."
            ).format(point=point, area=area)
        case OfferCountError(most=most):
            return _("Declare between 1 and {most} fifth moves.").format(most=most)
        case SymmetricOfferError(point=point, twin=twin):
            return _(
                "**{point}** mirrors the offer **{twin}**; offer a different fifth move."
            ).format(point=point, twin=twin)
        case NotOfferedError(point=point):
            return _("**{point}** was not offered; pick one of the offered fifth moves.").format(
                point=point
            )
    return _("That step is not allowed in this opening.")
