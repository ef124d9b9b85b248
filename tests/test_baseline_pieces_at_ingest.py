"""The baseline's fixed-size pieces are built right after a Library batch (issue 20), so
the first Compare afterwards has no setup phase; a Compare started while they are being
built waits for the filing in progress instead of embedding it a second time."""

from __future__ import annotations

import threading

from core.app import jobs
from core.app.compare_job import _setup
from core.app.corpus import Corpus
from core.app.ingest_jobs import ProgressEmbedder, start_baseline_pieces, start_batch
from core.baseline import index as baseline_index
from tests.waiting import CEILING_S, GATE_S, until

BODY = "".join(f"Risk {i}: competition from larger rivals may reduce our margins and share. " * 6
               + "\n\n" for i in range(40))


def _text(company: str) -> bytes:
    return (f"{company} Corp Form 10-K Annual Report\n\nItem 1A. Risk Factors\n\n{BODY}").encode()


class Counting:
    """Wraps an embedder; counts the texts it encodes and can hold each call at a gate."""

    def __init__(self, inner, gate: threading.Event | None = None):
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.encoded = 0
        self.gate = gate
        self.entered = threading.Event()

    def encode(self, texts):
        self.entered.set()
        if self.gate is not None:
            self.gate.wait(GATE_S)
        self.encoded += len(texts)
        return self.inner.encode(texts)


class FakeJob:
    """What ``compare_job._setup`` needs of a job: report, check."""

    def __init__(self):
        self.lines: list[str] = []

    def report(self, text, done=0.0, total=0.0, *, line=True):
        self.lines.append(text)

    def check(self):
        return None


def _wait(job: jobs.Job) -> None:
    assert jobs.wait(job, timeout_s=CEILING_S)
    assert job.error is None, job.error


def test_a_batch_builds_the_baseline_pieces_so_the_first_compare_has_no_setup(settings,
                                                                               hash_embedder):
    corpus = Corpus(settings, embedder=ProgressEmbedder(hash_embedder))
    items = [(f"{c.lower()}-10k.txt", 0,
              lambda on_stage, c=c: corpus.ingest_bytes(_text(c), f"{c.lower()}-10k.txt",
                                                        on_stage=on_stage))
             for c in ("ACME", "Zenith")]
    _wait(start_batch("ingest-bl", items, corpus=corpus))
    pieces = jobs.active("baseline") or [jobs.latest("baseline")]
    assert pieces[0] is not None and pieces[0].kind == "baseline"
    _wait(pieces[0])
    assert pieces[0].result == 2
    docs = corpus.documents()
    assert len(docs) == 2 and baseline_index.missing(settings, corpus.embedder, docs) == []
    job = FakeJob()
    assert _setup(job, settings, corpus.store, corpus.embedder, docs) == (0.0, 0)
    assert not any("First-run setup" in line for line in job.lines)
    jobs.forget("ingest-bl")
    corpus.close()


def test_without_the_corpus_a_batch_leaves_the_setup_to_compare(settings, hash_embedder):
    """Today's behaviour (the page does not pass its corpus): Compare builds them first."""
    corpus = Corpus(settings, embedder=hash_embedder)
    before = {j.id for j in jobs.active("baseline")}
    _wait(start_batch("ingest-nobl", [("acme-10k.txt", 0, lambda on_stage: corpus.ingest_bytes(
        _text("ACME"), "acme-10k.txt", on_stage=on_stage))]))
    assert {j.id for j in jobs.active("baseline")} == before
    docs = corpus.documents()
    job = FakeJob()
    seconds, n = _setup(job, settings, corpus.store, corpus.embedder, docs)
    assert n == 1 and any("First-run setup" in line for line in job.lines)
    jobs.forget("ingest-nobl")
    corpus.close()


def test_a_compare_during_the_background_build_waits_instead_of_embedding_twice(
        settings, hash_embedder):
    corpus = Corpus(settings, embedder=hash_embedder)
    doc = corpus.ingest_bytes(_text("ACME"), "acme-10k.txt").meta
    gate = threading.Event()
    slow = Counting(hash_embedder, gate)
    background = start_baseline_pieces(corpus.store, slow, settings, [doc.doc_id],
                                       job_id="baseline-test")
    assert slow.entered.wait(CEILING_S)  # the background build is embedding the filing now
    result: list = []
    compare = threading.Thread(target=lambda: result.append(
        baseline_index.build_doc(corpus.store, slow, doc, settings)))
    compare.start()
    compare.join(0.5)
    assert compare.is_alive()  # waits for the builder rather than embedding it too
    gate.set()
    compare.join(CEILING_S)
    _wait(background)
    n_pieces = len(result[0][0])
    assert n_pieces > 1 and slow.encoded == n_pieces  # every piece embedded once, not twice
    assert baseline_index.missing(settings, slow, [doc]) == []
    jobs.forget("baseline-test")
    corpus.close()


