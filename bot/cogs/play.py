"""Playing: ``/gomoku start|board|resign|undo|hint`` and ``/place <cell>``; the ``/gomoku``
group gathers the other commands from their modules' mixins.

Each command: transform the input, make one service call, render, respond. The rules live in
the engine, the refusals in the service, the words for refusals in ``bot.text.refusals``.
"""

from __future__ import annotations

import contextlib
import io
from enum import StrEnum
from typing import Any, Final, TypeVar

import discord
from discord import app_commands
from discord.ext import commands

from bot import threads
from bot.club import OpenChallenge, post_open_challenge
from bot.cogs.club import queue_command
from bot.cogs.history import HistoryCommands
from bot.cogs.moderation import offer_replacement, tell_bystander
from bot.cogs.onboarding import HelpCommands
from bot.cogs.play_choices import COLOURS, LOOKS, RULES, add_before, game_choices, hosted_game
from bot.cogs.play_choices import LEVELS as LEVEL_CHOICES
from bot.cogs.preferences import PreferenceCommands
from bot.cogs.puzzles import PuzzleCommands, play_puzzle_move
from bot.cogs.review import ReviewCommands
from bot.cogs.stats import StatsCommands, leaderboard_command
from bot.core.service.errors import (
    GameExistsError,
    InvalidOptionError,
    NoActiveGameError,
    NotAPlayerError,
)
from bot.core.service.inputs import AskUndo, GameRef
from bot.core.service.shared import DEFAULT_LEVEL
from bot.core.service.states import ColourChoice, GameState, UndoResult
from bot.host import VIA, GameHost, Interaction, MovePlay
from bot.reporting import needs_channel_permissions
from bot.text import i18n, render, words
from bot.text.opening_words import OPENING_CHOICES
from bot.text.render_png import render_png_async
from bot.transformers import Cell, PointTransformer
from bot.views import resign_view, undo_view
from engine.games import game_spec
from engine.types import Game, Level, Rule

__all__ = ["LEVELS", "GomokuCog", "PlaceCog", "setup"]

E = TypeVar("E", bound=StrEnum)

_RULES: Final = RULES
LEVELS: Final = tuple(level.value for level in Level)
_LEVELS: Final = LEVEL_CHOICES
_COLOURS: Final = COLOURS
_OPENINGS: Final = [app_commands.Choice(name=name, value=value) for name, value in OPENING_CHOICES]


def _choice(kind: type[E], option: str, value: str) -> E:
    # The client offers only the listed choices, but a request can still carry anything.
    try:
        return kind(value)
    except ValueError:
        raise InvalidOptionError(option, value) from None


def _start_command(cog: GomokuCog) -> app_commands.Command[Any, ..., None]:
    """``/gomoku start``, the games hosted now the choices of its ``game`` option."""

    @app_commands.command(name="start")
    @app_commands.describe(
        opponent="Challenge this member (leave empty to play the AI)",
        game="Which game (default Gomoku)",
        rule="Gomoku rule (default: this server's setting)",
        level="AI strength when playing the AI (default medium)",
        size="Gomoku board size, 5 to 20 (default 15)",
        colour="Your colour; black moves first (default: a coin toss)",
        opening="Opening rule (Gomoku): with one, colour black means you start the opening",
        rated="Whether a game against a member is rated (default yes; friendly games are not)",
        open="Offer the game to any member of the channel, with a button (no opponent)",
        rating_within="An open challenge: only members rated within this many points of you",
    )
    @app_commands.choices(
        game=game_choices(), rule=_RULES, level=_LEVELS, colour=_COLOURS, opening=_OPENINGS
    )
    @needs_channel_permissions()
    async def start(
        interaction: Interaction,
        opponent: discord.Member | None = None,
        game: str = Game.GOMOKU.value,
        rule: str | None = None,
        level: str = DEFAULT_LEVEL,
        size: app_commands.Range[int, 5, 20] | None = None,
        colour: str = ColourChoice.RANDOM,
        opening: str | None = None,
        rated: bool = True,
        open: bool = False,
        rating_within: app_commands.Range[int, 25, 1000] | None = None,
    ) -> None:
        """Start a game against the AI, or challenge someone (or anyone)."""
        await cog.start(
            interaction,
            opponent,
            game,
            rule,
            level,
            size,
            colour,
            opening,
            rated,
            open,
            rating_within,
        )

    return start


