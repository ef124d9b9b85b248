"""Team mode: PostgreSQL stopped (``pg_ctl -m immediate``) in the middle of an ingest
(issue 38, item 3). The ingest went quiet for 600 s (again 180 s): after embedding it asked
the pool for a connection to take the writers' lock and was willing to wait ten minutes for
one the stopped server could never give. Now it waits as long as any other database call
(the pool's own timeout) and ends in one line naming the server, and once PostgreSQL is
back the corpus is as it was: the filing not half there, ingesting it again works."""

from __future__ import annotations

import threading

import pytest

from core.app.corpus import Corpus
from core.foundation.errors import StoreError
from tests.test_team_mode import SAMPLE, chroma, pg, team  # noqa: F401 - fixtures
from tests.waiting import CEILING_S


@pytest.mark.parametrize("stage", ["embedding", "indexing"])
def test_postgres_stopped_mid_ingest_ends_in_one_line_within_the_pool_timeout(
        team, pg, hash_embedder, stage):  # noqa: F811 - fixtures
    corpus = Corpus(team, embedder=hash_embedder)
    stopped, outcome = [], {}

    def lose_postgres(label: str) -> None:
        if label.startswith(stage) and not stopped:
            stopped.append(label)
            pg.stop("immediate")

    def ingest() -> None:
        try:
            outcome["report"] = corpus.ingest_path(SAMPLE, on_stage=lose_postgres)
        except Exception as exc:  # noqa: BLE001 - the test reads it
            outcome["error"] = exc

    worker = threading.Thread(target=ingest, daemon=True)
    try:
        worker.start()
        worker.join(CEILING_S)  # a hang: it waited 600 s for a connection
        assert not worker.is_alive(), "the ingest still waits for the stopped database"
    finally:
        if stopped:
            pg.start()
    assert stopped, "the ingest never reached the stage"
    error = outcome.get("error")
    assert isinstance(error, StoreError), outcome
    assert str(error).startswith(f"Lost the team database at 127.0.0.1:{pg.port}/")
    assert "\n" not in str(error) and "dtr@" not in str(error)

    assert corpus.store.documents() == []  # PostgreSQL is back: nothing half stored
    report = corpus.ingest_path(SAMPLE)
    assert report.added and report.meta.n_chunks > 0
    corpus.close()
