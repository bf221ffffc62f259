"""``python -m storage copy SRC DST``: SQLite file to PostgreSQL (see ``storage.copy``), and
``python -m storage backup PATH [--db SOURCE] [--force]``: a copy of the SQLite database made
while the bot runs (see ``storage.backup``). The storage benchmark is
``benchmarks/bench_storage.py``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path


def main(argv: Sequence[str] | None = None) -> None:
    """The command line: ``python -m storage copy SRC DST`` or ``backup PATH``."""
    parser = argparse.ArgumentParser(prog="python -m storage")
    commands = parser.add_subparsers(dest="command", required=True)
    copy = commands.add_parser(
        "copy", help="copy a SQLite database into an empty PostgreSQL one and verify it"
    )
    copy.add_argument("source", type=Path, help="the SQLite file (stop the bot first)")
    copy.add_argument("target", help="postgresql://user:password@host/database")
    save = commands.add_parser(
        "backup", help="copy the SQLite database, safely while the bot runs, and check the copy"
    )
    save.add_argument("path", type=Path, help="the backup file to write")
    save.add_argument(
        "--force", action="store_true", help="replace PATH if it exists (else refused)"
    )
    save.add_argument(
        "--db",
        help="the database (default: GOMOKU_DB_PATH from the environment or .env, "
        "else gomoku.sqlite3)",
    )
    args = parser.parse_args(argv)
    if args.command == "copy":
        sys.exit(_copy(args.source, args.target))
    sys.exit(_backup(args.path, args.db, replace=args.force))


def _copy(source: Path, target: str) -> int:
    from storage.copy import copy_database
    from storage.errors import StorageError
    from storage.opening import is_postgres_url, redact

    if not is_postgres_url(target):
        sys.stderr.write(
            f"copy: the target must be a postgresql:// address, not {redact(target)}\n"
        )
        return 2
    try:
        report = copy_database(source, target)
    except (StorageError, OSError) as error:
        sys.stderr.write(f"copy failed: {error}\n")
        return 1
    for table, count in report.rows.items():
        print(f"  {table}: {count:,} rows copied and compared")
    print(
        f"verified through the repository: {report.games_verified:,} games with their moves,"
        f" {report.guilds_verified:,} guilds' settings, {report.ratings_verified:,} ratings"
    )
    print(f"copied {source} -> {redact(target)}")
    return 0


def _backup(target: Path, source: str | None, *, replace: bool) -> int:
    from storage.backup import BackupError, backup
    from storage.opening import is_postgres_url

    source = source or _configured_database()
    if is_postgres_url(source):
        sys.stderr.write(
            "backup: the database is PostgreSQL: back it up with pg_dump "
            "(pg_dump --format=custom --file=gomoku.dump DATABASE), see docs/deploy.md\n"
        )
        return 2
    try:
        report = backup(Path(source), target, replace=replace)
    except (BackupError, OSError) as error:
        sys.stderr.write(f"backup failed: {error}\n")
        return 1
    counted = (
        ""
        if report.games is None or report.moves is None
        else f": games {report.games:,}, moves {report.moves:,}"
    )
    print(
        f"backed up {report.source} -> {report.target} "
        f"({report.size:,} bytes, integrity ok){counted}"
    )
    return 0


def _configured_database() -> str:
    """The bot's database as it would open it: GOMOKU_DATABASE_URL, else GOMOKU_DB_PATH, from
    the environment over ./.env (as ``bot.settings`` reads them)."""
    from dotenv import dotenv_values

    dotenv = Path(".env")
    values = {}
    if dotenv.is_file():
        values = {k: v for k, v in dotenv_values(dotenv).items() if v is not None}
    values.update(os.environ)
    return (
        values.get("GOMOKU_DATABASE_URL", "").strip()
        or values.get("GOMOKU_DB_PATH", "").strip()
        or "gomoku.sqlite3"
    )


if __name__ == "__main__":
    main()
