"""pytest fixtures for the fake servers.

Use them by listing this module as a plugin (``pytest_plugins =
["testkit.fakes.fixtures"]`` in the root conftest) or wrap the servers in a
local fixture; each yields a running server and closes it afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from core.foundation.config import Settings
from testkit.fakes.openai_server import FakeOpenAIServer
from testkit.fakes.tavily_server import FakeTavilyServer


@pytest.fixture
def openai_server() -> Iterator[FakeOpenAIServer]:
    """A running FakeOpenAIServer on 127.0.0.1 (closed after the test)."""
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def tavily_server() -> Iterator[FakeTavilyServer]:
    """A running FakeTavilyServer on 127.0.0.1 (closed after the test)."""
    with FakeTavilyServer() as server:
        yield server


def llm_settings(server: FakeOpenAIServer, tmp_path, **overrides) -> Settings:
    """Settings pointing the real ChatOpenAI at ``server`` with quick retries and timeouts
    (cache off unless ``cache_enabled=True`` is passed). Plan steps run one at a time
    (``parallel_steps=1``), since a scripted server answers requests in the order they come;
    pass ``parallel_steps=N`` to run them side by side."""
    values = dict(data_dir=tmp_path / "store", llm_base_url=server.base_url,
                  llm_model=server.model, llm_api_key="sk-test-SECRET-0123456789",
                  llm_timeout_s=5.0, llm_max_retries=2, llm_retry_backoff_s=0.01,
                  cache_enabled=False, parallel_steps=1)
    values.update(overrides)
    return Settings(_env_file=None, **values)
