"""Buttons: challenges, resign confirmation, undo consent, and move buttons for the small games.

Every button is a ``discord.ui.DynamicItem`` whose custom id carries all it needs
(``gomoku:<game_id>:<action>...``), so a button on a message from before a restart still works:
discord.py rebuilds the item from the id. A button does what a command does: one service call,
then the bot redraws the game (``bot.table.Table.show_game``). Who may press what is the service's
business (``NotAPlayerError``, ``NotChallengedError`` ...); errors are answered privately by
``bot.reporting.report``.

Custom ids (all under Discord's 100 characters)::

    gomoku:<game>:accept | gomoku:<game>:decline        challenge
    gomoku:<game>:resign                                resign, after /gomoku resign asked
    gomoku:<game>:undo:yes | gomoku:<game>:undo:no      the opponent answers an undo request
    gomoku:<game>:cell:<x>:<y>                          tic-tac-toe grid
    gomoku:<game>:drop:<column>                         gravity games
    gomoku:<game>:move                                  opens the private tap panel
    gomoku:<game>:tap:<x>:<y>:<version>                 a point of the panel
    gomoku:<game>:pan:<l|u|d|r|c>:<x0>:<y0>:<version>   the panel's arrows
    gomoku:<game>:rematch                               a finished game, again
    gomoku:<game>:open:<black|white|two|offer|1..8>     an opening rule's choices

The tap panel (``panel_message``) is a private Components V2 message (``ui.LayoutView``: up to
40 components, so a 5x5 grid of points fits beside a row of arrows). Its buttons carry the
game's version: a tap on a panel drawn before the game moved on is refused
(``StalePanelError``) and changes nothing.

Numbers in ids are ASCII digits of bounded length (a game id fits SQLite's 64-bit integer, a
coordinate two digits), so rebuilding an item never fails. Any other ``gomoku:`` id (a forged
one, or one of a removed feature) is answered with a sentence by ``unknown_button``.
"""

from __future__ import annotations

import io
import re
from typing import TYPE_CHECKING, Any, Final, Self

import discord
from discord import app_commands

from bot.core.games import Buttons, table_spec
from bot.core.positions import forbidden_points
from bot.core.service.errors import NoUndoRequestError, UnknownButtonError
from bot.core.service.inputs import AnswerUndo, Choose, GameRef, Resign
from bot.core.service.states import GameState
from bot.host import VIA, GameHost, MovePlay, host_of
from bot.reporting import report
from bot.text import panel, render, words
from bot.text.opening_words import choice_label
from bot.text.render_png import render_png_async
from engine.opening_rules import SOOSORV_MOST, Choice, Phase
from engine.types import Color, Point, column_letter
from storage.records import GameStatus

__all__ = [
    "ACTIONS",
    "AnswerItem",
    "ChallengeButton",
    "ColumnButton",
    "GridButton",
    "MoveButton",
    "OpeningButton",
    "PanButton",
    "PressedItem",
    "RematchButton",
    "ResignButton",
    "TapButton",
    "UndoButton",
    "challenge_view",
    "edit_answered",
    "for_send",
    "game_button",
    "game_buttons",
    "panel_message",
    "resign_view",
    "undo_view",
    "unknown_button",
]

Button = discord.ui.Button[Any]

_MARKS: Final = {Color.BLACK: "X", Color.WHITE: "O"}
_EMPTY_LABEL: Final = "\u200b"  # a button needs a label or an emoji; this one draws nothing


def game_button(game_id: int, action: str, **options: Any) -> Button:
    """A button of game ``game_id`` whose custom id is ``gomoku:<game_id>:<action>``."""
    return discord.ui.Button(custom_id=f"gomoku:{game_id}:{action}", **options)


async def edit_answered(interaction: discord.Interaction[Any], **changes: Any) -> None:
    """Edit the pressed button's message: by the response (the press's answer), or after a
    deferral (a slow write) by editing the original response."""
    if interaction.response.is_done():
        await interaction.edit_original_response(**changes)
    else:
        await interaction.response.edit_message(**changes)


