"""Buttons: challenges, resign confirmation, undo consent, and move buttons for the small games.

Every button is a ``discord.ui.DynamicItem`` whose custom id carries all it needs
(``gomoku:<game_id>:<action>...``), so a button on a message from before a restart still works:
discord.py rebuilds the item from the id. A button does what a command does: one service call,
then the bot redraws the game (``GomokuBot.show_game``). Who may press what is the service's
business (``NotAPlayerError``, ``NotChallengedError`` ...); errors are answered privately by
``bot.reporting.report``.

Custom ids (all under Discord's 100 characters)::

    gomoku:<game>:accept | gomoku:<game>:decline        challenge
    gomoku:<game>:resign                                resign, after /gomoku resign asked
    gomoku:<game>:undo:yes | gomoku:<game>:undo:no      the opponent answers an undo request
    gomoku:<game>:cell:<x>:<y>                          tic-tac-toe grid
    gomoku:<game>:drop:<column>                         gravity games

Numbers in ids are ASCII digits of bounded length (a game id fits SQLite's 64-bit integer, a
coordinate two digits), so rebuilding an item never fails. Any other ``gomoku:`` id (a forged
one, or one of a removed feature) is answered with a sentence by ``unknown_button``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Final, Self, cast

import discord
from discord import app_commands

from bot.reporting import report
from bot.service import GameStatus, GameView, UnknownButtonError
from engine.types import Color, Game, Point, column_letter

if TYPE_CHECKING:
    from bot.client import GomokuBot

__all__ = [
    "ACTIONS",
    "ChallengeButton",
    "ColumnButton",
    "GridButton",
    "ResignButton",
    "UndoButton",
    "challenge_view",
    "game_buttons",
    "resign_view",
    "undo_view",
    "unknown_button",
]

Button = discord.ui.Button[Any]

_MARKS: Final = {Color.BLACK: "X", Color.WHITE: "O"}
_EMPTY_LABEL: Final = "\u200b"  # a button needs a label or an emoji; this one draws nothing


def _bot(interaction: discord.Interaction[Any]) -> GomokuBot:
    return cast("GomokuBot", interaction.client)


async def _edit(interaction: discord.Interaction[Any], **changes: Any) -> None:
    # The button's message: edited by the response, or after a deferral (a slow write) by
    # editing the original response.
    if interaction.response.is_done():
        await interaction.edit_original_response(**changes)
    else:
        await interaction.response.edit_message(**changes)


class GameItem:
    """Mixed into every button: ``callback`` runs ``act`` and answers errors via ``report``."""

    game_id: int

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Run ``act`` under the user's cooldown; answer any error privately."""
        try:
            cooldown = _bot(interaction).cooldown
            bucket = cooldown.hit(interaction.user.id)
            if bucket is not None:
                raise app_commands.CommandOnCooldown(bucket, cooldown.retry_after(bucket))
            await self.act(interaction)
        except Exception as error:  # every error is answered; unknown ones are logged there
            await report(interaction, error)

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        """What pressing the button does."""
        raise NotImplementedError


class ChallengeButton(
    GameItem,
    discord.ui.DynamicItem[Button],
    template=r"gomoku:(?P<game>[0-9]{1,18}):(?P<action>accept|decline)",
):
    """Accept or decline a challenge (the challenger may withdraw with Decline)."""

    def __init__(self, game_id: int, accept: bool) -> None:
        action = "accept" if accept else "decline"
        style = discord.ButtonStyle.success if accept else discord.ButtonStyle.secondary
        super().__init__(
            discord.ui.Button(
                label=action.capitalize(), style=style, custom_id=f"gomoku:{game_id}:{action}"
            )
        )
        self.game_id = game_id
        self.accept = accept

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        """Rebuild from ``gomoku:<game>:accept|decline``."""
        return cls(int(match["game"]), match["action"] == "accept")

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        """Accept (the game starts) or decline (the challenge closes); redraw the message."""
        bot = _bot(interaction)
        await interaction.response.defer()
        if self.accept:
            view = await bot.service.accept(self.game_id, interaction.user.id)
        else:
            view = (await bot.service.decline(self.game_id, interaction.user.id)).game
        await bot.show_game(view, interaction=interaction)
        if view.is_ai_turn:
            await bot.play_ai(view.game_id)


