"""Team mode: facts live in PostgreSQL beside the registry, seen by every process, gone with
their document (the real servers of tests/test_team_mode.py)."""

from __future__ import annotations

from tests.test_team_mode import SAMPLE, chroma, pg, team  # noqa: F401 (fixtures)


def test_team_mode_stores_facts_in_postgres(team, hash_embedder):  # noqa: F811
    from core.app.corpus import Corpus

    corpus = Corpus(team, embedder=hash_embedder)
    other = Corpus(team.model_copy(update={"data_dir": team.data_dir.parent / "elsewhere"}),
                   embedder=hash_embedder)
    try:
        report = corpus.ingest_path(SAMPLE)
        doc_id = report.meta.doc_id
        assert report.n_facts and not (team.data_dir / "registry.sqlite").exists()
        seen = other.store.facts([doc_id], concept="us-gaap:NetIncomeLoss", fiscal_years=[2024])
        assert {f.value for f in seen} == {457_300_000.0}
        assert other.store.facts_status() == {doc_id: report.n_facts}
        facts = other.store.facts([doc_id])
        other.store.write_facts(doc_id, facts[:10])
        assert len(corpus.store.facts([doc_id])) == 10
        corpus.delete(doc_id)
        assert other.store.facts() == [] and other.store.facts_status() == {}
    finally:
        corpus.close()
        other.close()


def test_a_team_database_of_an_older_release_says_its_facts_reader(team,  # noqa: F811
                                                                   hash_embedder):
    """The facts' ``reader`` column is added to a database created before it ('' for the
    facts already there, which `doctor` names as read by an older release); facts written
    afterwards carry this reader."""
    import psycopg

    from core.app.corpus import Corpus
    from core.app.doctor import examine
    from core.ingest.facts import reader_version

    corpus = Corpus(team, embedder=hash_embedder)
    try:
        doc_id = corpus.ingest_path(SAMPLE).meta.doc_id
        assert corpus.store.registry.facts_readers() == {doc_id: reader_version()}
    finally:
        corpus.close()
    with psycopg.connect(str(team.database_url), autocommit=True) as conn:
        conn.execute("ALTER TABLE fact_docs DROP COLUMN reader")  # as an older release made it
    corpus = Corpus(team, embedder=hash_embedder)
    try:
        assert corpus.store.registry.facts_readers() == {doc_id: ""}
        found = [f.problem for f in examine(team, lambda: corpus.store).findings
                 if f.what == "facts"]
        assert len(found) == 1 and "were read by an older release" in found[0], found
        corpus.store.write_facts(doc_id, corpus.store.facts([doc_id]))
        assert corpus.store.registry.facts_readers() == {doc_id: reader_version()}
    finally:
        corpus.close()