class PressedItem:
    """Mixed into every button, before ``DynamicItem``: ``callback`` runs ``act`` under the
    member's cooldown and answers errors via ``report``; ``from_custom_id`` rebuilds the
    button with ``from_match``."""

    if TYPE_CHECKING:  # each button takes its own arguments, passed on to DynamicItem

        def __init__(self, *args: Any, **kwargs: Any) -> None: ...

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Run ``act`` under the user's cooldown; answer any error privately."""
        try:
            await host_of(interaction).preferences.set_answer_language(interaction)
            cooldown = host_of(interaction).cooldown
            bucket = cooldown.hit(interaction.user.id)
            if bucket is not None:
                raise app_commands.CommandOnCooldown(bucket, cooldown.retry_after(bucket))
            await self.act(interaction)
        except Exception as error:  # every error is answered; unknown ones are logged there
            await report(interaction, error)

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        """What pressing the button does."""
        raise NotImplementedError

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        """Rebuild the button from its custom id: discord.py asks on every press."""
        return cls.from_match(match)

    @classmethod
    def from_match(cls, match: re.Match[str]) -> Self:
        """The button that the custom id's ``match`` names."""
        raise NotImplementedError


class GameItem(PressedItem):
    """Mixed into every button of a game, whose custom id names it in the group ``game``."""

    game_id: int

    @classmethod
    def from_match(cls, match: re.Match[str]) -> Self:
        """The button that the custom id's ``match`` names: by its game alone, unless a button
        with more in its custom id says otherwise."""
        return cls(int(match["game"]))


class AnswerItem(GameItem):
    """Mixed into a yes-or-no button, whose template puts its yes word in the group ``yes``."""

    accept: bool

    @classmethod
    def from_match(cls, match: re.Match[str]) -> Self:
        """Rebuild from the custom id: the game, and whether it says yes."""
        return cls(int(match["game"]), match["yes"] is not None)


class ChallengeButton(
    AnswerItem,
    discord.ui.DynamicItem[Button],
    template=r"gomoku:(?P<game>[0-9]{1,18}):(?:(?P<yes>accept)|decline)",
):
    """Accept or decline a challenge (the challenger may withdraw with Decline)."""

    def __init__(self, game_id: int, accept: bool) -> None:
        action = "accept" if accept else "decline"
        style = discord.ButtonStyle.success if accept else discord.ButtonStyle.secondary
        super().__init__(
            game_button(game_id, action, label=words.challenge_label(accept=accept), style=style)
        )
        self.game_id = game_id
        self.accept = accept

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        """Accept (the game starts) or decline (the challenge closes); redraw the message."""
        bot = host_of(interaction)
        user_id = interaction.user.id
        if self.accept:
            view = await bot.table.defer_if_slow(
                interaction, bot.service.accept(self.game_id, user_id)
            )
        else:
            end = await bot.table.defer_if_slow(
                interaction, bot.service.decline(self.game_id, user_id)
            )
            view = end.game
        # The challenge is the board message: its redraw answers the button (one request),
        # unless a slow write deferred it or the board is drawn elsewhere.
        await bot.table.answer_with_board(interaction, view)
        if view.is_ai_turn:
            await bot.table.play_ai(view.game_id)


class ResignButton(
    GameItem, discord.ui.DynamicItem[Button], template=r"gomoku:(?P<game>[0-9]{1,18}):resign"
):
    """Confirms ``/gomoku resign``."""

    def __init__(self, game_id: int) -> None:
        super().__init__(
            game_button(
                game_id, "resign", label=words.resign_label(), style=discord.ButtonStyle.danger
            )
        )
        self.game_id = game_id

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        """Resign the game the button belongs to, then redraw the board."""
        bot = host_of(interaction)
        if interaction.channel_id is None:
            return
        ref = GameRef(self.game_id, interaction.channel_id)
        end = await bot.table.defer_if_slow(
            interaction, bot.service.act(ref, interaction.user.id, Resign(), via=VIA)
        )
        await edit_answered(interaction, content=words.resigned(), view=None)
        await bot.table.show_game(end.game, ratings=end.ratings)