class ResignButton(
    GameItem, discord.ui.DynamicItem[Button], template=r"gomoku:(?P<game>[0-9]{1,18}):resign"
):
    """Confirms ``/gomoku resign``."""

    def __init__(self, game_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Resign",
                style=discord.ButtonStyle.danger,
                custom_id=f"gomoku:{game_id}:resign",
            )
        )
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        """Rebuild from ``gomoku:<game>:resign``."""
        return cls(int(match["game"]))

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        """Resign the game the button belongs to, then redraw the board."""
        bot = _bot(interaction)
        if interaction.channel_id is None:
            return
        end = await bot.in_time(
            interaction,
            bot.service.resign(interaction.channel_id, interaction.user.id, game_id=self.game_id),
        )
        await _edit(interaction, content="You resigned.", view=None)
        await bot.show_game(end.game, ratings=end.ratings)


class UndoButton(
    GameItem,
    discord.ui.DynamicItem[Button],
    template=r"gomoku:(?P<game>[0-9]{1,18}):undo:(?P<answer>yes|no)",
):
    """The opponent's answer to an undo request."""

    def __init__(self, game_id: int, accept: bool) -> None:
        answer = "yes" if accept else "no"
        super().__init__(
            discord.ui.Button(
                label="Allow" if accept else "Refuse",
                style=discord.ButtonStyle.primary if accept else discord.ButtonStyle.secondary,
                custom_id=f"gomoku:{game_id}:undo:{answer}",
            )
        )
        self.game_id = game_id
        self.accept = accept

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        """Rebuild from ``gomoku:<game>:undo:yes|no``."""
        return cls(int(match["game"]), match["answer"] == "yes")

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        """Answer the request; on yes the moves go and the board is redrawn."""
        bot = _bot(interaction)
        result = await bot.in_time(
            interaction,
            bot.service.answer_undo(self.game_id, interaction.user.id, accept=self.accept),
        )
        text = f"Undo {'allowed' if result is not None else 'refused'}."
        await _edit(interaction, content=text, view=None)
        if result is not None:
            await bot.show_game(result.game)


class GridButton(
    GameItem,
    discord.ui.DynamicItem[Button],
    template=r"gomoku:(?P<game>[0-9]{1,18}):cell:(?P<x>[0-9]{1,2}):(?P<y>[0-9]{1,2})",
):
    """One square of the tic-tac-toe grid."""

    def __init__(self, game_id: int, point: Point, *, mark: str | None = None) -> None:
        super().__init__(
            discord.ui.Button(
                label=mark or _EMPTY_LABEL,
                style=discord.ButtonStyle.secondary
                if mark is None
                else discord.ButtonStyle.primary,
                disabled=mark is not None,
                custom_id=f"gomoku:{game_id}:cell:{point.x}:{point.y}",
                row=None,
            )
        )
        self.game_id = game_id
        self.point = point

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        """Rebuild from ``gomoku:<game>:cell:<x>:<y>``."""
        return cls(int(match["game"]), Point(int(match["x"]), int(match["y"])))

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        """Play this square."""
        if interaction.channel_id is None:
            return
        await _bot(interaction).play_move(
            interaction, point=self.point, column=None, game_id=self.game_id
        )


class ColumnButton(
    GameItem,
    discord.ui.DynamicItem[Button],
    template=r"gomoku:(?P<game>[0-9]{1,18}):drop:(?P<column>[0-9]{1,2})",
):
    """Drop a stone into one column of a gravity game."""

    def __init__(self, game_id: int, column: int, *, full: bool = False) -> None:
        super().__init__(
            discord.ui.Button(
                label=column_letter(column).upper(),
                style=discord.ButtonStyle.secondary,
                disabled=full,
                custom_id=f"gomoku:{game_id}:drop:{column}",
            )
        )
        self.game_id = game_id
        self.column = column

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        """Rebuild from ``gomoku:<game>:drop:<column>``."""
        return cls(int(match["game"]), int(match["column"]))

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        """Drop the stone."""
        await _bot(interaction).play_move(
            interaction, point=None, column=self.column, game_id=self.game_id
        )


