"""What the page draws, as the server sends it: the position, renju's forbidden points, the
winning line, whose turn it is, and the words in the viewer's language."""

from __future__ import annotations

import gc

from bot.core.service import GameService
from bot.core.service.states import GameState
from bot.text import i18n
from bot.web.state import Reuse, game_payload
from engine.types import Color, Game, Point, Rule
from storage.memory import InMemoryGameRepository
from storage.records import Player
from tests.runners import CentreRunner

BLACK, WHITE = 1, 2


def names(player: Player) -> str:
    return f"user {player.user_id}"


async def play(moves: str, *, rule: Rule = Rule.FREESTYLE, game: Game = Game.GOMOKU) -> GameState:
    service = GameService(InMemoryGameRepository(), CentreRunner())
    seen: list[GameState] = []
    service.subscribe(lambda event: seen.append(event.game))
    view = await service.start_local(
        channel_id=7, black=Player.human(BLACK), white=Player.human(WHITE), game=game, rule=rule
    )
    for turn, move in enumerate(moves.split()):
        user = BLACK if turn % 2 == 0 else WHITE
        view = (await service.place(7, user, Point.parse(move))).game
    # every stored change reached the subscribers, in order, the last one being this
    assert [state.version for state in seen] == sorted({state.version for state in seen})
    assert seen[-1].version == view.version
    return view


async def test_renju_shows_the_points_forbidden_to_black_while_black_is_to_move() -> None:
    view = await play("h8 a1 j8 a3 i7 a5 i9 a7", rule=Rule.RENJU)
    black = game_payload(view, Color.BLACK, names)
    assert black["forbidden"] == [[8, 7]]  # i8: a double three
    assert black["your_turn"]
    assert black["you"] == 0
    assert black["moves"][0] == (7, 7, 0)
    white = game_payload(view, Color.WHITE, names)
    assert not white["your_turn"]
    watcher = game_payload(view, None, names)
    assert watcher["you"] is None
    assert not watcher["your_turn"]


async def test_a_five_is_drawn_as_the_winning_line_and_the_game_is_over() -> None:
    view = await play("a1 a2 b1 b2 c1 c2 d1 d2 e1")
    payload = game_payload(view, Color.BLACK, names)
    assert payload["over"]
    assert payload["to_move"] is None
    assert sorted(payload["winning"]) == [[x, 0] for x in range(5)]
    assert "user 1" in payload["line"]


async def test_the_page_speaks_the_viewers_language() -> None:
    view = await play("h8")
    with i18n.using("ja"):
        japanese = game_payload(view, Color.WHITE, names)
    assert japanese["language"] == "ja"
    english = game_payload(view, Color.WHITE, names)
    assert english["words"]["confirm"] == "Tap again to place."
    assert japanese["words"]["confirm"] == "もう一度タップすると打ちます。"
    assert japanese["line"] != english["line"]


async def test_gravity_and_tictactoe_say_how_to_draw_them() -> None:
    connect4 = game_payload(await play("", game=Game.CONNECT4), Color.BLACK, names)
    assert (connect4["width"], connect4["height"], connect4["gravity"]) == (7, 6, True)
    tictactoe = game_payload(await play("b2", game=Game.TICTACTOE), Color.BLACK, names)
    assert tictactoe["marks"]
    assert tictactoe["moves"] == [(1, 1, 0)]


async def test_the_page_is_told_what_the_viewer_may_do_now() -> None:
    start = game_payload(await play(""), Color.BLACK, names)
    assert start["can_resign"]
    assert not start["can_undo"]  # nothing of Black's to take back yet
    assert start["can_hint"]  # a local game is friendly
    assert start["choices"] == []
    assert not start["can_rematch"]
    view = await play("h8")
    kinds = (Color.BLACK, Color.WHITE, None)
    black, white, watcher = (game_payload(view, mine, names) for mine in kinds)
    assert black["can_undo"]
    assert not black["can_hint"]  # not Black's turn
    assert not white["can_undo"]
    assert white["can_hint"]
    assert [watcher[key] for key in ("can_resign", "can_undo", "can_hint")] == [False] * 3
    over = game_payload(await play("a1 a2 b1 b2 c1 c2 d1 d2 e1"), Color.WHITE, names)
    assert over["can_rematch"]
    assert [over[key] for key in ("can_resign", "can_undo")] == [False, False]


async def test_the_status_line_carries_no_emoji_stones() -> None:
    # The page draws its own stones; emoji ones depend on the reader's fonts.
    for moves, game in [("h8", Game.GOMOKU), ("", Game.CONNECT4), ("b2", Game.TICTACTOE)]:
        payload = game_payload(await play(moves, game=game), Color.BLACK, names)
        assert "user 1 vs user 2" in payload["line"]
        assert not set(payload["line"]) & set("\u26ab\u26aa\U0001f534\U0001f7e1\u274c\u2b55")
    assert payload["colours"] == ["Black", "White"]


async def test_the_moves_a_kept_render_holds_cost_the_collector_nothing() -> None:
    # A watched game's newest render is kept between versions (bot.web.feed): its moves, one
    # object each, must not be objects every collection of the young generations walks.
    view = await play("h8 h9 i8 i9 j8")
    payload = game_payload(view, None, names, Reuse())
    gc.collect()
    assert len(payload["moves"]) == 5
    assert not any(gc.is_tracked(move) for move in payload["moves"])
