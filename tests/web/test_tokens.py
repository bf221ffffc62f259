"""Board passes: what they carry, and every way a pass is refused."""

from __future__ import annotations

import base64

import pytest

from bot.logs import REDACTED, redact
from bot.settings import InvalidSettingError, Settings
from bot.web.tokens import BadPassError, ExpiredPassError, Role, Signer

NOW = 1_800_000_000.0


@pytest.fixture
def signer() -> Signer:
    return Signer.from_secrets("a secret of the board", None)


def test_a_pass_says_who_may_do_what_in_which_game(signer: Signer) -> None:
    token = signer.mint(12, 345, Role.PLAY, language="ja", ttl=60, now=NOW)
    grant = signer.verify(token, now=NOW + 59)
    assert (grant.game_id, grant.user_id, grant.role, grant.language) == (12, 345, Role.PLAY, "ja")
    assert grant.can_play
    assert not signer.verify(signer.mint(12, 345, Role.WATCH, now=NOW), now=NOW).can_play


def test_an_expired_pass_is_refused(signer: Signer) -> None:
    token = signer.mint(12, 345, Role.PLAY, ttl=60, now=NOW)
    with pytest.raises(ExpiredPassError):
        signer.verify(token, now=NOW + 60)


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (lambda t: t.replace(".345.", ".346."), "another user"),
        (lambda t: t.replace(".12.", ".13.", 1), "another game"),
        (lambda t: t.replace(".w.", ".p."), "watch made play"),
        (lambda t: t.rsplit(".", 2)[0] + ".en." + t.rsplit(".", 1)[1], "another language"),
        (lambda t: t[:-1] + ("A" if t[-1] != "A" else "B"), "another signature"),
        (lambda t: "12", "a bare game id"),
        (lambda t: "", "nothing"),
        (lambda t: t + ".x", "a longer pass"),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_a_changed_pass_is_refused(signer: Signer, change: object, why: str) -> None:
    token = signer.mint(12, 345, Role.WATCH, language="ko", now=NOW)
    assert callable(change)
    with pytest.raises(BadPassError):
        signer.verify(change(token), now=NOW)


def test_a_standings_pass_shows_one_tournament_until_it_expires(signer: Signer) -> None:
    token = signer.mint_standings(7, language="ko", ttl=60, now=NOW)
    grant = signer.verify_standings(token, now=NOW + 59)
    assert (grant.tournament_id, grant.expires, grant.language) == (7, int(NOW) + 60, "ko")
    with pytest.raises(ExpiredPassError):
        signer.verify_standings(token, now=NOW + 60)
    for changed in (token.replace("t1.7.", "t1.8."), token.replace(".ko.", ".ja."), token[:-1]):
        with pytest.raises(BadPassError):
            signer.verify_standings(changed, now=NOW)
    with pytest.raises(BadPassError):
        Signer.from_secrets("another secret", None).verify_standings(token, now=NOW)


def test_a_game_pass_and_a_standings_pass_never_stand_for_each_other(signer: Signer) -> None:
    game = signer.mint(7, 345, Role.WATCH, now=NOW)
    standings = signer.mint_standings(7, now=NOW)
    with pytest.raises(BadPassError):
        signer.verify_standings(game, now=NOW)
    with pytest.raises(BadPassError):
        signer.verify(standings, now=NOW)
    # The other prefix on the same signature: signed over a different body.
    with pytest.raises(BadPassError):
        signer.verify("v1" + standings[2:], now=NOW)
    with pytest.raises(BadPassError):
        signer.verify_standings(None, now=NOW)


def test_another_key_signs_other_passes() -> None:
    ours = Signer.from_secrets("one secret", None)
    theirs = Signer.from_secrets(None, "the bot token")
    with pytest.raises(BadPassError):
        theirs.verify(ours.mint(1, 2, Role.PLAY, now=NOW), now=NOW)
    with pytest.raises(ValueError, match="GOMOKU_WEB_SECRET"):
        Signer.from_secrets(None, None)


def test_a_key_derived_from_the_bot_token_does_not_reveal_it() -> None:
    token = Signer.from_secrets(None, "the-bot-token").mint(1, 2, Role.PLAY, now=NOW)
    signature = base64.urlsafe_b64decode(token.rsplit(".", 1)[1] + "=")
    assert b"the-bot-token" not in signature
    assert "the-bot-token" not in token


def test_passes_and_codes_never_reach_a_log_line(signer: Signer) -> None:
    token = signer.mint(12, 345, Role.PLAY, now=NOW)
    for line in (
        f"opened https://board.example/#{token}",
        f"pass {token} refused",
        "GET /api/token?code=abcdef123 200",
        "GET /ws?token=v1.2.3 101",
    ):
        cleaned = redact(line)
        assert REDACTED in cleaned
        assert token not in cleaned
        assert "abcdef123" not in cleaned
        assert "v1.2.3" not in cleaned


def test_the_web_board_needs_both_its_port_and_its_url() -> None:
    on = Settings.from_env(
        {"GOMOKU_WEB_PORT": "8080", "GOMOKU_WEB_URL": "https://board.example"}, dotenv=None
    )
    assert (on.web_port, on.web_url) == (8080, "https://board.example")
    half = Settings.from_env({"GOMOKU_WEB_PORT": "8080"}, dotenv=None)
    assert (half.web_port, half.web_url) == (None, None)
    with pytest.raises(InvalidSettingError):
        Settings.from_env({"GOMOKU_WEB_PORT": "http"}, dotenv=None)
    with pytest.raises(InvalidSettingError):
        Settings.from_env({"GOMOKU_WEB_URL": "board.example"}, dotenv=None)
    secret = Settings.from_env(
        {"GOMOKU_WEB_SECRET": "s3cr3t-value", "GOMOKU_CLIENT_SECRET": "c1ient-value"},
        dotenv=None,
    )
    assert "s3cr3t-value" not in repr(secret)
    assert "c1ient-value" not in repr(secret)