ACTIONS: Final = (ChallengeButton, ResignButton, UndoButton, GridButton, ColumnButton)
"""Every dynamic item, for ``bot.add_dynamic_items`` (with ``unknown_button(ACTIONS)``)."""


def _unknown_template(known: tuple[type[Any], ...]) -> str:
    # discord.py runs every item whose template matches, so this one must match exactly the
    # ``gomoku:`` ids that no other item does.
    patterns = "|".join(
        re.sub(r"\(\?P<\w+>", "(?:", cls.__discord_ui_compiled_template__.pattern) for cls in known
    )
    return rf"(?!(?:{patterns})\Z)gomoku:[\s\S]*"


def unknown_button(known: tuple[type[Any], ...]) -> type[discord.ui.DynamicItem[Button]]:
    """The item answering every ``gomoku:`` id that none of ``known`` takes (discord.py runs
    each item whose template matches, so it must not match theirs). Built at registration
    from the items registered, so a new button never finds its ids answered twice."""

    class UnknownButton(
        GameItem, discord.ui.DynamicItem[Button], template=_unknown_template(known)
    ):
        """Any ``gomoku:`` custom id no other button understands: say so instead of failing."""

        def __init__(self, custom_id: str) -> None:
            super().__init__(discord.ui.Button(label="?", custom_id=custom_id[:100]))
            self.game_id = 0

        @classmethod
        async def from_custom_id(
            cls,
            interaction: discord.Interaction[Any],
            item: discord.ui.Item[Any],
            match: re.Match[str],
            /,
        ) -> Self:
            """Keep the id as it came."""
            return cls(match.string)

        async def act(self, interaction: discord.Interaction[Any]) -> None:
            """Refuse, privately."""
            raise UnknownButtonError()

    return UnknownButton


def _view(items: list[discord.ui.Item[Any]], *, per_row: int = 5) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for index, item in enumerate(items):
        item.row = index // per_row
        view.add_item(item)
    return view


def challenge_view(game_id: int) -> discord.ui.View:
    """Accept / Decline."""
    return _view([ChallengeButton(game_id, True), ChallengeButton(game_id, False)])


def resign_view(game_id: int) -> discord.ui.View:
    """The confirmation button sent privately by ``/gomoku resign``."""
    return _view([ResignButton(game_id)])


def undo_view(game_id: int) -> discord.ui.View:
    """Allow / Refuse, for the opponent."""
    return _view([UndoButton(game_id, True), UndoButton(game_id, False)])


def game_buttons(view: GameView) -> discord.ui.View | None:
    """The buttons under a board: challenge answers, the tic-tac-toe grid or column buttons.

    Gomoku boards get none (a 15x15 board is text or an image; moves are typed with /place).
    A finished game's grid stays visible but disabled, so the final position reads at a glance.
    """
    if view.status is GameStatus.PENDING:
        return challenge_view(view.game_id)
    board = view.board
    over = view.status is not GameStatus.ACTIVE
    if view.game is Game.TICTACTOE:
        items: list[discord.ui.Item[Any]] = []
        for y in reversed(range(board.height)):
            for x in range(board.width):
                point = Point(x, y)
                stone = board[point]
                button = GridButton(view.game_id, point, mark=_MARKS[stone] if stone else None)
                button.item.disabled = button.item.disabled or over
                items.append(button)
        return _view(items, per_row=board.width)
    if view.game.has_gravity:
        if over:
            return None
        columns: list[discord.ui.Item[Any]] = [
            ColumnButton(view.game_id, x, full=board.landing_point(x) is None)
            for x in range(board.width)
        ]
        return _view(columns, per_row=4 if board.width > 5 else 5)
    return None
