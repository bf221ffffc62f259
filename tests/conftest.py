"""Settings shared by every test package."""

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from tests.postgres_server import PostgresServer
from tests.processes import running

# Shared CI machines are slow and noisy: hypothesis judges behaviour here, never speed.
settings.register_profile(
    "project", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("project")


# --- a real PostgreSQL server, started once per run by the tests that ask for it ----------


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    yield from running(PostgresServer())


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """The address of a new, empty database on the test server."""
    return postgres_server.create_database()