@app_commands.guild_only()
class GomokuCog(
    PuzzleCommands,
    ReviewCommands,
    HistoryCommands,
    StatsCommands,
    PreferenceCommands,
    HelpCommands,
    commands.GroupCog,
    group_name="gomoku",
    group_description="Play Gomoku, tic-tac-toe, Connect Four and gravity three",
):
    """The ``/gomoku`` group; puzzles, reviews, history, stats, preferences and help come from
    their mixins (server settings and moderators' commands are in ``/gomoku-admin``,
    ``bot.cogs.admin.AdminCog``)."""

    def __init__(self, bot: GameHost) -> None:
        self.bot = bot
        # /gomoku start, queue and leaderboard offer the games hosted when the command tree is
        # built (one registered after this module was imported included): they are made here.
        group = self.app_command
        assert group is not None  # a GroupCog's own group
        add_before(group, leaderboard_command(), "history")
        add_before(group, queue_command(), "board")
        add_before(group, _start_command(self), "board")

    async def start(
        self,
        interaction: Interaction,
        opponent: discord.Member | None,
        game: str,
        rule: str | None,
        level: str,
        size: int | None,
        colour: str,
        opening: str | None,
        rated: bool,
        open: bool,
        rating_within: int | None,
    ) -> None:
        """``/gomoku start`` (``_start_command``): a game against the AI, or a challenge."""
        assert interaction.channel_id is not None  # guild_only
        if open:
            await self._open_challenge(
                interaction, hosted_game(game), rule, colour, rated, rating_within or 0
            )
            return
        # Any bot as opponent means "play me": other bots cannot press buttons.
        opponent_id = None if opponent is None or opponent.bot else opponent.id
        options = {
            "opponent": opponent_id,
            "game": hosted_game(game),
            "rule": None if rule is None else _choice(Rule, "rule", rule),
            "level": level,
            "size": size,
            "colour": colour,
            "opening": opening,
            "rated": rated,
        }

        async def begin(target: Interaction) -> None:
            await self._begin(target, options)

        try:
            await begin(interaction)
        except GameExistsError as error:
            # The player's own game against the AI in the way: offer to replace it; someone
            # else's: say where it is. (An answer already under way, a deferral, cannot
            # become either.)
            if interaction.response.is_done():
                raise
            if opponent_id is None and await offer_replacement(interaction, error, begin):
                return
            if not await tell_bystander(interaction, error):
                raise

    async def _open_challenge(
        self,
        interaction: Interaction,
        game: Game,
        rule: str | None,
        colour: str,
        rated: bool,
        within: int,
    ) -> None:
        """Post an open challenge (``bot.club``): the game is made when someone accepts."""
        service = self.bot.service
        rules = game_spec(game).rules
        if rule is None:
            assert interaction.guild_id is not None  # guild_only
            default = (await service.settings(interaction.guild_id)).default_rule
            chosen = default if default in rules else rules[0]
        else:
            chosen = _choice(Rule, "rule", rule)
            if chosen not in rules:
                raise InvalidOptionError("rule", rule, ", ".join(r.value for r in rules))
        if colour not in ColourChoice.ALL:
            raise InvalidOptionError("colour", colour, ", ".join(ColourChoice.ALL))
        expires = int((self.bot.clock() + service.challenge_ttl).timestamp())
        challenge = OpenChallenge(
            challenger=interaction.user.id,
            game=game.value,
            rule=chosen.value,
            colour=colour,
            rated=rated,
            within=within,
            expires=expires,
        )
        await post_open_challenge(interaction, challenge, game_name=render.game_name(game))

    async def _begin(self, interaction: Interaction, options: dict[str, Any]) -> None:
        assert interaction.channel_id is not None
        in_thread = await threads.uses_threads(interaction)

        # A burst of starts is admitted a few at a time (bot.core.admission): a start holds its
        # turn for its write only, and draws its board and the AI's first move after letting go.
        async def thinking() -> None:
            if not interaction.response.is_done():
                await interaction.response.defer(thinking=True)

        # The runner starts the AI's first move as soon as the game is stored: its reply is
        # drawn here, once the board is posted (in the thread, when the game moves there).
        with self.bot.table.answering(interaction.channel_id) as answering:
            async with self.bot.start_admission.admit(thinking) as slot:
                start = self.bot.service.start(
                    channel_id=interaction.channel_id,
                    guild_id=interaction.guild_id,
                    user_id=interaction.user.id,
                    **options,
                )
                if in_thread:
                    # The answer is the channel's line, which needs the players' names besides
                    # the write: a slow one of either is acknowledged in time ("thinking...",
                    # which the line then fills in), the board is drawn in the thread after.
                    # Another start from the channel waits (acknowledged alike) until this game
                    # has left the channel for its thread.
                    async with contextlib.AsyncExitStack() as held:

                        async def made_and_announced() -> tuple[GameState, threads.Announcement]:
                            channel_id = interaction.channel_id
                            assert channel_id is not None
                            await held.enter_async_context(threads.one_start_at_a_time(channel_id))
                            made = await start
                            slot.release()
                            return made, await threads.announcement(interaction, made)

                        work = made_and_announced()
                        view, announced = await self.bot.table.defer_if_slow(
                            interaction, work, thinking=True
                        )
                        answering.game(view.game_id)
                        view = await threads.host_in_thread(interaction, view, announced)
                else:
                    view = await self.bot.table.defer_if_slow(interaction, start, thinking=True)
                    slot.release()
                    answering.game(view.game_id)
                    if view.is_ai_turn and not interaction.response.is_done():
                        await interaction.response.defer(thinking=True)
                    await self.bot.table.respond_with_board(interaction, view)
            if view.is_ai_turn:
                await self.bot.table.play_ai(
                    view.game_id, interaction=None if in_thread else interaction
                )

    @app_commands.command(name="board")
    @app_commands.describe(look="Keep this look for your private boards, and see the game that way")
    @app_commands.choices(look=LOOKS)
    @needs_channel_permissions()
    async def board(self, interaction: Interaction, look: str | None = None) -> None:
        """Players: the board again, at the bottom. Others, or with look: a private copy."""
        assert interaction.channel_id is not None
        service = self.bot.service
        if look is not None:
            await service.set_look(interaction.user.id, look)
        game = await service.open_game(interaction.channel_id)
        if game is None and look is None:
            raise NoActiveGameError(interaction.channel_id)
        if game is not None and look is None and interaction.user.id in game.humans:
            await self.bot.table.respond_with_board(interaction, game, replace=True)
            return
        chosen = render.Look(await service.look(interaction.user.id))
        lines = [words.look_saved(chosen)] if look is not None else []
        files: list[discord.File] = []
        if game is None:
            lines.append(words.no_game_to_show())
        else:
            lines.append(render.status_line(game))
            if chosen is render.Look.IMAGE:
                png = await render_png_async(game.board)
                files.append(discord.File(io.BytesIO(png), filename="board.png"))
            else:
                lines.append(render.board_text(game.board, chosen))
        await interaction.response.send_message(
            "\n".join(lines)[: render.MAX_MESSAGE],
            files=files,
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )

    @app_commands.command(name="resign")
    async def resign(self, interaction: Interaction) -> None:
        """Resign this channel's game (asks you to confirm)."""
        assert interaction.channel_id is not None
        view = await self.bot.service.board(interaction.channel_id)
        if interaction.user.id not in view.humans:
            raise NotAPlayerError(interaction.user.id, view.game_id)
        await interaction.response.send_message(
            words.resign_confirm(), view=resign_view(view.game_id), ephemeral=True
        )

    @app_commands.command(name="undo")
    @needs_channel_permissions()
    async def undo(self, interaction: Interaction) -> None:
        """Take back your last move (against a person they must agree)."""
        assert interaction.channel_id is not None
        outcome = await self.bot.table.defer_if_slow(
            interaction,
            self.bot.service.act(
                GameRef(channel_id=interaction.channel_id), interaction.user.id, AskUndo(), via=VIA
            ),
            ephemeral=True,
            thinking=True,
        )
        deferred = interaction.response.is_done()  # privately: the write was slow
        if isinstance(outcome, UndoResult):
            text = words.took_back(len(outcome.undone))
            if deferred:
                await interaction.edit_original_response(content=text)
            else:
                await interaction.response.send_message(text, ephemeral=True)
            await self.bot.table.show_game(outcome.game)
            return
        # The request is for the opponent: in the server's language, like the board.
        with i18n.using(await self.bot.preferences.server_language(interaction.guild_id)):
            content = words.undo_request(outcome.responder, outcome.requester)
            view = undo_view(outcome.game.game_id)
        mentions = discord.AllowedMentions(users=[discord.Object(outcome.responder)])
        message_id: int | None = None
        try:
            if not deferred:
                sent = await interaction.response.send_message(
                    content, view=view, allowed_mentions=mentions
                )
                message_id = sent.message_id
            else:
                # The request is for the opponent to see: into the channel, not the private reply.
                channel = self.bot.get_partial_messageable(
                    interaction.channel_id, guild_id=interaction.guild_id
                )
                message_id = (await channel.send(content, view=view, allowed_mentions=mentions)).id
        finally:
            if message_id is None:
                self.bot.table.undo_not_posted(outcome.game.game_id)
            else:  # an answer from the web board edits it
                self.bot.table.undo_posted(
                    outcome.game, outcome.requester, interaction.channel_id, message_id
                )
        if deferred:
            await interaction.delete_original_response()

    @app_commands.command(name="hint")
    async def hint(self, interaction: Interaction) -> None:
        """Ask the AI for a move suggestion (not in rated games)."""
        assert interaction.channel_id is not None
        await interaction.response.defer(ephemeral=True, thinking=True)
        hint = await self.bot.service.hint(interaction.channel_id, interaction.user.id)
        await interaction.edit_original_response(content=words.hint_reply(str(hint.point).upper()))


class PlaceCog(commands.Cog):
    """``/place``: the one top-level command, so a move is quick to type."""

    def __init__(self, bot: GameHost) -> None:
        self.bot = bot

    @app_commands.command(name="place")
    @app_commands.describe(cell="Where to play, like H8 (Connect Four: a column number, like 4)")
    @app_commands.guild_only()
    @needs_channel_permissions()
    async def place(
        self, interaction: Interaction, cell: app_commands.Transform[Cell, PointTransformer]
    ) -> None:
        """Play a move in this channel's game, or in your puzzle."""
        move = MovePlay.typed(cell.point, cell.column, letter=cell.letter)
        try:
            await self.bot.table.play_move(interaction, move)
        except NoActiveGameError:
            # No game here: a member solving a puzzle plays their puzzle's move.
            guild_id = interaction.guild_id
            if (
                cell.point is None
                or guild_id is None
                or not await self.bot.service.puzzle_going(guild_id, interaction.user.id)
            ):
                raise
            await play_puzzle_move(interaction, cell.point)


async def setup(bot: GameHost) -> None:
    """Add ``/gomoku`` and ``/place`` to ``bot``."""
    await bot.add_cog(GomokuCog(bot))
    await bot.add_cog(PlaceCog(bot))
