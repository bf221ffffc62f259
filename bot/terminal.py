"""The terminal front-end: the same ``GameService`` and store as the Discord bot, in a shell.

``python -m bot`` runs it when no ``DISCORD_TOKEN`` is set. Moves are typed as ``h8`` (column
numbers such as ``4`` in the gravity games); everything else is a word command (``help``
lists them). The terminal occupies one pseudo-channel of the store, so a game left open when
the terminal closed is picked up again on the next start. A session runs the core runner
(``bot.core.runner``): the AI's replies and the clocks; the terminal subscribes to the
service's events to print what the clocks did.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import signal
import sys
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final, TextIO

from bot.core.ai import AIError
from bot.core.games import game_named
from bot.core.positions import forbidden_points
from bot.core.runner import GameRunner
from bot.core.service import GameService
from bot.core.service.errors import NoActiveGameError
from bot.core.service.events import Event, GameEnded
from bot.core.service.inputs import AnswerUndo, AskUndo, Drop, GameRef, Place, Resign
from bot.core.service.shared import DEFAULT_LEVEL
from bot.core.service.states import GameState, MoveResult, UndoRequest
from bot.text.i18n import N_, _, from_system, ngettext, set_current, using
from bot.text.refusals import generic_message, user_message
from bot.text.render import compact_board, game_name, window
from engine.errors import GomokuError, InvalidPointError
from engine.games import game_spec
from engine.types import Color, Game, Level, Point, Rule, Termination
from storage.errors import StorageError
from storage.records import Player

if TYPE_CHECKING:
    from bot.settings import Settings
    from engine.board import Board

__all__ = ["TERMINAL_CHANNEL", "NewGameOptions", "Terminal", "main", "parse_new", "stdin_lines"]

log = logging.getLogger(__name__)

VIA: Final = "terminal"  # the front end's name in the events of the moves it plays
TERMINAL_CHANNEL: Final = 1  # the store's pseudo-channel for terminal games (no guild)
PLAYER_ONE: Final = 1  # the terminal's user ids; Discord ids are 17+ digit snowflakes
PLAYER_TWO: Final = 2
LEVELS: Final = tuple(level.value for level in Level)

# The command words (new, undo, ...) stay English in every language: only their
# explanations are translated.
HELP: Final = N_("""\
Moves: type a point like h8 (gravity games: a column number like 4).
Commands:
  new [game] [size] [rule] [level|friend] [black|white]
        start a new game, e.g. "new", "new renju hard white", "new 19 friend",
        "new connect4", "new tictactoe friend"
        games: gomoku tictactoe connect4 gravity3; rules: freestyle standard renju caro
        levels: beginner easy medium hard expert master; "friend": two people here
  undo      take back your last move (against the AI: your move and its reply)
  hint      ask the AI for a move (also in two-player games here)
  export [file]   print the game as SGF and a move list (or write the SGF to a file)
  resign    give up this game
  board     show the board again
  help      this text
  quit      leave (the game is saved; it continues next time)""")


# ---------------------------------------------------------------- parsing "new"


@dataclass(frozen=True, slots=True)
class NewGameOptions:
    """What ``new ...`` asked for."""

    game: Game = Game.GOMOKU
    size: int | None = None
    rule: Rule = Rule.FREESTYLE
    level: str | None = DEFAULT_LEVEL  # None: two people at this keyboard
    colour: Color = Color.BLACK  # the (first) human's colour against the AI


class OptionError(ValueError):
    """A word in ``new ...`` that names nothing (carries the word)."""

    def __init__(self, word: str) -> None:
        super().__init__(word)
        self.word = word


_FRIEND_WORDS: Final = frozenset({"friend", "human", "2p", "pvp", "two"})
# ASCII digits, a few of them: str.isdigit() also accepts "²" and "٣", which int() refuses or
# reads, and int() refuses more than 4,300 digits.
_NUMBER: Final = re.compile(r"[0-9]{1,6}")
_SQUARE: Final = re.compile(r"([0-9]{1,6})x([0-9]{1,6})")
LINE_LIMIT: Final = 4096  # longer input lines are refused whole (no command is this long)
TOO_LONG: Final = "\x00too long"  # what stdin_lines yields for such a line


def parse_new(words: list[str]) -> NewGameOptions:
    """Parse the words after ``new`` in any order.

    Raises:
        OptionError: for a word that is no game, size, rule, level, colour or "friend".
    """
    game, size, rule = Game.GOMOKU, None, Rule.FREESTYLE
    level: str | None = DEFAULT_LEVEL
    colour = Color.BLACK
    for raw in words:
        word = raw.lower()
        if (named := game_named(word)) is not None:
            game = named
        elif _NUMBER.fullmatch(word):
            size = int(word)
        elif square := _SQUARE.fullmatch(word):
            side, other = square.groups()
            if int(side) != int(other):
                raise OptionError(raw)
            size = int(side)
        elif word in {r.value for r in Rule}:
            rule = Rule(word)
        elif word in LEVELS:
            level = word
        elif word in ("ai", "computer", "bot"):
            level = level or DEFAULT_LEVEL
        elif word in _FRIEND_WORDS:
            level = None
        elif word in ("black", "x", "first"):
            colour = Color.BLACK
        elif word in ("white", "o", "second"):
            colour = Color.WHITE
        else:
            raise OptionError(raw)
    return NewGameOptions(game, size, rule, level, colour)


# ---------------------------------------------------------------- drawing


_RESET: Final = "\x1b[0m"
_BLACK_STONE: Final = "\x1b[1;33m"  # bold yellow X
_WHITE_STONE: Final = "\x1b[1;36m"  # bold cyan O
_LAST: Final = "\x1b[7m"  # reverse video
_WIN: Final = "\x1b[1;42;30m"  # black on green
_FORBIDDEN: Final = "\x1b[31m"  # red
_DIM: Final = "\x1b[2m"


def ansi_board(board: Board) -> str:
    """The whole board with ANSI colours: X/O stones, the last move reversed, the winning
    line on green, renju points forbidden to Black as a red ``x``."""
    view = window(board, None)
    last = board.last_move.point if board.last_move is not None else None
    winning = set(board.winning_line)
    banned = (
        forbidden_points(board)
        if board.rule is Rule.RENJU and board.outcome is None and board.to_move is Color.BLACK
        else set()
    )
    if board.gravity:
        header = "   " + " ".join(str(x + 1) for x in view.columns)
    else:
        header = "   " + " ".join(str(Point(x, 0))[0] for x in view.columns)
    lines = [_DIM + header + _RESET]
    for y in view.rows_top_down:
        cells = []
        for x in view.columns:
            point = Point(x, y)
            stone = board[point]
            if stone is None:
                cells.append(f"{_FORBIDDEN}x{_RESET}" if point in banned else f"{_DIM}.{_RESET}")
                continue
            text = "X" if stone is Color.BLACK else "O"
            style = _BLACK_STONE if stone is Color.BLACK else _WHITE_STONE
            if point in winning:
                style = _WIN
            elif point == last:
                style += _LAST
            cells.append(f"{style}{text}{_RESET}")
        label = "" if board.gravity else f"{y + 1:>2}"
        right = "" if board.gravity else f" {y + 1}"
        lines.append(f"{_DIM}{label:>2}{_RESET} " + " ".join(cells) + f"{_DIM}{right}{_RESET}")
    lines.append(_DIM + header + _RESET)
    return "\n".join(lines)


def plain_board(board: Board) -> str:
    """The whole board without colour (the compact style without its code fence)."""
    return compact_board(board).removeprefix("```\n").removesuffix("\n```")


def player_name(player: Player) -> str:
    """A player as the terminal names them."""
    if player.level is not None:
        from bot.text.words import ai_name

        return ai_name(player.level)
    if player.user_id == PLAYER_TWO:
        return _("Player 2")
    if player.user_id == PLAYER_ONE:
        return _("Player 1")
    return _("user {id}").format(id=player.user_id)


# ---------------------------------------------------------------- the loop


async def stdin_lines() -> AsyncIterator[str]:
    """Lines from standard input without blocking the event loop; ends at EOF.

    Pipes and terminals are read through the loop; a regular file (``< moves.txt``) with a
    thread, which never blocks for long on a file. A line longer than ``LINE_LIMIT`` comes
    as ``TOO_LONG``, whatever its length: it is skipped, not held in memory.
    """
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    except (ValueError, OSError):
        while True:
            line = await asyncio.to_thread(sys.stdin.readline, LINE_LIMIT + 1)
            if not line:
                return
            if len(line) > LINE_LIMIT and not line.endswith("\n"):
                while (rest := await asyncio.to_thread(sys.stdin.readline, LINE_LIMIT)) and (
                    not rest.endswith("\n")
                ):
                    pass
                line = TOO_LONG
            yield line
        return
    async for line in _limited_lines(reader):
        yield line


async def _limited_lines(reader: asyncio.StreamReader) -> AsyncIterator[str]:
    """Lines of ``reader``; one over its limit is drained and comes as ``TOO_LONG``."""
    skipping = False
    while True:
        try:
            raw = await reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as error:
            raw = error.partial  # the last line had no newline; b"" at EOF
            if not raw:
                return
        except asyncio.LimitOverrunError as error:
            # The data stays buffered: drop what was looked at and go on to the newline.
            await reader.readexactly(error.consumed)
            skipping = True
            continue
        if skipping:
            skipping = False
            yield TOO_LONG
        else:
            yield raw.decode(errors="replace")


class Terminal:
    """One terminal session over a ``GameService``."""

    def __init__(
        self,
        service: GameService,
        output: TextIO,
        *,
        colour: bool | None = None,
        channel_id: int = TERMINAL_CHANNEL,
        runner: GameRunner | None = None,
    ) -> None:
        """``runner``: the service's runner, when the caller runs one; otherwise the session
        runs its own while it reads commands (``run``)."""
        self.service = service
        self.output = output
        self.colour = output.isatty() if colour is None else colour
        self.channel_id = channel_id
        self.view: GameState | None = None
        self._ref = GameRef(channel_id=channel_id)  # the terminal's game: its channel's
        self._own_runner = runner is None
        self.runner = runner if runner is not None else GameRunner(service)

    def on_event(self, event: Event) -> None:
        """A subscriber of the service: print this terminal's games that the clocks ended
        (what the players do is printed as they do it)."""
        if (
            isinstance(event, GameEnded)
            and event.by_clock
            and event.via is None
            and event.game.channel_id == self.channel_id
        ):
            self.show(event.game)

    # ---- output

    def say(self, text: str = "") -> None:
        """Print a line (and flush: a pipe must see it before we wait for input)."""
        self.output.write(text + "\n")
        self.output.flush()

    def show(self, view: GameState) -> None:
        """Print the board and one status line."""
        self.view = view
        board = view.board
        self.say(ansi_board(board) if self.colour else plain_board(board))
        self.say(self.status(view))

    def status(self, view: GameState) -> str:
        """Who plays, whose turn, or how it ended."""
        board = view.board
        if game_spec(view.game).sizes is not None:  # the player chose the size and the rule
            from bot.text.words import rule_name

            title = _("Gomoku {width}x{height} {rule}").format(
                width=board.width, height=board.height, rule=rule_name(view.rule)
            )
        else:
            title = game_name(view.game)
        sides = _("X {black} vs O {white}").format(
            black=player_name(view.black), white=player_name(view.white)
        )
        if view.is_active:
            mover = view.to_move
            assert mover is not None
            symbol = "X" if board.to_move is Color.BLACK else "O"
            last = (
                _(", last {point}").format(point=board.last_move.point)
                if board.last_move is not None
                else ""
            )
            if mover.is_ai:
                action = _("thinking...")
            elif board.gravity:
                action = _("to move (type column number)")
            else:
                action = _("to move (type a point like h8)")
            return _("{title}: {sides}. Move {number}{last}. {symbol} {player} {action}").format(
                title=title,
                sides=sides,
                number=len(board.moves) + 1,
                last=last,
                symbol=symbol,
                player=player_name(mover),
                action=action,
            )
        outcome = view.outcome
        if outcome is None or outcome.termination is Termination.ABANDONED:
            result = _("no result")
        elif outcome.winner is None:
            result = _("a draw")
        else:
            winner = player_name(view.player(outcome.winner))
            result = {
                Termination.RESIGN: _("{player} wins by resignation"),
                Termination.TIMEOUT: _("{player} wins on time"),
            }.get(outcome.termination, _("{player} wins")).format(player=winner)
        return _("{title}: {sides}. Game over: {result}. Type 'new' to play again.").format(
            title=title, sides=sides, result=result
        )

    def error(self, error: BaseException) -> None:
        """Print the player-facing words for ``error``."""
        if isinstance(error, NoActiveGameError):
            self.say(_("No game is running. Type 'new' to start one."))
            return
        # The table speaks Discord markdown; a terminal shows it plain.
        self.say((user_message(error) or generic_message()).replace("**", ""))

    # ---- session

    async def begin(self) -> None:
        """Pick up the open game of the terminal's channel, or start the default game."""
        self.say(_("Gomoku in the terminal. Type 'help' for commands, 'quit' to leave."))
        try:
            view = await self.service.board(self.channel_id)
        except GomokuError:
            view = None
        if view is not None and view.is_active:
            self.say(_("Continuing the game you left."))
            self.show(view)
            await self._ai_turns(view)
        else:
            await self.new(NewGameOptions())

    def prompt(self) -> None:
        """Show the input prompt (terminals only; a pipe gets clean lines)."""
        if self.colour:
            self.output.write("> ")
            self.output.flush()

    async def run(self, lines: AsyncIterator[str]) -> None:
        """Read commands until EOF or ``quit``."""
        self.service.subscribe(self.on_event, (GameEnded,))
        if self._own_runner:
            self.runner.start()
        try:
            await self.begin()
            self.prompt()
            async for line in lines:
                if not await self.handle(line):
                    break
                self.prompt()
        finally:
            self.service.unsubscribe(self.on_event)
            if self._own_runner:
                await self.runner.close()
        bye = _("Bye. Your game is saved.")
        self.say(bye if not self.colour else "\n" + bye)

    async def handle(self, line: str) -> bool:
        """Act on one line; False means quit."""
        if line == TOO_LONG or len(line) > LINE_LIMIT:
            self.say(_("That line is too long to be a move or a command. See 'help'."))
            return True
        line = line.replace("\x00", "")  # no command needs one, and paths refuse them
        words = line.strip().split()
        if not words:
            return True
        command, args = words[0].lower(), words[1:]
        try:
            return await self._dispatch(command, args, line.strip())
        except OptionError as error:
            word = _quoted(error.word)
            self.say(
                _("{word} is not a game, size, rule, level or colour. See 'help'.").format(
                    word=word
                )
            )
        except (GomokuError, AIError) as error:
            self.error(error)
        except StorageError as error:
            self.error(error)
        except Exception as error:  # a bug: the session goes on, the traceback goes to the log
            log.exception("terminal command %r failed", command)
            self.error(error)
        return True

    async def _dispatch(self, command: str, args: list[str], text: str) -> bool:
        if command in ("quit", "exit", "q"):
            return False
        if command in ("help", "?"):
            self.say(_(HELP))
        elif command == "new":
            await self.new(parse_new(args))
        elif command == "board":
            await self.board()
        elif command == "undo":
            await self.undo()
        elif command == "hint":
            await self.hint()
        elif command == "resign":
            await self.resign()
        elif command == "export":
            await self.export(args[0] if args else None)
        else:
            await self.move(text)
        return True

    async def board(self) -> None:
        """Show the current game, or the one that just ended."""
        try:
            view = await self.service.board(self.channel_id)
        except NoActiveGameError:
            if self.view is None:
                raise
            view = await self.service.game(self.view.game_id)
        self.show(view)

    async def new(self, options: NewGameOptions) -> None:
        """Start a game (ending the open one without a result)."""
        one, two = Player.human(PLAYER_ONE), Player.human(PLAYER_TWO)
        if options.level is None:
            black, white = one, two
        else:
            ai = Player.ai(options.level)
            black, white = (one, ai) if options.colour is Color.BLACK else (ai, one)
        view = await self.service.start_local(
            channel_id=self.channel_id,
            black=black,
            white=white,
            game=options.game,
            rule=options.rule,
            size=options.size,
        )
        self.show(view)
        await self._ai_turns(view)

    def _mover(self, view: GameState) -> int:
        """The user id acting now: whoever is to move (two people share the keyboard)."""
        player = view.to_move
        if player is not None and player.user_id is not None:
            return player.user_id
        return view.humans[0] if view.humans else PLAYER_ONE

    async def _current(self) -> GameState:
        return await self.service.board(self.channel_id)

    async def move(self, text: str) -> None:
        """A typed move: a point, or a column number in gravity games."""
        view = await self._current()
        user = self._mover(view)
        cleaned = text.strip()
        result: MoveResult
        if view.board.gravity and _NUMBER.fullmatch(cleaned):
            result = await self.service.act(self._ref, user, Drop(int(cleaned) - 1), via=VIA)
        elif _NUMBER.fullmatch(cleaned):
            raise InvalidPointError(cleaned)
        elif view.board.gravity:
            # A point names the landing square too, but these games speak columns everywhere.
            self.say(
                _(
                    "{text} is not a column. Type a column number from 1 to {width}, like 4, "
                    "or 'help'."
                ).format(text=_quoted(cleaned), width=view.board.width)
            )
            return
        else:
            try:
                point = Point.parse(cleaned)
            except ValueError:  # InvalidPointError; also a plain ValueError for u..z today
                shown = _quoted(cleaned)
                self.say(
                    _("{text} is not a move or a command. Type a point like h8, or 'help'.").format(
                        text=shown
                    )
                )
                return
            result = await self.service.act(self._ref, user, Place(point), via=VIA)
        if result.ai_due:
            # One board per turn: the AI's reply follows at once.
            self.view = result.game
            self.say(
                _("{player} plays {move}.").format(
                    player=player_name(result.game.player(result.move.color)),
                    move=self._where(result.game, result.move.point),
                )
            )
        else:
            self.show(result.game)
        await self._ai_turns(result.game)

    @staticmethod
    def _where(view: GameState, point: Point) -> str:
        if view.board.gravity:
            return _("column {column}").format(column=point.x + 1)
        return str(point)

    async def _ai_turns(self, view: GameState) -> None:
        while view.is_ai_turn:
            mover = view.to_move
            assert mover is not None
            self.say(_("{player} is thinking...").format(player=player_name(mover)))
            result = await self.runner.answer(view.game_id)
            if result is None:
                return
            where = self._where(result.game, result.move.point)
            self.say(
                _("{player} plays {move}.").format(
                    player=player_name(view.player(result.move.color)), move=where
                )
            )
            self.show(result.game)
            view = result.game

    async def undo(self) -> None:
        """Take back the last move(s); two people here agree by asking."""
        view = await self._current()
        answer = await self.service.act(self._ref, self._last_mover(view), AskUndo(), via=VIA)
        if isinstance(answer, UndoRequest):
            # Both players sit at this keyboard: asking is agreeing.
            result = await self.service.act(
                GameRef(answer.game.game_id), answer.responder, AnswerUndo(True), via=VIA
            )
            assert result is not None
            answer_view, undone = result.game, result.undone
        else:
            answer_view, undone = answer.game, answer.undone
        points = _(", ").join(str(m.point) for m in reversed(undone))
        self.say(_("Took back {points}.").format(points=points))
        self.show(answer_view)

    @staticmethod
    def _last_mover(view: GameState) -> int:
        """Whose move an undo takes back: the human who moved last."""
        for move in reversed(view.board.moves):
            user = view.player(move.color).user_id
            if user is not None:
                return user
        return view.humans[0] if view.humans else PLAYER_ONE

    async def hint(self) -> None:
        """Ask the AI for the side to move."""
        view = await self._current()
        self.say(_("Thinking..."))
        hint = await self.service.hint(self.channel_id, self._mover(view))
        where = hint.point
        if view.board.gravity:
            self.say(_("Hint: column {column}.").format(column=where.x + 1))
        else:
            self.say(_("Hint: {point}.").format(point=where))

    async def resign(self) -> None:
        """Give up the current game."""
        view = await self._current()
        end = await self.service.act(self._ref, self._mover(view), Resign(), via=VIA)
        self.show(end.game)

    async def export(self, path: str | None) -> None:
        """Print the SGF and move list, or write the SGF to ``path``."""
        game_id = self.view.game_id if self.view is not None else None
        export = await self.service.export(
            self.channel_id, game_id=game_id, player_names=player_name
        )
        if path is None:
            self.say(export.sgf.rstrip())
            self.say(_("Moves: {moves}").format(moves=export.moves or _("(none)")))
            return
        try:
            await asyncio.to_thread(Path(path).write_text, export.sgf, encoding="utf-8")
        except OSError as error:
            self.say(
                _("Could not write {path}: {reason}.").format(
                    path=_quoted(path), reason=error.strerror
                )
            )
            return
        count = len(export.game.board.moves)
        self.say(
            ngettext(
                "Saved the game to {path} ({count} move).",
                "Saved the game to {path} ({count} moves).",
                count,
            ).format(path=path, count=count)
        )