class UndoButton(
    AnswerItem,
    discord.ui.DynamicItem[Button],
    template=r"gomoku:(?P<game>[0-9]{1,18}):undo:(?:(?P<yes>yes)|no)",
):
    """The opponent's answer to an undo request."""

    def __init__(self, game_id: int, accept: bool) -> None:
        answer = "yes" if accept else "no"
        super().__init__(
            game_button(
                game_id,
                f"undo:{answer}",
                label=words.undo_answer_label(accept=accept),
                style=discord.ButtonStyle.primary if accept else discord.ButtonStyle.secondary,
            )
        )
        self.game_id = game_id
        self.accept = accept

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        """Answer the request; on yes the moves go and the board is redrawn."""
        bot = host_of(interaction)
        answer = AnswerUndo(self.accept)
        try:
            result = await bot.table.defer_if_slow(
                interaction,
                bot.service.act(GameRef(self.game_id), interaction.user.id, answer, via=VIA),
            )
        except NoUndoRequestError:
            # Answered or withdrawn elsewhere, or the game moved on, and the message was not
            # edited then (its note in storage failed, or a bus was away): its buttons go
            # now, and the presser hears why. Only a message that says something keeps
            # standing without them (Discord refuses to leave a message empty).
            pressed = interaction.message
            if pressed is not None and (pressed.content or pressed.embeds):
                await edit_answered(interaction, view=None)
            raise
        text = words.undo_answered(allowed=result is not None)
        await edit_answered(interaction, content=text, view=None)
        if result is not None:
            await bot.table.show_game(result.game)


class GridButton(
    GameItem,
    discord.ui.DynamicItem[Button],
    template=r"gomoku:(?P<game>[0-9]{1,18}):cell:(?P<x>[0-9]{1,2}):(?P<y>[0-9]{1,2})",
):
    """One square of the tic-tac-toe grid."""

    def __init__(self, game_id: int, point: Point, *, mark: str | None = None) -> None:
        super().__init__(
            game_button(
                game_id,
                f"cell:{point.x}:{point.y}",
                label=mark or _EMPTY_LABEL,
                style=discord.ButtonStyle.secondary
                if mark is None
                else discord.ButtonStyle.primary,
                disabled=mark is not None,
                row=None,
            )
        )
        self.game_id = game_id
        self.point = point

    @classmethod
    def from_match(cls, match: re.Match[str]) -> Self:
        """Rebuild from ``gomoku:<game>:cell:<x>:<y>``."""
        return cls(int(match["game"]), Point(int(match["x"]), int(match["y"])))

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        """Play this square."""
        if interaction.channel_id is None:
            return
        move = MovePlay.on_board(self.game_id, point=self.point)
        await host_of(interaction).table.play_move(interaction, move)


class ColumnButton(
    GameItem,
    discord.ui.DynamicItem[Button],
    template=r"gomoku:(?P<game>[0-9]{1,18}):drop:(?P<column>[0-9]{1,2})",
):
    """Drop a stone into one column of a gravity game."""

    def __init__(self, game_id: int, column: int, *, full: bool = False) -> None:
        # gravity games number their columns 1..width
        label = str(column + 1)
        style = discord.ButtonStyle.secondary
        super().__init__(
            game_button(game_id, f"drop:{column}", label=label, style=style, disabled=full)
        )
        self.game_id = game_id
        self.column = column

    @classmethod
    def from_match(cls, match: re.Match[str]) -> Self:
        """Rebuild from ``gomoku:<game>:drop:<column>``."""
        return cls(int(match["game"]), int(match["column"]))

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        """Drop the stone."""
        move = MovePlay.on_board(self.game_id, column=self.column)
        await host_of(interaction).table.play_move(interaction, move)


class MoveButton(
    GameItem, discord.ui.DynamicItem[Button], template=r"gomoku:(?P<game>[0-9]{1,18}):move"
):
    """On the public board: opens the tap panel for the player to move (privately)."""

    def __init__(self, game_id: int) -> None:
        super().__init__(
            game_button(
                game_id,
                "move",
                label=words.move_label(),
                emoji="\N{WHITE UP POINTING INDEX}",
                style=discord.ButtonStyle.primary,
            )
        )
        self.game_id = game_id

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        """Only the player to move gets a panel; the rest are told why not."""
        bot = host_of(interaction)
        view = await bot.service.panel(self.game_id, interaction.user.id)
        message = await panel_message(bot, view, interaction.user.id, panel.centred(view.board))
        await interaction.response.send_message(ephemeral=True, **for_send(message))


