"""Contract tests for languages: a server's chosen language for public messages
and each member's chosen language for replies, on every repository."""

from __future__ import annotations

from dataclasses import replace

from storage.records import GuildSettings
from storage.repository import GameRepository
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
