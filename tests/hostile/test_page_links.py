"""The web pages' query parameters as a link, a bookmark or a hand-edited URL brings them
(issue 32): unknown, malformed, huge or injected values of ``?compare=``, ``?baseline=`` /
``?deep=``, ``?eval=``, ``?chunk=``, ``?corpus=``, ``?run=`` and ``?thread=``, through the
entry file with AppTest over a real corpus (the sample 10-K, a deep and a baseline run, an
evaluation). Each is said in a message that names it, escaped, never an exception, never
markup, never silently replaced: main answered any unknown ``?compare=`` with "That
comparison was stopped by a server restart" and showed another evaluation for an unknown
``?eval=`` without a word."""

from __future__ import annotations

import shutil

import pytest
from streamlit.testing.v1 import AppTest

from components import eval_charts as ec
from components import keys
from core.foundation.config import Settings
from tests.hostile.kit import SAMPLE
from tests.test_app import APP, TIMEOUT, app_env, ok, texts  # noqa: F401  (fixture)

HOSTILE = {"unknown": "20990101-000000-deadbeef", "traversal": "../../../etc/passwd",
           "script": "<script>alert(1)</script>", "huge": "x" * 20_000,
           "sql": "' OR 1=1 --", "nul": "%00\x00", "replacement": "caf\ufffd-run"}
QUESTION = "What drove Northwind's revenue in fiscal 2024?"


@pytest.fixture(scope="module")
def seed(tmp_path_factory):
    """A data folder made once: the sample 10-K, a deep run, a baseline run and an
    evaluation ``seed-eval`` (a manifest: it did not finish)."""
    from core.app.corpus import Corpus
    from core.app.research import ResearchService
    from core.app.runs import save_run
    from core.baseline.rag import run_baseline
    from core.evaluation.results import EvalManifest
    from core.evaluation.storage import eval_dir, write_model
    from testkit.fakes.embedder import HashEmbedder

    store = tmp_path_factory.mktemp("links") / "store"
    settings = Settings(data_dir=store, cache_enabled=False, _env_file=None)
    corpus = Corpus(settings, embedder=HashEmbedder())
    corpus.ingest_path(SAMPLE)
    deep = ResearchService.from_corpus(settings, corpus).ask(QUESTION)
    base = run_baseline(QUESTION, settings=settings, store=corpus.store,
                        embedder=corpus.embedder)
    save_run(base, settings)
    chunk = corpus.store.chunks(corpus.documents()[0].doc_id)[3]
    write_model(eval_dir(settings, "seed-eval") / "manifest.json", EvalManifest(
        id="seed-eval", set_name="sample", set_sha="x", created="2026-01-01T00:00:00",
        systems=["baseline"], strategies=[], judge="offline", backend="offline engine",
        embedder="hash", n_questions=0, status="done"))
    corpus.close()
    return store, {"deep": deep.id, "baseline": base.id, "chunk": chunk.chunk_id,
                   "section": chunk.section, "doc": chunk.doc_id}


@pytest.fixture
def ids(seed, app_env):  # noqa: F811
    """The seeded data folder, copied into this test's own folder."""
    store, found = seed
    shutil.copytree(store, app_env / "store")
    return found


def _open(page: str, **params: str) -> AppTest:
    at = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    at.switch_page(page)
    for name, value in params.items():
        at.query_params[name] = value
    return ok(at.run())


def _warned(at: AppTest) -> str:
    return " ".join(str(w.value) for w in at.warning).replace("\\", "")


def _no_markup(at: AppTest) -> None:
    raw = [e.value for kind in (at.markdown, at.caption, at.info, at.warning, at.error)
           for e in kind]
    assert not any("<script>" in str(v) for v in raw)  # escaped: shown as text


def _shown(value: str) -> str:
    """How a message names ``value``: the first 60 characters, as ``preview`` cuts it."""
    return value if len(value) <= 60 else value[:59] + "…"


@pytest.mark.parametrize("value", list(HOSTILE.values()), ids=list(HOSTILE))
def test_a_comparison_link_naming_no_comparison_says_so(ids, value):
    at = _open("app_pages/compare.py", compare=value)
    said = _warned(at)
    assert said.startswith(f"There is no comparison {_shown(value)}") and \
        "the link may be wrong" in said, said
    assert "compare" not in at.query_params
    _no_markup(at)


@pytest.mark.parametrize("slot", ["baseline", "deep"])
@pytest.mark.parametrize("value", ["unknown", "traversal", "script", "huge"])
def test_a_pair_link_with_a_bad_run_is_an_error_naming_it(ids, slot, value):
    pair = {"baseline": ids["baseline"], "deep": ids["deep"], slot: HOSTILE[value]}
    at = _open("app_pages/compare.py", **pair)
    errors = " ".join(e.value for e in at.error).replace("\\", "")
    if value == "unknown":
        assert f"No saved run '{HOSTILE[value]}'" in errors
    else:
        assert "Invalid run id" in errors and "use the id shown by the run list" in errors
    assert "Side by side" not in [s.value for s in at.subheader]
    _no_markup(at)