def test_deleting_a_filing_during_its_background_build_leaves_no_pieces(settings,
                                                                         hash_embedder):
    corpus = Corpus(settings, embedder=hash_embedder)
    doc = corpus.ingest_bytes(_text("ACME"), "acme-10k.txt").meta
    gate = threading.Event()
    slow = Counting(hash_embedder, gate)
    background = start_baseline_pieces(corpus.store, slow, settings, [doc.doc_id],
                                       job_id="baseline-del")
    assert slow.entered.wait(CEILING_S)
    deleting = threading.Thread(target=lambda: (corpus.store.delete(doc.doc_id),
                                                baseline_index.forget(settings, slow,
                                                                      doc.doc_id)))
    deleting.start()
    gate.set()
    deleting.join(CEILING_S)
    _wait(background)
    assert not list((settings.data_dir / "baseline").rglob("*.npy"))
    assert not list((settings.data_dir / "baseline").rglob("*.json"))
    # a build that starts after the delete writes nothing either
    assert baseline_index.build_doc(corpus.store, slow, doc, settings)[0] == []
    assert not list((settings.data_dir / "baseline").rglob("*.json"))
    jobs.forget("baseline-del")
    corpus.close()


def test_a_filing_gets_its_pieces_while_the_batch_ingests_the_next_ones(settings,
                                                                         hash_embedder):
    """Fed filing by filing: when the batch ends, no more than its last filing is left."""
    corpus = Corpus(settings, embedder=ProgressEmbedder(hash_embedder))
    first_has_pieces = threading.Event()

    def first_built() -> bool:
        docs = [d for d in corpus.documents() if d.file_name == "acme-10k.txt"]
        return bool(docs) and baseline_index.missing(settings, corpus.embedder, docs) == []

    def load(name: str, company: str, wait: bool):
        def run(on_stage):
            if wait and until(first_built, poll_s=0.05):  # the next filing is still being
                first_has_pieces.set()  # read until the first one has its pieces
            return corpus.ingest_bytes(_text(company), name, on_stage=on_stage)
        return run

    items = [("acme-10k.txt", 0, load("acme-10k.txt", "ACME", False)),
             ("zenith-10k.txt", 0, load("zenith-10k.txt", "Zenith", True)),
             ("orion-10k.txt", 0, load("orion-10k.txt", "Orion", False))]
    _wait(start_batch("ingest-fed", items, corpus=corpus))
    assert first_has_pieces.is_set()  # built during the batch, not after it
    pieces = jobs.active("baseline") or [jobs.latest("baseline")]
    _wait(pieces[0])
    assert pieces[0].result == 3  # one job for the batch, every filing once
    assert baseline_index.missing(settings, corpus.embedder, corpus.documents()) == []
    jobs.forget("ingest-fed")
    corpus.close()


def test_the_first_compare_builds_pieces_only_for_the_filings_its_baseline_searches(
        settings, hash_embedder):
    from core.app import compare_job

    corpus = Corpus(settings, embedder=hash_embedder)
    for company in ("ACME", "Zenith"):
        corpus.ingest_bytes(_text(company), f"{company.lower()}-10k.txt")
    docs = corpus.documents()
    by_name = {d.file_name: d for d in docs}
    job = compare_job.start("What does Zenith say about competition?", settings=settings,
                            store=corpus.store, embedder=corpus.embedder, documents=docs,
                            deep_id="an-earlier-deep-run")
    _wait(job)
    assert job.result.setup_docs == 1  # Zenith's filing, not the whole corpus
    assert baseline_index.missing(settings, corpus.embedder, [by_name["zenith-10k.txt"]]) == []
    assert baseline_index.missing(settings, corpus.embedder, [by_name["acme-10k.txt"]]) != []
    jobs.forget(job.id)
    corpus.close()