class TapButton(
    GameItem,
    discord.ui.DynamicItem[Button],
    template=r"gomoku:(?P<game>[0-9]{1,18}):tap:(?P<x>[0-9]{1,2}):(?P<y>[0-9]{1,2}):(?P<version>[0-9]{1,18})",
):
    """A point of the tap panel: plays there, if the game is still where the panel saw it."""

    def __init__(self, game_id: int, point: Point, version: int, **button: Any) -> None:
        super().__init__(game_button(game_id, f"tap:{point.x}:{point.y}:{version}", **button))
        self.game_id = game_id
        self.point = point
        self.version = version

    @classmethod
    def from_match(cls, match: re.Match[str]) -> Self:
        """Rebuild from ``gomoku:<game>:tap:<x>:<y>:<version>``."""
        point = Point(int(match["x"]), int(match["y"]))
        return cls(int(match["game"]), point, int(match["version"]))

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        """Play the point; then the panel shows the next turn (or what happened)."""
        bot = host_of(interaction)
        user = interaction.user.id
        move = MovePlay.panel_tap(self.game_id, self.point, self.version)
        await bot.table.play_move(interaction, move)
        view = await bot.service.game(self.game_id)
        if view.to_move is not None and view.color_of(user) is view.board.to_move:
            # Against the AI (or oneself) it is this player's turn again: a fresh panel.
            message = await panel_message(bot, view, user, panel.centred(view.board))
            await interaction.edit_original_response(**message)
            return
        waiting = view.to_move
        text = words.panel_after_move(
            str(self.point).upper(),
            None if waiting is None else render.player_label(waiting),
            view.is_over,
        )
        await interaction.edit_original_response(
            view=_text_panel(text), attachments=[], allowed_mentions=discord.AllowedMentions.none()
        )


class PanButton(
    GameItem,
    discord.ui.DynamicItem[Button],
    template=r"gomoku:(?P<game>[0-9]{1,18}):pan:(?P<dir>[ludrc]):(?P<x>[0-9]{1,2}):(?P<y>[0-9]{1,2}):(?P<version>[0-9]{1,18})",
):
    """An arrow of the tap panel: the same panel, its window moved."""

    def __init__(
        self, game_id: int, direction: panel.Pan, window: render.Window, version: int, **button: Any
    ) -> None:
        custom_id = f"gomoku:{game_id}:pan:{direction}:{window.x0}:{window.y0}:{version}"
        super().__init__(discord.ui.Button(custom_id=custom_id, **button))
        self.game_id = game_id
        self.direction = direction
        self.origin = (window.x0, window.y0)
        self.version = version

    @classmethod
    def from_match(cls, match: re.Match[str]) -> Self:
        """Rebuild from ``gomoku:<game>:pan:<direction>:<x0>:<y0>:<version>``."""
        x0, y0 = int(match["x"]), int(match["y"])
        window = render.Window(x0, y0, x0, y0)  # only the corner matters
        return cls(int(match["game"]), panel.Pan(match["dir"]), window, int(match["version"]))

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        """Redraw the panel one step over (refused once the game moved on)."""
        bot = host_of(interaction)
        view = await bot.service.panel(self.game_id, interaction.user.id)
        if view.version != self.version:
            from bot.core.service.errors import StalePanelError

            raise StalePanelError(self.game_id, self.version)
        here = panel.panel_window(view.board, *self.origin)
        there = panel.pan(view.board, here, self.direction)
        message = await panel_message(bot, view, interaction.user.id, there)
        await interaction.response.edit_message(**message)


class RematchButton(
    GameItem, discord.ui.DynamicItem[Button], template=r"gomoku:(?P<game>[0-9]{1,18}):rematch"
):
    """Under a finished game: the same game again, colours swapped."""

    def __init__(self, game_id: int, *, against_ai: bool = False) -> None:
        super().__init__(
            game_button(
                game_id,
                "rematch",
                label=words.play_again_label() if against_ai else words.rematch_label(),
                style=discord.ButtonStyle.success,
            )
        )
        self.game_id = game_id

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        """Start the new game (or challenge), posted as this button's answer."""
        bot = host_of(interaction)
        # The AI may move first: its reply is drawn here, once the board is posted.
        with bot.table.answering(interaction.channel_id) as answering:
            view = await bot.table.defer_if_slow(
                interaction, bot.service.rematch(self.game_id, interaction.user.id), thinking=True
            )
            answering.game(view.game_id)
            if view.is_ai_turn:
                if not interaction.response.is_done():
                    await interaction.response.defer(thinking=True)
                await bot.table.respond_with_board(interaction, view)
                await bot.table.play_ai(view.game_id, interaction=interaction)
            else:
                await bot.table.respond_with_board(interaction, view)


