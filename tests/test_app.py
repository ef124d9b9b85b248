"""Every page through the entry file with Streamlit's AppTest (offline engine, temp corpus).

The embedder is the fast deterministic HashEmbedder here (the real bundled model
runs in the browser test and in ``test_app_real_models``); everything else is
real: ingest, Chroma, BM25, the fallback reranker, the agent graph with its
SQLite checkpointer, the web snapshot, run records. ``test_app_analyst.py`` checks
issue 11's items one by one.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from components import keys
from components.cite_text import blocks_text

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "streamlit_app.py")
TIMEOUT = 300  # s: a ceiling on one script run of the app (quiet: a few seconds)


@pytest.fixture
def app_env(tmp_path, monkeypatch):
    """A fresh data folder, no .env, no LLM key, cached services cleared, hash embedder."""
    from testkit.fakes.embedder import HashEmbedder

    monkeypatch.setenv("DTR_DATA_DIR", str(tmp_path / "store"))
    monkeypatch.chdir(tmp_path)  # no stray .env is read
    embedder = HashEmbedder()
    monkeypatch.setattr("core.foundation.models.get_embedder", lambda settings: embedder)
    st.cache_resource.clear()
    st.cache_data.clear()
    yield tmp_path
    st.cache_resource.clear()
    st.cache_data.clear()


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def boot(page: str | None = None) -> AppTest:
    at = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    if page:
        ok(at.switch_page(page).run())
    return at


def texts(at: AppTest) -> str:
    """Everything readable on the page (markdown, captions, alerts, titles)."""
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [e.value for kind in (at.error, at.warning, at.info, at.success) for e in kind]
    parts += [t.value for t in at.title] + [s.value for s in at.subheader]
    parts += [m.value for m in at.sidebar.markdown] + [c.value for c in at.sidebar.caption]
    return "\n".join(str(p) for p in parts).replace("\\", "")


def answers(at: AppTest) -> list[dict]:
    """The cited answers on screen (their data as the citation component receives it)."""
    data = (json.loads(e.proto.json) for e in at.get("bidi_component"))
    return [d for d in data if "blocks" in d]  # not the sidebar's activity clock


def answer_text(at: AppTest) -> str:
    return "\n".join(blocks_text(a["blocks"]) for a in answers(at))


def thread_of(at: AppTest) -> str:
    thread = at.query_params["thread"]
    return thread[0] if isinstance(thread, list) else thread


def load_sample(at: AppTest) -> AppTest:
    at.switch_page("app_pages/library.py").run()
    return ok(at.button(key="lib_load_sample").click().run())


def ask_walkthrough(at: AppTest) -> AppTest:
    at.switch_page("app_pages/research.py").run()
    at.button(key="res_example").click().run()
    assert "Northwind Semiconductor" in at.text_area(key=keys.RES_QUESTION).value
    return ok(at.button(key="FormSubmitter:res_ask_form-Ask").click().run())


def sub_questions(at: AppTest) -> list[str]:
    """The sub-questions of the plan under review, in order (one text area per step)."""
    return [t.value for t in at.text_area if t.label == "Sub-question"]


def finished_run(at: AppTest) -> AppTest:
    ask_walkthrough(load_sample(at))
    return ok(at.button(key="res_approve").click().run())


# --- entry, sidebar, empty states ------------------------------------------------------


def test_first_start_without_key_or_network_shows_what_is_active(app_env):
    at = boot()
    side = texts(at)
    assert "built-in rules, no AI model (offline)" in side
    assert "Ranking" in side and "results kept in search order" in side  # measured best offline
    assert "saved demo articles" in side  # the bundled data/web_snapshot
    assert "fallback:" not in side and "BM25" not in side  # jargon only on hover
    metrics = {m.label: m.value for m in at.sidebar.metric}
    assert metrics == {"Documents": "0", "Chunks": "0"}
    assert str(app_env / "store") in side
    assert at.title[0].value == "Research"
    assert "corpus is empty" in texts(at)


@pytest.mark.parametrize(
    ("page", "title", "hint"),
    [
        ("app_pages/library.py", "Library", "Your corpus is empty"),
        ("app_pages/compare.py", "Compare", "corpus is empty"),
        ("app_pages/runs.py", "Runs", "No runs yet"),
        ("app_pages/settings.py", "Settings", "never written"),
    ],
)
def test_every_page_renders_with_an_empty_corpus(app_env, page, title, hint):
    at = boot(page)
    assert at.title[0].value == title
    assert hint in texts(at)
    assert at.sidebar.metric, "the shared sidebar is drawn on every page"


# --- library -----------------------------------------------------------------------------


def documents_table(at: AppTest):
    """The Library's documents table (the page also shows the ingest summary and the web
    snapshot)."""
    return next(d.value for d in at.dataframe if "doc id" in d.value.columns)


def test_load_sample_then_browse_sections_and_delete(app_env):
    at = load_sample(boot())
    page = texts(at)
    assert "1 of 1 succeeded" in page
    docs = documents_table(at)
    assert docs.loc[0, "company"].startswith("Northwind")
    assert (docs.loc[0, "CIK"], docs.loc[0, "ticker"]) == ("0009990001", "NWSC")  # its dei facts
    assert list(docs.columns[:3]) == ["company", "CIK", "ticker"]
    assert docs.loc[0, "form"] == "10-K"
    assert docs.loc[0, "chunks"] > 10 and docs.loc[0, "tables"] > 0
    assert {m.label: m.value for m in at.sidebar.metric}["Documents"] == "1"
    section_box = at.selectbox(key=keys.LIB_BROWSE_SECTION)
    risk = next(o for o in section_box.options if o.startswith("Item 1A"))
    section_box.select(risk).run()
    assert f"chunks in {risk}" in texts(at)
    assert "competit" in texts(at).lower()

    at.button(key="lib_delete").click().run()
    ok(at.button(key="lib_delete_yes").click().run())
    assert "Your corpus is empty" in texts(at)
    assert {m.label: m.value for m in at.sidebar.metric}["Documents"] == "0"


def test_bad_upload_is_explained_while_the_good_file_goes_in(app_env):
    at = boot("app_pages/library.py")
    good = (b"ACME Corp Annual Report\n\nItem 1A. Risk Factors\n\n"
            + b"Competition from larger rivals could reduce our margins. " * 40)
    at.file_uploader[0].set_value([
        ("renamed.htm", bytes(range(256)) * 40, "text/html"),
        ("empty.txt", b"", "text/plain"),
        ("acme-notes.txt", good, "text/plain"),
    ]).run()
    ok(at.button(key="lib_ingest").click().run())
    assert "1 of 3 succeeded" in texts(at)
    errors = [e.value.replace("\\", "") for e in at.error]
    assert any("renamed.htm" in e and "not a supported type" in e for e in errors), errors
    assert any("empty.txt" in e and "empty" in e.lower() for e in errors), errors
    docs = documents_table(at)
    assert list(docs["file"]) == ["acme-notes.txt"]


def test_long_sections_are_browsed_page_by_page(app_env):
    at = boot("app_pages/library.py")
    body = "".join(f"Risk {i}: competition from rivals may reduce our margins and share. " * 12
                   + "\n\n" for i in range(40))
    text = ("ACME Corp Form 10-K Annual Report\n\nItem 1A. Risk Factors\n\n" + body).encode()
    at.file_uploader[0].set_value(("acme-10k.txt", text, "text/plain")).run()
    at.button(key="lib_ingest").click().run()
    assert "1 of 1 succeeded" in texts(at)
    box = at.selectbox(key=keys.LIB_BROWSE_SECTION)
    section = max(box.options, key=lambda o: o.startswith("Item 1A"))
    box.select(section).run()
    pager = at.number_input[0]
    assert pager.proto.max >= 2 and pager.value == 1
    listed = [e.label for e in at.expander if e.label.startswith("\\#")]
    assert len(listed) == 15  # collapsed: the first words, the text on click
    assert all(not e.proto.expanded for e in at.expander if e.label.startswith("\\#"))
    assert all(len(label) < 160 for label in listed)
    pager.set_value(2).run()
    assert [e.label for e in at.expander if e.label.startswith("\\#")] != listed


def test_a_chunk_link_opens_the_library_at_that_chunk(app_env):
    at = boot("app_pages/library.py")
    body = "".join(f"Risk {i}: competition from rivals may reduce our margins and share. " * 12
                   + "\n\n" for i in range(40))
    text = ("ACME Corp Form 10-K Annual Report\n\nItem 1A. Risk Factors\n\n" + body).encode()
    at.file_uploader[0].set_value(("acme-10k.txt", text, "text/plain")).run()
    at.button(key="lib_ingest").click().run()
    box = at.selectbox(key=keys.LIB_BROWSE_SECTION)
    section = max(box.options, key=lambda o: o.startswith("Item 1A"))
    box.select(section).run()
    pages = at.number_input[0].proto.max
    at.number_input[0].set_value(pages).run()
    last = [e.label for e in at.expander if e.label.startswith("\\#")][-1]
    index = int(last[2:].split(" ", 1)[0])  # "\#37 — Risk …"
    doc_id = documents_table(at).loc[0, "doc id"]
    target = f"{doc_id}-{index:05d}"  # the chunk id (core.ingest.chunking)
    at.switch_page("app_pages/research.py").run()
    at.query_params["chunk"] = target
    ok(at.switch_page("app_pages/library.py").run())
    assert at.selectbox(key=keys.LIB_BROWSE_SECTION).value == section
    assert at.number_input[0].value == pages  # the page holding the chunk
    assert "cited chunk" in texts(at)
    assert any(target in c.value for c in at.caption)  # shown open, not collapsed


# --- research -----------------------------------------------------------------------------


def test_review_approve_answer_with_the_offline_engine(app_env):
    at = ask_walkthrough(load_sample(boot()))
    assert thread_of(at), "the paused run's thread id is in the URL"
    assert "Review the plan" in texts(at)
    steps = sub_questions(at)
    assert len(steps) >= 2
    tools = [s.value for s in at.selectbox if s.label == "Tool"]
    assert set(tools) == {"filing_search", "web_search"}
    assert not at.button(key="res_approve").disabled

    ok(at.button(key="res_approve").click().run())
    labels = [s.label for s in at.status]
    assert len(labels) >= len(steps)
    assert all(lbl.startswith("Step") for lbl in labels)
    assert all(any(d in lbl for d in ("CONTINUE", "REVISE", "FINISH")) for lbl in labels)
    page = texts(at)
    assert "Policy:" in page and "Rewritten query" in page and "Supervisor" in page
    assert "Distilled context" in page and "Reflection:" in page
    assert len(at.get("plotly_chart")) >= len(steps)
    assert "LLM calls" in [m.label for m in at.metric]
    assert "[1]" in answer_text(at) and "Offline engine" in answer_text(at)
    assert [b.label for b in at.get("download_button")] == ["Export Markdown", "Export JSON",
                                                            "Export HTML"]
    pills = at.pills[0]
    ok(pills.set_value(1).run())
    assert "Northwind" in texts(at)
    assert "The answer says:" in texts(at)


def test_invalid_plan_edits_are_explained_and_block_approval(app_env):
    at = ask_walkthrough(load_sample(boot()))
    first = next(t for t in at.text_area if t.label == "Sub-question")
    ok(first.set_value("   ").run())
    errors = " ".join(e.value for e in at.error).replace("\\", "")
    assert "sub-question is empty" in errors
    assert at.button(key="res_approve").disabled


def test_unknown_thread_in_url_is_explained(app_env):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["thread"] = "20990101-000000-deadbeef"
    ok(at.run())
    assert "No run 20990101-000000-deadbeef" in texts(at)


def test_plans_waiting_for_review_are_listed_on_the_research_page(app_env):
    at = ask_walkthrough(load_sample(boot()))
    ok(at.button(key="res_new").click().run())
    assert "Plans waiting for your review" in texts(at)
    waiting = [b for b in at.button if (b.key or "").startswith("res_open_")
               and "Based on Northwind" in b.label.replace("\\", "")]
    assert waiting
    ok(waiting[0].click().run())  # opens the plan, the address naming its run
    assert at.query_params["thread"] in (waiting[0].key[len("res_open_"):],
                                         [waiting[0].key[len("res_open_"):]])
    assert "Review the plan" in [s.value for s in at.subheader]


def test_markup_in_a_question_is_shown_as_text_on_every_page(app_env):
    evil = "What are the risks? ![x](http://evil.test/p.png) <img src=x> [go](http://evil.test)"
    at = load_sample(boot())
    at.switch_page("app_pages/research.py").run()
    at.text_area(key=keys.RES_QUESTION).set_value(evil)
    at.button(key="FormSubmitter:res_ask_form-Ask").click().run()
    ok(at.button(key="res_approve").click().run())
    for page in ("app_pages/research.py", "app_pages/runs.py"):
        at.switch_page(page).run()
        shown = [m.value for m in at.markdown] + [s.value for s in at.subheader]
        shown += [s.label for s in at.status]
        assert any("evil" in v for v in shown), page
        for value in shown:  # only backslash-escaped (inert) forms may remain
            assert not re.search(r"(?<!\\)\]\(http", value), (page, value)
            assert not re.search(r"(?<!\\)<img", value), (page, value)
        for md in at.markdown:
            assert not md.proto.allow_html


def test_a_citation_opens_its_section_in_the_library(app_env):
    at = finished_run(boot())
    at.pills[0].set_value(1).run()
    view = next(s for s in at.get("button_group") if "In the filing" in str(s.proto))
    assert view is not None
    at.segmented_control[0].set_value("In the filing").run()
    lib_button = next(b for b in at.button if b.label == "Open the whole section in the Library")
    ok(lib_button.click().run())
    assert at.title[0].value == "Library"
    section = at.selectbox(key=keys.LIB_BROWSE_SECTION).value
    assert section and section.startswith("Item")
    assert "cited chunk" in texts(at)


# --- runs and compare -----------------------------------------------------------------------


def test_runs_page_replays_exports_and_deletes(app_env):
    at = finished_run(boot())
    live_labels = [s.label for s in at.status]
    ok(at.switch_page("app_pages/runs.py").run())
    table = at.dataframe[0].value
    assert list(table["status"]) == ["done"]
    assert table.loc[0, "backend"] == "offline engine"
    assert "Northwind" in table.loc[0, "companies"]
    assert [s.label for s in at.status] == live_labels  # replayed exactly as it streamed
    assert [b.label for b in at.get("download_button")] == ["Export Markdown", "Export JSON",
                                                            "Export HTML"]
    at.button(key="runs_delete").click().run()
    ok(at.button(key="runs_delete_yes").click().run())
    assert "No runs yet" in texts(at)


def test_compare_from_a_finished_run_shows_both_sides(app_env):
    at = finished_run(boot())
    ok(at.button(key="res_compare").click().run())
    assert at.title[0].value == "Compare"
    at.switch_page("app_pages/compare.py")  # AppTest's next runs stay on the page it was given
    subheaders = [s.value for s in at.subheader]
    assert "Baseline RAG" in subheaders and "Deep agent" in subheaders
    labels = [m.label for m in at.metric]
    assert labels.count("LLM calls") >= 2 and labels.count("Tokens") >= 2
    assert len(at.pills) == 2  # each answer's citations can be opened
    ok(at.pills[0].set_value(1).run())
    assert "The answer says:" in texts(at)