def _quoted(text: str) -> str:
    # User text shown back: printable and short (a terminal would obey escape sequences).
    kept = "".join(ch for ch in text if ch.isprintable())[:20]
    return f"'{kept}'"


# ---------------------------------------------------------------- entry point


async def main(
    settings: Settings,
    *,
    lines: Callable[[], AsyncIterator[str]] = stdin_lines,
    output: TextIO | None = None,
    workers: int = 1,
) -> None:
    """Run a terminal session on the store the settings name (``db_path`` by default), in
    the system's language (LC_ALL, LC_MESSAGES, LANG)."""
    from bot.core.ai import ProcessPoolRunner

    set_current(from_system(settings.system_locale))  # this task's language, and its children's
    from storage.opening import open_repository

    out = output or sys.stdout
    stop = asyncio.Event()
    if threading.current_thread() is threading.main_thread():
        # SIGTERM ends the session as the end of input does: the move under way is finished,
        # then everything is closed in order (no cancellation cutting a close in half).
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    runner = ProcessPoolRunner(workers, game_modules=settings.game_modules)
    # Warm the worker in the background: the board is on screen while numba loads.
    warming = asyncio.create_task(runner.warm_up())
    try:
        async with open_repository(settings.db_path, settings.database_url) as repository:
            terminal = Terminal(GameService(repository, runner), out)
            await terminal.run(_until(lines(), stop))
    finally:
        warming.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await warming
        await runner.close()


async def _until(lines: AsyncIterator[str], stop: asyncio.Event) -> AsyncIterator[str]:
    """``lines`` until ``stop`` is set (then as if the input had ended)."""
    stopped = asyncio.ensure_future(stop.wait())
    try:
        while True:
            line = asyncio.ensure_future(anext(lines, None))
            await asyncio.wait({line, stopped}, return_when=asyncio.FIRST_COMPLETED)
            if not line.done():
                line.cancel()
                return
            text = line.result()
            if text is None:
                return
            yield text
    finally:
        stopped.cancel()


def run(settings: Settings) -> int:
    """``python -m bot`` without a token: play in the terminal. Ctrl-C, SIGTERM and EOF leave
    cleanly (exit 0)."""
    try:
        asyncio.run(main(settings))
    except KeyboardInterrupt:
        with using(from_system(settings.system_locale)):
            sys.stdout.write("\n" + _("Bye. Your game is saved.") + "\n")
    return 0
