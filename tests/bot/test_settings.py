"""Settings come from the environment, then .env; nothing else reads os.environ."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.settings import InvalidSettingError, Settings, token_user_id
from tests.processes import python_m


def test_defaults(tmp_path: Path) -> None:
    settings = Settings.from_env({}, dotenv=tmp_path / "missing.env")
    assert settings == Settings()
    assert settings.discord_token is None
    assert settings.db_path == Path("gomoku.sqlite3")
    assert settings.log_level_number == logging.INFO


def test_environment_wins_over_dotenv(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text(
        "DISCORD_TOKEN=from-file\nGOMOKU_DB_PATH=/data/g.sqlite3\nGOMOKU_DEV_GUILD_ID=42\n"
        "LOG_LEVEL=debug\n"
    )
    settings = Settings.from_env({"DISCORD_TOKEN": "from-env"}, dotenv=dotenv)
    assert settings.discord_token == "from-env"
    assert settings.db_path == Path("/data/g.sqlite3")
    assert settings.dev_guild_id == 42
    assert settings.log_level == "DEBUG"


def test_empty_values_count_as_unset(tmp_path: Path) -> None:
    settings = Settings.from_env({"DISCORD_TOKEN": "  ", "GOMOKU_DB_PATH": ""}, dotenv=None)
    assert settings.discord_token is None
    assert settings.db_path == Path("gomoku.sqlite3")


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("GOMOKU_DEV_GUILD_ID", "my-guild"),
        ("LOG_LEVEL", "chatty"),
        ("GOMOKU_CONNECT_RETRY_MIN_S", "soon"),
        ("GOMOKU_CONNECT_RETRY_MIN_S", "0"),
        ("GOMOKU_CONNECT_RETRY_MAX_S", "nan"),
        ("GOMOKU_CONNECT_RETRY_MAX_S", "inf"),
        ("GOMOKU_CONNECT_RETRY_MIN_S", "45"),  # more than the ceiling's 30
        ("GOMOKU_GAME_MODULES", "mygames.four6, ../evil.py"),
        ("GOMOKU_GAME_MODULES", "mygames..four6"),
    ],
    ids=[
        "guild",
        "log-level",
        "retry-word",
        "retry-zero",
        "retry-nan",
        "retry-inf",
        "min>max",
        "module-path",
        "module-dots",
    ],
)
def test_bad_values_are_refused(name: str, value: str) -> None:
    with pytest.raises(InvalidSettingError) as caught:
        Settings.from_env({name: value}, dotenv=None)
    assert caught.value.name == name


def test_the_connection_retry_waits() -> None:
    default = Settings.from_env({}, dotenv=None)
    assert (default.connect_retry_min_s, default.connect_retry_max_s) == (1.0, 30.0)
    chosen = Settings.from_env(
        {"GOMOKU_CONNECT_RETRY_MIN_S": "0.5", "GOMOKU_CONNECT_RETRY_MAX_S": "120"}, dotenv=None
    )
    assert (chosen.connect_retry_min_s, chosen.connect_retry_max_s) == (0.5, 120.0)


def test_the_game_modules() -> None:
    assert Settings.from_env({}, dotenv=None).game_modules == ()
    named = Settings.from_env({"GOMOKU_GAME_MODULES": " mygames.four6 ,, othello,"}, dotenv=None)
    assert named.game_modules == ("mygames.four6", "othello")


@pytest.mark.parametrize("program", ["bot", "bot.worker"])
def test_a_game_module_that_cannot_be_imported_stops_the_start(
    program: str, tmp_path: Path
) -> None:
    env = {"GOMOKU_GAME_MODULES": "no_such_games_module", "GOMOKU_DB_PATH": str(tmp_path / "g")}
    done = python_m(program, env=env)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "Configuration error: GOMOKU_GAME_MODULES: cannot import 'no_such_games_module' "
        "(ModuleNotFoundError: No module named 'no_such_games_module')"
    )


def _base64_oracle(text: str) -> str:
    """Base64url without padding, the slow way: six bits at a time."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    bits = "".join(f"{byte:08b}" for byte in text.encode("ascii"))
    bits += "0" * (-len(bits) % 6)
    return "".join(alphabet[int(bits[i : i + 6], 2)] for i in range(0, len(bits), 6))


_PART = st.text("abcXYZ019_-", min_size=1, max_size=40)


@given(st.integers(0, 2**64 - 1), _PART, _PART)
def test_a_bot_tokens_first_part_is_its_user_id(user_id: int, middle: str, last: str) -> None:
    token = f"{_base64_oracle(str(user_id))}.{middle}.{last}"
    assert token_user_id(token) == user_id


@given(st.text(max_size=80))
def test_anything_else_is_no_token(text: str) -> None:
    parts = text.split(".")
    shaped = len(parts) == 3 and all(
        part and all(c.isascii() and (c.isalnum() or c in "_-") for c in part) for part in parts
    )
    if not shaped:
        assert token_user_id(text) is None


@pytest.mark.parametrize(
    "token",
    ["fake-token", "Bot MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.a", "MTIz.GhIjKl", "aGVsbG8.a.b", "..", ""],
)
def test_malformed_tokens_have_no_user(token: str) -> None:
    assert token_user_id(token) is None


def test_log_level_names() -> None:
    assert Settings.from_env({"LOG_LEVEL": "warn"}, dotenv=None).log_level_number == logging.WARN
    assert Settings.from_env({"LOG_LEVEL": "Debug"}, dotenv=None).log_level == "DEBUG"


def test_repr_hides_the_token() -> None:
    settings = Settings(discord_token="super-secret")
    assert "super-secret" not in repr(settings)
    assert "super-secret" not in str(settings)


def test_a_postgresql_url_selects_postgres_and_its_password_stays_hidden() -> None:
    url = "postgresql://gomoku:hunter2@db.internal:5432/gomoku"
    settings = Settings.from_env({"GOMOKU_DATABASE_URL": url}, dotenv=None)
    assert settings.database_url == url
    assert Settings.from_env({}, dotenv=None).database_url is None
    assert "hunter2" not in repr(settings)
    assert "postgresql://gomoku:***@db.internal:5432/gomoku" in repr(settings)


def test_a_database_url_that_is_not_postgresql_is_refused_without_its_password() -> None:
    with pytest.raises(InvalidSettingError) as caught:
        Settings.from_env({"GOMOKU_DATABASE_URL": "mysql://u:hunter2@h/db"}, dotenv=None)
    assert caught.value.name == "GOMOKU_DATABASE_URL"
    assert "hunter2" not in str(caught.value)


def test_only_settings_reads_the_environment() -> None:
    root = Path(__file__).resolve().parents[2] / "bot"
    readers = [
        path.name
        for path in root.rglob("*.py")
        if "os.environ" in path.read_text() or "getenv" in path.read_text()
    ]
    assert readers == ["settings.py"]


def test_python_m_bot_reports_bad_configuration(tmp_path: Path) -> None:
    result = python_m(
        "bot", env={"GOMOKU_DEV_GUILD_ID": "nope", "PATH": "/usr/bin:/bin"}, cwd=tmp_path
    )
    assert result.returncode == 2
    assert "GOMOKU_DEV_GUILD_ID" in result.stderr
