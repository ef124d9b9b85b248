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

import gzip  # noqa: E402
import resource  # noqa: E402
import shutil  # noqa: E402
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


@pytest.fixture(scope="session")
def ingested_store(tmp_path_factory):
    """``ingested_store(dest, *names)``: a store folder at ``dest`` holding the real 10-Ks
    ``names`` of tests/fixtures/figures ("nvda-10k-fy2023.html", "amd-10k-fy2025.htm").
    Each set is ingested once per session (3-15 s a filing; the hash embedder: figures never
    use the vectors), then copied: every caller's store is its own, to change as it likes."""
    from core.app.corpus import Corpus
    from testkit.fakes.embedder import HashEmbedder

    made: dict[tuple[str, ...], Path] = {}

    def copy_to(dest: Path, *names: str) -> Path:
        if names not in made:
            store = tmp_path_factory.mktemp("ingested") / "store"
            corpus = Corpus(Settings(data_dir=store, cache_enabled=False, _env_file=None),
                            embedder=HashEmbedder())
            try:
                for name in names:
                    data = gzip.decompress((FIXTURES / "figures" / f"{name}.gz").read_bytes())
                    corpus.ingest_bytes(data, name)
            finally:
                corpus.close()
            made[names] = store
        shutil.copytree(made[names], dest)
        return dest

    return copy_to
