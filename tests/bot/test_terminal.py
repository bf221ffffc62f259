"""The terminal front-end, driven through its input lines and read from its output."""

from __future__ import annotations

import io
import os
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.core.service import GameService
from bot.terminal import (
    PLAYER_ONE,
    PLAYER_TWO,
    TERMINAL_CHANNEL,
    NewGameOptions,
    OptionError,
    Terminal,
    ansi_board,
    parse_new,
)
from engine.types import Color, Game, Rule
from storage.memory import InMemoryGameRepository
from storage.records import Player
from tests.processes import python_m
from tests.runners import NearestRunner


async def feed(lines: list[str]) -> AsyncIterator[str]:
    for line in lines:
        yield line + "\n"


async def session(
    lines: list[str], *, service: GameService | None = None, friend: bool = True
) -> tuple[str, GameService]:
    """Run a console over ``lines``; by default a two-player game is already open."""
    if service is None:
        service = GameService(InMemoryGameRepository(), NearestRunner(), rng=random.Random(3))
    if friend:
        await service.start_local(
            channel_id=TERMINAL_CHANNEL,
            black=Player.human(PLAYER_ONE),
            white=Player.human(PLAYER_TWO),
        )
    out = io.StringIO()
    await Terminal(service, out, colour=False).run(feed(lines))
    return out.getvalue(), service


async def test_two_players_play_to_a_win() -> None:
    out, _ = await session(
        ["h8", "a1", "h9", "a2", "h10", "a3", "h11", "a4", "h12", "board", "undo", "quit"]
    )
    assert "Continuing the game you left." in out
    assert "Player 1 wins" in out
    assert out.count("Player 1 wins") == 2  # "board" shows the game that just ended
    assert "No game is running. Type 'new' to start one." in out
    assert "[*]" in out  # the winning move, drawn in brackets on the winning line
    assert out.rstrip().endswith("Bye. Your game is saved.")


async def test_every_bad_input_gets_a_clear_line_and_changes_nothing() -> None:
    out, service = await session(
        ["h8", "h8", "z99", "hello world", "p1", "0", "new sideways", "h", "", "quit"]
    )
    lines = out.splitlines()
    assert "**" not in out  # Discord markdown is stripped for the terminal
    assert "h8 is already taken." in lines
    assert "'z99' is not a move or a command. Type a point like h8, or 'help'." in lines
    assert "'hello world' is not a move or a command. Type a point like h8, or 'help'." in lines
    assert "That point is off the board." in lines  # p1 on a 15x15 board
    assert "`0` is not a point. Type a column letter and a row number, like h8." in lines
    assert "'sideways' is not a game, size, rule, level or colour. See 'help'." in lines
    view = await service.board(TERMINAL_CHANNEL)
    assert [str(m.point) for m in view.board.moves] == ["h8"]


async def test_undo_between_two_people_at_one_keyboard() -> None:
    out, service = await session(["h8", "i9", "undo", "undo", "undo", "quit"])
    assert "Took back i9." in out
    assert "Took back h8." in out
    assert "You have no move to take back." in out
    assert (await service.board(TERMINAL_CHANNEL)).board.moves == ()


async def test_against_the_ai_with_hint_undo_export_and_resign(tmp_path: Path) -> None:
    sgf = tmp_path / "game.sgf"
    out, _ = await session(
        ["new white easy", "hint", "a1", "undo", "export", f"export {sgf}", "resign", "quit"],
        friend=False,
    )
    assert "AI (easy) plays h8." in out  # the AI opens as Black
    assert "Hint: h9." in out or "Hint:" in out
    assert "Took back" in out
    assert "(;FF[4]GM[4]" in out
    assert sgf.read_text().startswith("(;FF[4]GM[4]")
    assert "AI (easy) wins by resignation" in out


async def test_gravity_games_take_column_numbers() -> None:
    out, service = await session(["new connect4 friend", "4", "4", "9", "d3", "d5", "quit"])
    view = await service.board(TERMINAL_CHANNEL)
    assert view.game is Game.CONNECT4
    # d3 is where a stone in column 4 would land, but a point is refused all the same
    assert [str(m.point) for m in view.board.moves] == ["d1", "d2"]
    assert "That column is not available (choose 1-7)." in out
    for point in ("d3", "d5"):
        expected = (
            f"'{point}' is not a column. Type a column number from 1 to 7, like 4, or 'help'."
        )
        assert expected in out


async def test_eof_leaves_cleanly_and_the_game_is_kept() -> None:
    out, service = await session(["h8"])
    assert out.rstrip().endswith("Bye. Your game is saved.")
    out2, _ = await session(["board"], service=service, friend=False)
    assert "Continuing the game you left." in out2


def test_parse_new() -> None:
    assert parse_new([]) == NewGameOptions()
    options = parse_new(["renju", "19", "hard", "white"])
    assert options == NewGameOptions(Game.GOMOKU, 19, Rule.RENJU, "hard", Color.WHITE)
    assert parse_new(["ttt", "friend"]).level is None
    assert parse_new(["15x15"]).size == 15
    with pytest.raises(OptionError):
        parse_new(["15x9"])
    with pytest.raises(OptionError):
        parse_new(["purple"])


def test_ansi_board_colours_the_marks() -> None:
    from engine.board import Board

    board = Board.from_moves("h8 a1 h9 a2 h10 a3 h11 a4 h12")
    text = ansi_board(board)
    assert "\x1b[1;42;30mX" in text  # the winning line on green
    assert text.count("\x1b[1;42;30m") == 5


@pytest.mark.slow
def test_python_m_bot_plays_in_the_terminal(tmp_path: Path) -> None:
    """``make run`` without a token: the real entry point, a SQLite file, a real AI pool."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISCORD_TOKEN", "LC_ALL", "LC_MESSAGES", "LANGUAGE")
    }
    env["GOMOKU_DB_PATH"] = str(tmp_path / "console.sqlite3")
    env["LANG"] = "C.UTF-8"  # English
    run = python_m(
        "bot", input="new friend 9\ne5\nd4\nboard\nquit\n", env=env, cwd=tmp_path, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert "Gomoku 9x9 freestyle" in run.stdout
    assert "Move 3, last d4" in run.stdout
    assert run.stdout.rstrip().endswith("Bye. Your game is saved.")
    # The game is in the database: a second start continues it, in the system's language.
    again = python_m(
        "bot", input="board\n", env={**env, "LANG": "zh_CN.UTF-8"}, cwd=tmp_path, timeout=120
    )
    assert again.returncode == 0, again.stderr
    assert "继续你上次离开的对局。" in again.stdout
    assert "五子棋 9x9 无禁手" in again.stdout
    assert "第 3 手" in again.stdout
    assert "上一手 d4" in again.stdout
    assert again.stdout.rstrip().endswith("再见。你的对局已保存。")
