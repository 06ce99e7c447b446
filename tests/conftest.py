"""Shared test settings: one hypothesis profile sized for a 2-core CI machine; a redis-server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis
from hypothesis import HealthCheck, settings

from .budget import EXAMPLES
from .redis_server import RedisServer

settings.register_profile(
    "minagent",
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("minagent")


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """A real redis-server (append-only file on, fsync always) for the whole session."""
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """The session's redis-server, emptied (FLUSHALL) for this test; its URL."""
    with redis.Redis.from_url(redis_server.url) as client:
        client.flushall()
    return redis_server.url


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every hypothesis test ``property``: `nox -s properties` runs them alone, with more
    examples (tests/budget.py)."""
    for item in items:
        if getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
            item.add_marker(pytest.mark.property)
