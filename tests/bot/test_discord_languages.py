"""Languages through the real discord.py against the fake Discord (issue 15): a game played
by a Chinese or Japanese client, command names included; private answers in the reader's
language and public ones in the server's; a member's own choice."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.client import GomokuBot
from bot.preferences import LANGUAGE_TTL
from bot.text import i18n, render
from tests.bot.conftest import BotFactory, board_caught_up, record_calls
from tests.clock import FakeClock
from tests.fakediscord import FakeDiscord, FakeUser, Message

# Words that stay as they are in every language: notation, file formats, engine names.
_KEPT = {"VCF", "VCT", "SGF", "Swap", "Swap2", "Soosõrv", "Taraguchi", "Wine", "Gomocup", "Caro"}
_MARKUP = re.compile(
    r"</[^>]+>"  # a command mention: the client shows it in the reader's language
    r"|<[@#][!&]?\d+>"  # user, role and channel mentions
    r"|```.*?```|`[^`]*`"  # code: boards, move lists
    r"|\b[a-tA-T](?:[1-9]|1[0-9]|20)\b",  # points such as h8
    re.DOTALL,
)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def _shown(message: Message) -> str:
    """Everything a reader sees of ``message`` in words: text, embeds, button labels."""
    labels = [str(b.get("label", "")) for b in message.buttons()]
    return "\n".join([message.text(), *labels])


def _english_left(text: str) -> list[str]:
    return [w for w in re.findall(r"[A-Za-z]{3,}", _MARKUP.sub(" ", text)) if w not in _KEPT]


def _assert_in_language(message: Message | None, what: str) -> None:
    assert message is not None, what
    shown = _shown(message)
    assert _CJK.search(shown), f"{what}: no word of the language in {shown!r}"
    assert _english_left(shown) == [], f"{what}: English left in {shown!r}"


def _localised(node: dict[str, Any], locale: str) -> str:
    name = (node.get("name_localizations") or {}).get(locale)
    assert name, f"{node['name']} has no {locale} name"
    assert name != node["name"], f"{node['name']} has no {locale} name"
    return str(name)


def _option(node: dict[str, Any], name: str) -> dict[str, Any]:
    return next(o for o in node["options"] if o["name"] == name)


@pytest.mark.parametrize(
    ("locale", "language"), [("zh-CN", "zh_Hans"), ("ja", "ja"), ("zh-TW", "zh_Hant"), ("ko", "ko")]
)
async def test_a_game_in_the_players_language(
    locale: str, language: str, fake: FakeDiscord, make_bot: BotFactory, alice: FakeUser
) -> None:
    fake.guild_locale = locale
    alice.locale = locale
    bot: GomokuBot
    async with fake.running(bot := make_bot()):
        gomoku = fake.command("gomoku")
        start_node = _option(gomoku, "start")
        # The client shows every name translated; the player types those.
        group = _localised(gomoku, locale)
        start = _localised(start_node, locale)
        level = _localised(_option(start_node, "level"), locale)
        size = _localised(_option(start_node, "size"), locale)
        place = _localised(fake.command("place"), locale)
        cell = _localised(fake.command("place")["options"][0], locale)
        hint = _localised(_option(gomoku, "hint"), locale)
        resign = _localised(_option(gomoku, "resign"), locale)
        help_ = _localised(_option(gomoku, "help"), locale)
        for node in (gomoku, start_node, fake.command("place")):
            assert node["description_localizations"][locale] != node["description"]
        for choice in _option(start_node, "level")["choices"]:
            assert choice["name_localizations"][locale] != choice["name"]

        answers = []
        started = await fake.slash(
            f"{group} {start}", user=alice, options={level: "beginner", size: 9}
        )
        answers.append(("start", started.message))
        game_id = (await bot.service.board(fake.default_channel.id)).game_id
        moved = await fake.slash(place, user=alice, options={cell: "c3"})
        answers.append(("place", moved.message))
        taken = await fake.slash(place, user=alice, options={cell: "c3"})
        answers.append(("occupied", taken.message))
        nowhere = await fake.slash(place, user=alice, options={cell: "z"})
        answers.append(("not a point", nowhere.message))
        answers.append(("hint", (await fake.slash(f"{group} {hint}", user=alice)).message))
        answers.append(("help", (await fake.slash(f"{group} {help_}", user=alice)).message))
        confirm = await fake.slash(f"{group} {resign}", user=alice)
        answers.append(("resign?", confirm.message))
        assert confirm.message is not None
        resigned = await fake.click(confirm.message, f"gomoku:{game_id}:resign", user=alice)
        answers.append(("resigned", resigned.message))
        for what, message in answers:
            _assert_in_language(message, what)
        board = started.message
        assert board is not None
        with i18n.using(language):  # the public board: the server's language (the same here)
            result = render.status_line(await bot.service.game(game_id))
        await fake.wait_for(lambda: result in board.text())
        _assert_in_language(board, "the finished board")


async def test_replies_follow_the_reader_and_boards_the_server(
    fake: FakeDiscord, make_bot: BotFactory, alice: FakeUser, bob: FakeUser
) -> None:
    alice.locale = "zh-CN"  # an English server; alice's client speaks Chinese
    bot: GomokuBot
    async with fake.running(bot := make_bot()):
        started = await fake.slash(
            "gomoku start", user=alice, options={"opponent": bob, "rated": False}
        )
        challenge = started.message
        assert challenge is not None
        assert _CJK.search(_shown(challenge)) is None  # public: the server's English
        assert "Accept" in _shown(challenge)
        game_id = (await bot.service.board(fake.default_channel.id)).game_id
        refused = await fake.click(challenge, f"gomoku:{game_id}:accept", user=alice)
        _assert_in_language(refused.message, "a refusal to alice")  # private: her Chinese
        await fake.click(challenge, f"gomoku:{game_id}:accept", user=bob)
        await board_caught_up(fake, bot, game_id)

        # bob chooses Chinese for himself: his answers change, the board does not.
        chosen = await fake.slash("gomoku preferences", user=bob, options={"language": "zh_Hans"})
        _assert_in_language(chosen.message, "the language saved")
        wrong = await fake.slash("place", user=bob, options={"cell": "h8"})  # alice's turn
        _assert_in_language(wrong.message, "not your turn, to bob")
        assert _CJK.search(_shown(challenge)) is None

        # The server's admins choose Chinese: the board is redrawn in it.
        owner_reply = await fake.slash(
            "gomoku-admin settings", user=fake.owner, options={"language": "zh_Hans"}
        )
        assert "简体中文" in owner_reply.text()
        await fake.slash("place", user=alice, options={"cell": "h8"})
        await fake.wait_for(lambda: _CJK.search(_shown(challenge)) is not None)
        _assert_in_language(challenge, "the board after the server chose Chinese")

        # Back to following Discord: bob's answers are English again.
        await fake.slash("gomoku preferences", user=bob, options={"language": "discord"})
        again = await fake.slash("place", user=alice, options={"cell": "h8"})
        assert _CJK.search(again.text()) is not None  # alice: still her client's Chinese
        english = await fake.slash("place", user=bob, options={"cell": "h8"})
        assert "already taken" in english.text()


async def test_a_choice_stored_by_another_shard_process_reaches_this_one_within_a_minute(
    fake: FakeDiscord, make_bot: BotFactory, clock: FakeClock, alice: FakeUser
) -> None:
    bot = make_bot()
    async with fake.running(bot):
        before = await fake.slash("place", user=alice, options={"cell": "h8"})
        assert _CJK.search(before.text()) is None  # no game here; alice reads English
        # Another process (the shard of another server) stores her choice in the shared
        # database; this process's copy is still fresh, so it answers as before.
        await bot.service.set_language(alice.id, "ja")
        cached = await fake.slash("place", user=alice, options={"cell": "h8"})
        assert cached.text() == before.text()
        clock.advance(seconds=LANGUAGE_TTL.total_seconds())
        after = await fake.slash("place", user=alice, options={"cell": "h8"})
        _assert_in_language(after.message, "the choice read again")


async def test_a_language_slow_to_read_costs_no_answer_and_lands_for_the_next(
    fake: FakeDiscord, make_bot: BotFactory, alice: FakeUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A database queueing a burst must not hold an interaction past Discord's 3 s before
    anything is said: the first answer goes in her Discord client's language, and the read,
    made once, serves the next."""
    bot = make_bot()
    bot.preferences.language_wait = 0.05
    async with fake.running(bot):
        await bot.service.set_language(alice.id, "ja")
        stored = bot.service.repository.user_languages
        release = asyncio.Event()
        reads: list[list[int]] = []

        async def slow(user_ids: Iterable[int]) -> dict[int, str]:
            reads.append(list(user_ids))
            await release.wait()
            return await stored(user_ids)

        monkeypatch.setattr(bot.service.repository, "user_languages", slow)
        first = await fake.slash("place", user=alice, options={"cell": "h8"})
        assert first.message is not None
        assert _CJK.search(first.text()) is None  # English, her client's language
        release.set()
        # still under way: the answer did not wait for it
        await bot.preferences._language_reads[alice.id]
        assert bot.preferences._user_languages[alice.id][0] == "ja"
        after = await fake.slash("place", user=alice, options={"cell": "h8"})
        _assert_in_language(after.message, "the language read late")
        assert reads == [[alice.id]]


async def test_members_arriving_together_have_their_languages_read_together(
    fake: FakeDiscord, bot: GomokuBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The interactions of members not seen yet that reach the bot in one pass of its event
    loop (a burst) ask the database once for all their languages; each answers in its
    member's own."""
    members = [fake.add_user(f"member{n}") for n in range(4)]
    await bot.service.set_language(members[1].id, "ja")
    await bot.service.set_language(members[2].id, "ko")
    reads = record_calls(monkeypatch, bot.service.repository, "user_languages")

    async def language_of(member: FakeUser) -> str:
        interaction: Any = SimpleNamespace(
            extras={}, user=member, locale=discord.Locale.american_english, guild_locale=None
        )
        await bot.preferences.set_answer_language(interaction)
        return i18n.current()

    chosen = await asyncio.gather(*(language_of(member) for member in members))
    assert chosen == ["en", "ja", "ko", "en"]
    assert [sorted(read) for read in reads] == [sorted(member.id for member in members)]
    await language_of(members[1])  # kept: not read again
    assert len(reads) == 1
