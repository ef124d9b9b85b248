"""Shared fixtures. Tests never touch the network and never read ../shared."""

from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["LANGSMITH_TRACING"] = "false"
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
for _k in list(os.environ):
    if _k.startswith("DTR_"):
        del os.environ[_k]

import resource  # noqa: E402
from pathlib import Path  # noqa: E402

# One pytest process opens and closes hundreds of corpora (Chroma, SQLite, servers); a
# closed Chroma client keeps some files open until its process ends. The usual soft limit
# for a user who is not root (1024 files) ran out three quarters of the way through the
# suite (issue 30): raise it to the hard limit, as far as 65,536.
_soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
_want = 65536 if _hard == resource.RLIM_INFINITY else min(_hard, 65536)
if _soft != resource.RLIM_INFINITY and _soft < _want:
    resource.setrlimit(resource.RLIMIT_NOFILE, (_want, _hard))

import pytest  # noqa: E402

from core.foundation.config import Settings  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def settings(tmp_path) -> Settings:
    """Settings whose storage lives in a fresh temporary folder.

    The cache is off: tests that ask the same question twice expect the model to be asked
    twice; tests/test_cache.py turns it on."""
    return Settings(data_dir=tmp_path / "store", cache_enabled=False, _env_file=None)


@pytest.fixture(scope="session")
def real_embedder():
    """The real bundled all-MiniLM-L6-v2, loaded once for the session."""
    from core.foundation.models import get_embedder

    return get_embedder(Settings(_env_file=None))


@pytest.fixture
def hash_embedder():
    from testkit.fakes.embedder import HashEmbedder

    return HashEmbedder()