class OpeningButton(
    GameItem,
    discord.ui.DynamicItem[Button],
    template=r"gomoku:(?P<game>[0-9]{1,18}):open:(?P<word>black|white|two|offer|[1-8])",
):
    """A choice in an opening rule: take a colour, place two more, offer ten fifth moves,
    or (Soosõrv) the number of fifth moves Black must offer."""

    def __init__(self, game_id: int, word: str) -> None:
        label = choice_label(Choice(word)) if not word.isdigit() else word
        style = discord.ButtonStyle.primary if not word.isdigit() else discord.ButtonStyle.secondary
        super().__init__(game_button(game_id, f"open:{word}", label=label, style=style))
        self.game_id = game_id
        self.word = word

    @classmethod
    def from_match(cls, match: re.Match[str]) -> Self:
        """Rebuild from ``gomoku:<game>:open:<word>``."""
        return cls(int(match["game"]), match["word"])

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        """Take the step; redraw; let the AI take its steps."""
        bot = host_of(interaction)
        await interaction.response.defer()
        with bot.table.answering(interaction.channel_id) as answering:
            answering.game(self.game_id)
            choice = Choose(self.word)
            result = await bot.service.act(
                GameRef(self.game_id), interaction.user.id, choice, via=VIA
            )
            await bot.table.show_game(result.game, interaction=interaction)
            if result.ai_due:
                await bot.table.play_ai(self.game_id)


ACTIONS: Final = (
    ChallengeButton,
    ResignButton,
    UndoButton,
    GridButton,
    ColumnButton,
    MoveButton,
    TapButton,
    PanButton,
    RematchButton,
    OpeningButton,
)
"""Every dynamic item of this module, for ``bot.add_dynamic_items``."""


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


def _opening_buttons(view: GameState) -> discord.ui.View | None:
    opening = view.opening
    assert opening is not None
    if opening.phase is Phase.CHOOSE:
        return _view([OpeningButton(view.game_id, c.value) for c in opening.choices()])
    if opening.phase is Phase.DECLARE:
        numbers = range(1, SOOSORV_MOST + 1)
        return _view([OpeningButton(view.game_id, str(n)) for n in numbers], per_row=4)
    return None


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


def game_buttons(view: GameState) -> discord.ui.View | None:
    """The buttons under a board: challenge answers, then what the game's table spec asks
    for: a grid of cells, a button per column, or a Move button opening the tap panel.
    A finished game's grid stays visible but disabled, so the final position reads at a glance.
    """
    if view.status is GameStatus.PENDING:
        return challenge_view(view.game_id)
    if view.in_opening:
        return _opening_buttons(view)
    board = view.board
    over = view.status is not GameStatus.ACTIVE
    rematch: list[discord.ui.Item[Any]] = []
    if view.status is GameStatus.FINISHED and view.humans:
        against_ai = view.black.is_ai or view.white.is_ai
        rematch.append(RematchButton(view.game_id, against_ai=against_ai))
    buttons = table_spec(view.game).buttons
    if buttons is Buttons.GRID:
        items: list[discord.ui.Item[Any]] = []
        for y in reversed(range(board.height)):
            for x in range(board.width):
                point = Point(x, y)
                stone = board[point]
                button = GridButton(view.game_id, point, mark=_MARKS[stone] if stone else None)
                button.item.disabled = button.item.disabled or over
                items.append(button)
        return _view(items + rematch, per_row=board.width)
    if buttons is Buttons.COLUMNS:
        if over:
            return _view(rematch) if rematch else None
        columns: list[discord.ui.Item[Any]] = [
            ColumnButton(view.game_id, x, full=board.landing_point(x) is None)
            for x in range(board.width)
        ]
        return _view(columns, per_row=4 if board.width > 5 else 5)
    if view.status is GameStatus.ACTIVE:
        return _view([MoveButton(view.game_id)])
    return _view(rematch) if rematch else None


