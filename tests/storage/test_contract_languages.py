"""Contract tests for languages: a server's chosen language for public messages
and each member's chosen language for replies, on every repository."""

from __future__ import annotations

from dataclasses import replace

from storage.records import GuildSettings
from storage.repository import GameRepository
from storage.sql import USER_LANGUAGES_A_READ
from tests.storage.conftest import ALICE, BOB, GUILD


async def test_guild_language_round_trip(repo: GameRepository) -> None:
    assert (await repo.guild_settings(GUILD)).language is None
    chosen = GuildSettings(GUILD, language="ja", board_style="compact")
    await repo.save_guild_settings(chosen)
    assert await repo.guild_settings(GUILD) == chosen
    assert (await repo.guild_settings(GUILD + 1)).language is None
    await repo.save_guild_settings(replace(chosen, language=None))
    assert await repo.guild_settings(GUILD) == replace(chosen, language=None)


async def test_user_language_round_trip_clear_and_forget(repo: GameRepository) -> None:
    assert await repo.user_language(ALICE) is None
    await repo.save_user_language(ALICE, "zh_Hans")
    await repo.save_user_language(ALICE, "ko")
    await repo.save_user_language(BOB, "ja")
    await repo.save_user_view(ALICE, "phone")  # the other user setting stays apart
    assert await repo.user_language(ALICE) == "ko"
    assert await repo.user_view(ALICE) == "phone"
    await repo.save_user_language(ALICE, None)  # back to following Discord
    assert await repo.user_language(ALICE) is None
    assert await repo.user_view(ALICE) == "phone"
    await repo.save_user_language(ALICE, "zh_Hant")
    await repo.delete_user_data(ALICE)
    assert await repo.user_language(ALICE) is None
    assert await repo.user_language(BOB) == "ja"


async def test_many_users_languages_read_at_once_agree_with_one_at_a_time(
    repo: GameRepository,
) -> None:
    """Read together, more users than one statement takes (ids repeated, users who never
    chose, one who chose and went back to Discord's), the languages are each user's own."""
    users = [ALICE + n for n in range(0, 150, 3)]
    languages = ["ja", "ko", "zh_Hans", "fr"]
    for n, user in enumerate(users):
        if n % 4 != 3:
            await repo.save_user_language(user, languages[n % len(languages)])
    await repo.save_user_language(users[0], None)
    asked = [*users, *users[:5], BOB, ALICE + 1]
    one_by_one = {u: lang for u in set(asked) if (lang := await repo.user_language(u))}
    assert len(one_by_one) == 37 > USER_LANGUAGES_A_READ  # more than one statement's worth
    assert await repo.user_languages(asked) == one_by_one
    assert await repo.user_languages([]) == {}
    assert await repo.user_languages([users[1]]) == {users[1]: "ko"}