def test_a_pair_link_naming_the_two_saved_runs_shows_them(ids):
    at = _open("app_pages/compare.py", baseline=ids["baseline"], deep=ids["deep"])
    assert {"Baseline RAG", "Deep agent"} <= {s.value for s in at.subheader}
    assert not at.error


@pytest.mark.parametrize("value", list(HOSTILE.values()), ids=list(HOSTILE))
def test_an_evaluation_link_naming_no_evaluation_says_so_before_the_latest(ids, value):
    at = _open("app_pages/evaluate.py", eval=value)
    said = _warned(at)
    assert f"There is no evaluation {_shown(value)} in this corpus" in said, said
    assert "the latest one is shown instead" in said
    assert at.selectbox(key=ec.EVAL_SHOWN).value == "seed-eval"
    assert "eval" not in at.query_params  # said once: the URL no longer names it
    _no_markup(at)


def test_an_evaluation_link_with_no_evaluation_at_all_says_so(app_env):  # noqa: F811
    at = _open("app_pages/evaluate.py", eval="nightly-2099")
    assert "There is no evaluation nightly-2099 in this corpus" in _warned(at)
    assert "No evaluation yet" in texts(at)


def test_an_evaluation_link_naming_a_saved_one_opens_it_without_a_warning(ids):
    at = _open("app_pages/evaluate.py", eval="seed-eval")
    assert "There is no evaluation" not in _warned(at)
    assert at.selectbox(key=ec.EVAL_SHOWN).value == "seed-eval"


@pytest.mark.parametrize("value", list(HOSTILE.values()), ids=list(HOSTILE))
def test_a_chunk_link_naming_no_chunk_says_so(ids, value):
    at = _open("app_pages/library.py", chunk=value)
    assert "The cited chunk is no longer in the corpus" in _warned(at)
    assert at.session_state[keys.LIB_FOCUS_CHUNK] is None if keys.LIB_FOCUS_CHUNK in \
        at.session_state else True
    _no_markup(at)


def test_a_chunk_link_naming_a_chunk_opens_its_section(ids):
    at = _open("app_pages/library.py", chunk=ids["chunk"])
    assert "The cited chunk is no longer in the corpus" not in _warned(at)
    assert at.selectbox(key=keys.LIB_BROWSE_SECTION).value == ids["section"]
    assert at.session_state[keys.LIB_FOCUS_CHUNK] == ids["chunk"]


@pytest.mark.parametrize("value", ["Sample", "../sample", "sample\x00", *HOSTILE.values()])
def test_an_unknown_corpus_in_a_link_opens_the_analysts_own_corpus(ids, value):
    at = _open("app_pages/library.py", corpus=value)
    assert "You are reading the **sample corpus**" not in texts(at)
    assert at.selectbox(key=keys.LIB_BROWSE_DOC).value == ids["doc"]  # the analyst's filing
    _no_markup(at)


def test_the_sample_corpus_link_opens_the_sample_corpus_read_only(ids):
    at = _open("app_pages/library.py", corpus="sample")
    assert "You are reading the **sample corpus**" in texts(at)
    assert not [s for s in at.selectbox if s.key == keys.LIB_BROWSE_DOC]  # it is empty


@pytest.mark.parametrize("value", ["script", "huge", "sql", "nul"])
def test_a_run_link_naming_no_run_says_so_before_the_latest(ids, value):
    at = _open("app_pages/runs.py", run=HOSTILE[value])
    assert f"There is no run {_shown(HOSTILE[value])}" in _warned(at)
    assert at.selectbox(key=keys.RUNS_OPEN).value in (ids["deep"], ids["baseline"])
    _no_markup(at)


@pytest.mark.parametrize("value", ["sql", "nul", "huge"])
def test_a_thread_link_that_is_no_run_id_says_so(ids, value):
    at = _open("app_pages/research.py", thread=HOSTILE[value])
    assert "is not a run id" in texts(at)
    _no_markup(at)


def test_a_thread_link_naming_a_baseline_run_shows_that_run(ids):
    at = _open("app_pages/research.py", thread=ids["baseline"])
    page = texts(at)
    assert f"**Question:** {QUESTION}" in page and "baseline: one retrieval" in page
    assert "is not a run id" not in page


@pytest.mark.parametrize("page", ["research", "compare", "runs", "evaluate", "library",
                                  "settings"])
def test_parameters_no_page_reads_are_ignored(ids, page):
    at = _open(f"app_pages/{page}.py", **{"__proto__": "x", "utm_source": "<b>mail</b>",
                                          "constructor": "x" * 5000})
    assert [t.value for t in at.title] == [page.capitalize()]
    assert not at.error
    _no_markup(at)
