"""A bare discord.py bot: the load bench's baseline (``python -m benchmarks.bench_load
--baseline``).

It answers the interactions the bench sends with the requests the real bot makes for them,
of about the same size, and does nothing else: no storage, no rules, no AI search, no
settings, languages, cooldowns or locks. Per interaction:

* ``/gomoku start`` with an opponent: the challenge (a mention, the board as an embed, Accept
  and Decline buttons), one callback; against the AI: the board and its button, one callback;
* Accept: the board redrawn as the button's answer (one update callback), then the turn ping
  posted in the channel;
* ``/place`` between people: the answer (the next player's ping and the move), the board
  edited, the previous ping deleted;
* ``/place`` against the AI: the private answer, then the board edited with the move and
  again with the AI's (the empty point nearest the centre);
* autocomplete of ``/place``'s cell: the 25 empty points nearest the centre.

The difference between its CPU per interaction and the bot's is what the bot's own work costs.
``BareBot(extra_s=...)`` also spends that much CPU on its event loop in each interaction
before it answers: the load a bot costing that much over the library puts on its loop, with
nothing else of the bot's (``bench_load --bare-extra``).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

import discord
from discord import app_commands

__all__ = ["BareBot"]

SIZE = 15
WINDOW = 9  # the board shows a 9x9 window, as the bot's phone viewport does
_LETTERS = "abcdefghijklmno"
_REGIONAL = "".join(chr(0x1F1E6 + i) for i in range(SIZE))  # regional indicators A..O
_STONES = ("\N{MEDIUM BLACK CIRCLE}", "\N{MEDIUM WHITE CIRCLE}")
_LAST = ("\N{BLACK LARGE SQUARE}", "\N{WHITE LARGE SQUARE}")
_EMPTY = "\N{HEAVY PLUS SIGN}"
_MENTIONS = discord.AllowedMentions(everyone=False, roles=False, users=True)
_CELL = re.compile(r"([a-o])(1[0-5]|[1-9])")


@dataclass
class Game:
    """A game as the bare bot keeps it: the board message, the players (``None``: the AI),
    the stones in order and the last turn ping."""

    number: int
    black: int
    white: int | None
    board_id: int = 0
    stones: dict[tuple[int, int], int] = field(default_factory=dict)
    last: tuple[int, int] | None = None
    ping_id: int | None = None

    def name(self, colour: int) -> str:
        player = self.white if colour else self.black
        return "AI (easy)" if player is None else f"<@{player}>"

    def play(self, point: tuple[int, int]) -> None:
        self.stones[point] = len(self.stones) % 2
        self.last = point

    def nearest_empty(self, count: int) -> list[tuple[int, int]]:
        centre = SIZE // 2
        empty = [(x, y) for y in range(SIZE) for x in range(SIZE) if (x, y) not in self.stones]
        empty.sort(key=lambda p: (max(abs(p[0] - centre), abs(p[1] - centre)), p[1], p[0]))
        return empty[:count]

    def embed(self, status: str) -> discord.Embed:
        """The board as the bot's emoji style draws it: a 9x9 window around the last move."""
        cx, cy = self.last or (SIZE // 2, SIZE // 2)
        left = min(max(cx - WINDOW // 2, 0), SIZE - WINDOW)
        bottom = min(max(cy - WINDOW // 2, 0), SIZE - WINDOW)
        lines = [
            f"{_STONES[0]} {self.name(0)} vs {_STONES[1]} {self.name(1)} · {status}",
            "\u200b".join(_REGIONAL[left : left + WINDOW]),
        ]
        for y in reversed(range(bottom, bottom + WINDOW)):
            row = []
            for x in range(left, left + WINDOW):
                colour = self.stones.get((x, y))
                if colour is None:
                    row.append(_EMPTY)
                else:
                    row.append((_LAST if (x, y) == self.last else _STONES)[colour])
            lines.append(f"{''.join(row)} {y + 1}")
        lines.append(
            f"Showing columns {_LETTERS[left]}-{_LETTERS[left + WINDOW - 1]}, rows "
            f"{bottom + 1}-{bottom + WINDOW} of 15x15 · /gomoku board `look:` for another look"
        )
        moves = len(self.stones)
        footer = f"game {self.number}"
        if moves:
            footer += f" · {moves} move{'s' if moves != 1 else ''}"
        embed = discord.Embed(
            title="Gomoku 15x15 · freestyle", description="\n".join(lines), colour=0xD9A441
        )
        return embed.set_footer(text=footer)

    def to_move(self) -> str:
        return f"move {len(self.stones) + 1} · {self.name(len(self.stones) % 2)} to move"


class Action(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"bare:(?P<game>[0-9]+):(?P<action>[a-z]+)",
):
    """A board button (Accept, Decline, Move), known by its custom id as the bot's are; only
    Accept does anything."""

    def __init__(self, game: int, action: str, label: str, style: discord.ButtonStyle) -> None:
        super().__init__(
            discord.ui.Button(label=label, style=style, custom_id=f"bare:{game}:{action}")
        )
        self.game, self.action = game, action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> Action:
        return cls(int(match["game"]), match["action"], "", discord.ButtonStyle.secondary)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot: BareBot = interaction.client
        bot.spend()
        game = bot.games.get(interaction.channel_id or 0)
        if self.action != "accept" or game is None:
            await interaction.response.defer()
            return
        await interaction.response.edit_message(
            content="", embed=game.embed(game.to_move()), view=_buttons(game.number, "move")
        )
        channel = bot.get_partial_messageable(interaction.channel_id or 0)
        ping = await channel.send(
            f"<@{game.black}>, your move in Gomoku 15x15 · freestyle.",
            allowed_mentions=discord.AllowedMentions(users=[discord.Object(game.black)]),
        )
        game.ping_id = ping.id


def _buttons(game: int, *actions: str) -> discord.ui.View:
    labels = {
        "accept": ("Accept", discord.ButtonStyle.success),
        "decline": ("Decline", discord.ButtonStyle.secondary),
        "move": ("Move", discord.ButtonStyle.primary),
    }
    view = discord.ui.View(timeout=None)
    for action in actions:
        view.add_item(Action(game, action, *labels[action]))
    return view


class BareBot(discord.Client):
    """``discord.Client`` with a ``CommandTree`` of ``/gomoku start`` and ``/place``."""

    def __init__(self, extra_s: float = 0.0) -> None:
        intents = discord.Intents.none()
        intents.guilds = True  # as the bot's: channels and its own member
        super().__init__(intents=intents, allowed_mentions=_MENTIONS)
        self.tree = app_commands.CommandTree(self)
        self.games: dict[int, Game] = {}
        self.extra_s = extra_s
        self.tree.add_command(_gomoku)
        self.tree.add_command(_place)
        self.add_dynamic_items(Action)

    def spend(self) -> None:
        """Hold the event loop's thread for ``extra_s`` seconds of its own CPU time."""
        if self.extra_s > 0:
            end = time.thread_time() + self.extra_s
            while time.thread_time() < end:
                pass


_gomoku = app_commands.Group(name="gomoku", description="Play Gomoku")


@_gomoku.command(name="start", description="Start a game")
async def _start(
    interaction: discord.Interaction[BareBot],
    opponent: discord.Member | None = None,
    colour: str | None = None,
    level: str | None = None,
    rated: bool = True,
) -> None:
    bot = interaction.client
    bot.spend()
    channel = interaction.channel_id or 0
    white = None if opponent is None else opponent.id
    game = Game(len(bot.games) + 1, interaction.user.id, white)
    bot.games[channel] = game
    if opponent is None:
        callback = await interaction.response.send_message(
            embed=game.embed(game.to_move()), view=_buttons(game.number, "move")
        )
    else:
        callback = await interaction.response.send_message(
            opponent.mention,
            embed=game.embed("waiting for the challenge to be accepted"),
            view=_buttons(game.number, "accept", "decline"),
        )
    game.board_id = callback.message_id or 0


@app_commands.command(name="place", description="Place a stone")
async def _place(interaction: discord.Interaction[BareBot], cell: str) -> None:
    bot = interaction.client
    bot.spend()
    game = bot.games.get(interaction.channel_id or 0)
    found = _CELL.fullmatch(cell.strip().lower())
    if game is None or found is None:
        await interaction.response.send_message("No game here.", ephemeral=True)
        return
    point = (_LETTERS.index(found[1]), int(found[2]) - 1)
    name = f"**{cell.strip().upper()}**"
    channel = bot.get_partial_messageable(interaction.channel_id or 0)
    board = channel.get_partial_message(game.board_id)
    game.play(point)
    if game.white is None:
        # Answered first: with no AI to wait for, nothing delays the answer past Discord's 3 s
        # (the bot answers after the AI's move, or defers when the AI is slow).
        thinking = game.embed(f"last {cell} · AI (easy) thinking…")
        reply = game.nearest_empty(1)[0]
        game.play(reply)
        answer = f"{_LETTERS[reply[0]].upper()}{reply[1] + 1}"
        await interaction.response.send_message(
            f"You played {name}. The AI answered **{answer}**.", ephemeral=True
        )
        buttons = _buttons(game.number, "move")
        await board.edit(embed=thinking, view=buttons)
        await board.edit(embed=game.embed(game.to_move()), view=buttons)
        return
    mover = interaction.user.id
    waiting = game.white if mover == game.black else game.black
    callback = await interaction.response.send_message(
        f"<@{waiting}>, your move in Gomoku 15x15 · freestyle.\n<@{mover}> played {name}.",
        allowed_mentions=discord.AllowedMentions(users=[discord.Object(waiting)]),
    )
    await board.edit(embed=game.embed(game.to_move()), view=_buttons(game.number, "move"))
    previous, game.ping_id = game.ping_id, callback.message_id
    if previous is not None:
        await channel.get_partial_message(previous).delete()


@_place.autocomplete("cell")
async def _cells(
    interaction: discord.Interaction[BareBot], current: str
) -> list[app_commands.Choice[str]]:
    interaction.client.spend()
    game = interaction.client.games.get(interaction.channel_id or 0)
    points = game.nearest_empty(25) if game is not None else []
    return [
        app_commands.Choice(name=f"{_LETTERS[x].upper()}{y + 1}", value=f"{_LETTERS[x]}{y + 1}")
        for x, y in points
    ]