# ---------------------------------------------------------------------- the tap panel

_ARROWS: Final = (
    (panel.Pan.LEFT, "\N{LEFTWARDS BLACK ARROW}"),
    (panel.Pan.UP, "\N{UPWARDS BLACK ARROW}"),
    (panel.Pan.DOWN, "\N{DOWNWARDS BLACK ARROW}"),
    (panel.Pan.RIGHT, "\N{BLACK RIGHTWARDS ARROW}"),
    (panel.Pan.CENTRE, "\N{DIRECT HIT}"),
)


def _span(values: range, name: Any) -> str:
    return f"{name(values[0])}-{name(values[-1])}"


def _text_panel(text: str) -> discord.ui.LayoutView:
    layout = discord.ui.LayoutView(timeout=None)
    layout.add_item(discord.ui.TextDisplay(text))
    return layout


def for_send(message: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of an edit (``message``) as those of a send: sending takes
    files=, editing attachments=; a missing view is left out, not None."""
    args = dict(message)
    args["files"] = args.pop("attachments")
    if args.get("view", True) is None:
        del args["view"]
    return args


async def panel_message(
    bot: GameHost, view: GameState, user_id: int, window: render.Window
) -> dict[str, Any]:
    """The private panel of ``view`` for ``user_id`` (the player to move) showing ``window``:
    the board in the user's look, 5x5 point buttons (empty points play, stones and
    renju points forbidden to Black are disabled), and arrows. Keyword arguments for an
    edit (``view``, ``attachments``, ``allowed_mentions``)."""
    board = view.board
    theme = render.theme_for(board.game)
    color = board.to_move
    stone = theme.black if color is Color.BLACK else theme.white
    look = render.Look(await bot.service.look(user_id))
    layout = discord.ui.LayoutView(timeout=None)
    files: list[discord.File] = []
    lines = [words.panel_heading(render.game_title(view), stone, color)]
    if look is render.Look.IMAGE:
        png = await render_png_async(board)
        files.append(discord.File(io.BytesIO(png), filename="board.png"))
    else:
        lines.append(render.board_text(board, look, note=False))  # the buttons' line says
    lines.append(
        words.panel_window_line(
            _span(window.columns, column_letter), _span(range(window.y0, window.y1 + 1), _row)
        )
    )
    layout.add_item(discord.ui.TextDisplay("\n".join(lines)))
    if files:
        layout.add_item(discord.ui.MediaGallery(discord.MediaGalleryItem("attachment://board.png")))
    banned = forbidden_points(board) if color is Color.BLACK else frozenset()
    last = board.last_move.point if board.last_move is not None else None
    for y in window.rows_top_down:
        row: discord.ui.ActionRow[Any] = discord.ui.ActionRow()
        for x in window.columns:
            point = Point(x, y)
            stone_here = board[point]
            button: dict[str, Any]
            if stone_here is not None:
                glyph = (
                    (theme.black_last if stone_here is Color.BLACK else theme.white_last)
                    if point == last
                    else (theme.black if stone_here is Color.BLACK else theme.white)
                )
                button = {"emoji": glyph, "disabled": True}
            elif point in banned:
                button = {"emoji": theme.forbidden, "disabled": True}
            else:
                button = {"label": str(point).upper(), "style": discord.ButtonStyle.secondary}
            row.add_item(TapButton(view.game_id, point, view.version, **button))
        layout.add_item(row)
    arrows: discord.ui.ActionRow[Any] = discord.ui.ActionRow()
    for direction, emoji in _ARROWS:
        moved = panel.can_pan(board, window, direction)
        arrows.add_item(
            PanButton(
                view.game_id,
                direction,
                window,
                view.version,
                emoji=emoji,
                style=discord.ButtonStyle.primary,
                disabled=not moved,
            )
        )
    layout.add_item(arrows)
    return {
        "view": layout,
        "attachments": files,
        "allowed_mentions": discord.AllowedMentions.none(),
    }


def _row(y: int) -> str:
    return str(y + 1)
