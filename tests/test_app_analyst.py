"""Issue 11, item by item, through the entry file with AppTest (offline engine, temp corpus):
answer first with passages opened in place (and a PDF page rendered), the plan as step
cards, drafts kept with the run, background ingest, Compare verdicts, Runs search/tags/
share/cancel, settings kept, evidence panels in an analyst's words."""

from __future__ import annotations

import json
import os
import re
import threading
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from components import keys, services
from core.app import jobs
from core.foundation.errors import AppError
from tests.test_app import (  # noqa: F401 (app_env is a fixture, used by every test)
    APP,
    TIMEOUT,
    answers,
    app_env,
    ask_walkthrough,
    boot,
    finished_run,
    load_sample,
    ok,
    sub_questions,
    texts,
    thread_of,
)
from tests.test_cited_render import PAGES, make_pdf
from tests.waiting import CEILING_S, GATE_S

ACME = ("ACME Widgets Inc. Form 10-K Annual Report for fiscal year 2024\n\n"
        "Item 1A. Risk Factors\n\n"
        + "Supply of precision bearings depends on one supplier in Ohio. " * 30
        + "\n\nItem 7. Management's Discussion and Analysis\n\n"
        + "Revenue from widgets grew in 2024 on industrial demand. " * 30).encode()


pytestmark = pytest.mark.usefixtures("app_env")


def walk(node, out=None) -> list:
    """Elements and blocks in display order."""
    out = [] if out is None else out
    out.append(node)
    for child in getattr(node, "children", {}).values():
        walk(child, out)
    return out


def upload(at: AppTest, name: str, data: bytes, mime: str = "text/plain") -> AppTest:
    at.switch_page("app_pages/library.py").run()
    at.file_uploader[0].set_value((name, data, mime)).run()
    ok(at.button(key="lib_ingest").click().run())
    assert "1 of 1 succeeded" in texts(at), texts(at)
    return at


# --- 1. answer first, passages in place, the page as filed ------------------------------------


def test_answer_comes_first_with_hover_previews_and_the_trace_one_click_below():
    at = finished_run(boot())
    order = walk(at.main)
    answer = next(i for i, e in enumerate(order)
                  if type(e).__name__ == "Subheader" and e.value == "Answer")
    trace = next(i for i, e in enumerate(order)
                 if type(e).__name__ == "Expander" and e.label.startswith("Research trace"))
    assert answer < trace
    assert order[trace].proto.expanded is False  # collapsed, one click away
    cites = answers(at)[0]["cites"]
    first = cites["1"]
    assert first["source"].startswith("Northwind") and "page" in first["where"]
    assert len(first["quote"]) > 20  # hovering [1] previews the cited sentence
    assert not any(re.search(r"[0-9a-f]{16}-\d{5}", c["source"]) for c in cites.values())


def test_a_picked_citation_opens_beside_the_answer_with_its_sentence_highlighted():
    at = finished_run(boot())
    ok(at.pills[0].set_value(1).run())
    marked = [m.value for m in at.markdown if ":orange-background[" in m.value]
    assert marked, "the cited sentence is highlighted in its passage"
    assert "(highlighted above)" in texts(at)
    assert any(c.value.startswith("Item 1A") and "page" in c.value for c in at.caption)
    close = next(b for b in at.button if b.label == "✕")
    ok(close.click().run())
    assert at.pills[0].value is None


def test_a_pdf_citation_shows_the_page_as_filed_with_the_passage_marked():
    at = upload(boot(), "acme-10k.pdf", make_pdf(PAGES), "application/pdf")
    at.switch_page("app_pages/research.py").run()
    at.text_area(key=keys.RES_QUESTION).set_value(
        "What does Acme say about larger rivals such as Zenith Corp?")
    ok(at.button(key="FormSubmitter:res_ask_form-Ask").click().run())
    ok(at.button(key="res_approve").click().run())
    cited = [n for n, c in answers(at)[0]["cites"].items() if "page 3" in c["where"]]
    assert cited, answers(at)[0]["cites"]
    ok(at.pills[0].set_value(int(cited[0])).run())
    ok(at.segmented_control[0].set_value("In the filing").run())
    images = [e for e in walk(at.main) if type(e).__name__ == "Image"]
    assert images, "the PDF page is rendered"
    assert "PDF page 3 of 3 — the cited sentence is marked" in texts(at)
    large = next(b for b in at.button if b.label == "Open the page large")
    ok(large.click().run())
    dialogs = [e for e in walk(at._tree) if getattr(e, "type", "") == "dialog"
               or type(e).__name__ == "Dialog"]
    assert dialogs, "the page opens in a wide window"
    inside = [e for e in walk(dialogs[0]) if type(e).__name__ == "Image"]
    assert inside and dialogs[0].proto.dialog.is_open
    assert "LARGE" in str(dialogs[0].proto.dialog)  # the wide dialog, not the side column


# --- 2. the plan as step cards ------------------------------------------------------------


def test_each_step_is_a_card_with_filings_by_name_and_their_sections():
    at = upload(load_sample(boot()), "acme-10k.txt", ACME)
    ask_walkthrough(at)
    filings = next(m for m in at.multiselect if m.label == "Companies / filings")
    assert any(o.startswith("Northwind Semiconductor") for o in filings.options)
    acme = next(d.doc_id for d in services.corpus().documents() if d.file_name.startswith("acme"))
    ok(filings.set_value([acme]).run())
    page = texts(at)
    assert "Why: Edited by the analyst." in page  # the planner's reason no longer claimed
    assert any(":orange-badge[edited]" in m.value for m in at.markdown)
    section = next(s for s in at.selectbox if s.label == "Section")
    assert not any("Northwind" in o for o in section.options)


def test_add_remove_and_reorder_steps():
    at = ask_walkthrough(load_sample(boot()))
    before = sub_questions(at)
    ok(at.button(key=next(b.key for b in at.button if b.label == "Add a filing step")).click()
       .run())
    assert len(sub_questions(at)) == len(before) + 1 and sub_questions(at)[-1] == ""
    assert "None" not in sub_questions(at)
    assert "The sub-question is empty" in " ".join(e.value for e in at.error).replace("\\", "")
    assert at.button(key="res_approve").disabled
    removes = [b for b in at.button if b.label == "✕"]
    ok(removes[-1].click().run())
    assert sub_questions(at) == before
    ups = [b for b in at.button if b.label == "↑"]
    ok(ups[1].click().run())  # step 2 moves up
    assert sub_questions(at) == [before[1], before[0], *before[2:]]
    ok(at.button(key="res_approve").click().run())
    assert any("edited by the analyst" in m.value for m in at.markdown)
    labels = [s.label.replace("\\", "") for s in at.status]
    # independent steps run in parallel, so cards may finish in either order: find by number
    first = next(label for label in labels if label.startswith("Step 1 ·"))
    assert before[1] in first


# --- 3. drafts kept with the run; discarded is discarded ---------------------------------


def test_plan_edits_survive_a_refresh_and_a_discarded_plan_says_so():
    at = ask_walkthrough(load_sample(boot()))
    thread = thread_of(at)
    first = next(t for t in at.text_area if t.label == "Sub-question")
    ok(first.set_value("What does Northwind say about rivals' pricing?").run())

    fresh = AppTest.from_file(APP, default_timeout=TIMEOUT)  # the browser refreshed
    fresh.query_params["thread"] = thread
    ok(fresh.run())
    assert sub_questions(fresh)[0] == "What does Northwind say about rivals' pricing?"
    assert any("were restored" in i.value for i in fresh.info)

    ok(fresh.button(key="res_discard").click().run())
    again = AppTest.from_file(APP, default_timeout=TIMEOUT)
    again.query_params["thread"] = thread
    ok(again.run())
    assert "discarded" in texts(again) and "interrupted" not in texts(again)
    ok(again.switch_page("app_pages/runs.py").run())
    assert list(again.dataframe[0].value["status"]) == ["discarded"]


# --- 4. ingest in the background ------------------------------------------------------------


def test_other_pages_work_while_filings_are_ingested():
    from core.app import ingest_jobs
    from core.app.ingest_jobs import start_batch

    gate, embedding = threading.Event(), threading.Event()

    def slow(on_stage):  # a loader that gets to embedding 10 of 40 chunks, then waits
        on_stage("parsing")
        on_stage("embedding 40 chunks")
        ingest_jobs._report.get()(10, 40)
        embedding.set()
        gate.wait(GATE_S)
        raise AppError("stopped by the test")

    job = start_batch("ingest-bg", [("nvda-10k.htm", 2_000_000, slow)])
    assert embedding.wait(CEILING_S)
    job.progress.files[0].embed_started = time.perf_counter() - 2  # 10 chunks took 2 s
    try:
        at = boot()
        side = " ".join(i.value for i in at.sidebar.info).replace("\\", "")
        assert "Ingesting: File 1 of 1 · nvda-10k.htm: embedding 10 of 40 chunks" in side
        assert "left" in side  # an estimate
        assert "being ingested" in texts(at) and "corpus is empty" not in texts(at)
        ok(at.switch_page("app_pages/runs.py").run())  # another page, usable meanwhile
    finally:
        gate.set()
        jobs.wait(job, CEILING_S)
        jobs.forget("ingest-bg")


def test_ingest_progress_shows_files_chunks_and_time_left():
    def app():
        import time

        from components.ingest_view import render_progress
        from core.app.ingest_jobs import BatchProgress, FileProgress

        now = time.perf_counter()
        done = FileProgress("a.htm", size=1000, started=now - 20, finished=now - 10, ok=True,
                            stage="done")
        cur = FileProgress("b.htm", size=1000, stage="embedding 300 chunks", started=now - 10,
                           embed_started=now - 4, chunks_done=100, chunks_total=300)
        render_progress(BatchProgress([done, cur, FileProgress("c.htm", size=500)]))

    at = ok(AppTest.from_function(app, default_timeout=120).run())
    bar = at.get("progress")[0].proto
    assert "1 of 3 file(s) ingested · File 2 of 3 · b.htm: embedding 100 of 300 chunks · " \
           "about" in bar.text
    table = at.dataframe[0].value
    assert list(table["stage"]) == ["✓ done", "embedding 100 of 300 chunks", "waiting to start"]
    assert list(table["chunks embedded"]) == ["–", "100 of 300", "–"]


# --- 5. Compare tells the answers apart -----------------------------------------------------


def test_compare_times_only_the_answer_and_gives_verdicts_and_a_diff():
    at = finished_run(boot())
    for job in jobs.active("baseline"):  # the Library builds them right after its ingest
        assert jobs.wait(job)
    ok(at.button(key="res_compare").click().run())
    at.switch_page("app_pages/compare.py")
    assert "First-run setup" not in texts(at)  # issue 20: the first Compare has no setup
    assert "Sub-question by sub-question" in [s.value for s in at.subheader]
    assert re.search(r"The deep agent covers \d+ of \d+ sub-question", texts(at))
    verdicts = next(d.value for d in at.dataframe if "better" in d.value.columns)
    assert len(verdicts) >= 2 and set(verdicts["better"]) <= {"deep agent", "baseline", "both",
                                                                "neither"}
    assert verdicts["deep agent"].str.contains(r"✓ covered \[\d").any()
    assert "How the answers differ" in [s.value for s in at.subheader]
    order = [s.value for s in at.subheader]
    assert order[-1] == "Verdict"  # the comparison ends with its one-line verdict
    verdict = " ".join(a.value.replace("\\", "") for a in (*at.success, *at.warning, *at.info)
                       if a.value.replace("\\", "").startswith("Verdict:"))
    found = re.search(r"covers (\d+ of \d+(?: \(\d+ more partly\))?) sub-question\(s\) "
                      r"\((baseline|deep) (\d+ of \d+(?: \(\d+ more partly\))?)\)", verdict)
    assert found, verdict
    table = re.search(r"The deep agent covers (.+?) sub-question\(s\); the baseline covers "
                      r"(.+?)\.", texts(at).replace("\\", ""))
    deep_n, base_n = (found[1], found[3]) if found[2] == "baseline" else (found[3], found[1])
    assert table and table.groups() == (deep_n, base_n)  # one count, both places
    diff_text = " ".join(m.value for m in at.markdown).replace("\\", "")
    assert "Configure an LLM" not in diff_text and "Extractive brief" not in diff_text
    time_help = [m.proto.help for m in at.metric if m.label == "Time"]
    assert any("first-run setup" in h for h in time_help)
    ok(at.button(key="FormSubmitter:cmp_form-Compare").click().run())  # a second comparison
    assert "First-run setup" not in texts(at)


# --- 6. Runs: search, filters, tags, share, cancel ---------------------------------------------


def test_runs_are_found_tagged_and_shared():
    at = finished_run(boot())
    done_id = thread_of(at)
    at.button(key="res_new").click().run()
    at.text_area(key=keys.RES_QUESTION).set_value("What are Northwind's supply chain risks?")
    ok(at.button(key="FormSubmitter:res_ask_form-Ask").click().run())
    ok(at.switch_page("app_pages/runs.py").run())
    table = at.dataframe[0].value
    assert set(table["status"]) == {"done", "review"}
    assert table["answer"].str.len().max() > 20  # answer previews
    ok(at.text_input(key=keys.RUNS_SEARCH).set_value("supply chain").run())
    assert list(at.dataframe[0].value["status"]) == ["review"]
    ok(at.text_input(key=keys.RUNS_SEARCH).set_value("").run())
    ok(at.multiselect(key=keys.RUNS_STATUSES).set_value(["done"]).run())
    assert list(at.dataframe[0].value["id"]) == [done_id]
    tags = at.multiselect(key=f"runs_tags_{done_id}")
    ok(tags.set_value(["board memo"]).run())
    assert at.dataframe[0].value.loc[0, "tags"] == "board memo"
    assert at.query_params["run"] in (done_id, [done_id])
    link = [c.proto.code_text for c in at.get("code")]
    assert any(t.endswith(f"/runs?run={done_id}") for t in link)

    shared = AppTest.from_file(APP, default_timeout=TIMEOUT)  # someone opens the link
    shared.query_params["run"] = "x"
    ok(shared.run())
    shared.switch_page("app_pages/runs.py")
    shared.query_params["run"] = done_id
    ok(shared.run())
    assert shared.selectbox(key=keys.RUNS_OPEN).value == done_id


def test_back_on_the_runs_page_opens_the_run_the_address_names():
    """Back (the address naming an earlier run) opens that run, not the newest; the page
    writes the address only when the open run changes (one history entry per run)."""
    at = finished_run(boot())
    older = thread_of(at)
    at.button(key="res_new").click().run()
    at.text_area(key=keys.RES_QUESTION).set_value("What are Northwind's supply chain risks?")
    ok(at.button(key="FormSubmitter:res_ask_form-Ask").click().run())
    ok(at.switch_page("app_pages/runs.py").run())
    newer = at.selectbox(key=keys.RUNS_OPEN).value
    assert newer != older
    ok(at.selectbox(key=keys.RUNS_OPEN).set_value(older).run())
    assert at.query_params["run"] in (older, [older])
    ok(at.selectbox(key=keys.RUNS_OPEN).set_value(newer).run())
    at.query_params["run"] = older  # Back
    ok(at.run())
    assert at.selectbox(key=keys.RUNS_OPEN).value == older
    ok(at.run())  # a rerun keeps it
    assert at.selectbox(key=keys.RUNS_OPEN).value == older


def test_research_running_now_can_be_cancelled_from_the_runs_page():
    at = finished_run(boot())  # a run exists, so the list shows

    def work(job):
        while not job.cancel_requested:
            time.sleep(0.02)
        job.cancelled = True

    job = jobs.start("20990101-000000-cafecafe", "research", work)
    try:
        ok(at.switch_page("app_pages/runs.py").run())
        assert "Researching now" in texts(at)
        ok(at.button(key="runs_cancel_20990101-000000-cafecafe").click().run())
        assert jobs.wait(job, CEILING_S) and job.cancelled
    finally:
        job.cancel_event.set()
        jobs.wait(job, CEILING_S)
        jobs.forget(job.id)


# --- 7. settings kept in the data folder, keys never -------------------------------------------


def test_settings_are_kept_across_sessions_and_keys_are_not():
    at = boot("app_pages/settings.py")
    secret = "sk-test-SECRET-123456"
    at.text_input[0].set_value("http://127.0.0.1:9/v1")  # nothing listens on port 9
    at.text_input[1].set_value("my-model")
    at.text_input[2].set_value(secret)
    at.number_input[0].set_value(4)  # max steps
    at.number_input[2].set_value(3)  # top-k
    at.number_input[3].set_value(5)  # top-n > top-k
    at.button(key="FormSubmitter:settings_form-Save settings").click().run()
    assert any("Top-n must not exceed top-k" in e.value for e in at.error)
    assert at.session_state[keys.APP_OVERRIDES] == {}

    at.number_input[2].set_value(20)
    ok(at.button(key="FormSubmitter:settings_form-Save settings").click().run())
    stored = Path(os.environ["DTR_DATA_DIR"]) / "ui_settings.json"
    assert str(stored) in texts(at)  # says where they are kept
    saved = json.loads(stored.read_text())
    assert saved["max_steps"] == 4 and saved["llm_model"] == "my-model"
    assert secret not in stored.read_text()
    assert "my-model @ http://127.0.0.1:9/v1" in texts(at)
    ok(at.button(key="settings_test").click().run())
    assert "Could not connect" in " ".join(e.value for e in at.error).replace("\\", "")
    assert secret not in texts(at)

    later = boot("app_pages/settings.py")  # a refresh, or the server restarted
    assert later.number_input[0].value == 4 and later.text_input[1].value == "my-model"
    assert later.session_state[keys.APP_OVERRIDES].get("llm_api_key") is None
    ok(later.button(key="settings_reset").click().run())
    assert not stored.exists()


# --- 8. evidence panels in an analyst's words ---------------------------------------------


def test_evidence_panels_say_it_plainly():
    at = finished_run(boot())
    rank = next(m for m in at.sidebar.markdown if m.value.startswith("**Ranking**"))
    # Details on hover: the measured offline choice keeps the search's own order.
    assert "none" in rank.proto.help and "measured lower" in rank.proto.help
    for frame in (d.value for d in at.dataframe):
        assert not frame.isna().any().any() and "None" not in frame.astype(str).values
    contexts = [m.value for m in at.markdown if "Distilled context" in m.value]
    assert contexts
    body = "\n".join(m.value for m in at.markdown)
    assert not re.search(r"\[[0-9a-f]{16}\\?-\d{5}\]", body)  # no raw chunk ids in the text
    assert not re.search(r"https?\\?:/", body)  # no long URLs either
    assert sum("Approved plan" in m.value for m in at.markdown) == 1
    for chart in at.get("plotly_chart"):
        xs = json.loads(chart.proto.spec)["data"][0]["x"]
        assert max(xs) == 100 and min(xs) >= 10
    caption = " ".join(c.value for c in at.caption)
    assert "results kept in search order" in caption and "fallback:" not in caption


@pytest.mark.parametrize("status", ["done"])
def test_the_runs_page_opens_a_run_answer_first(status):
    at = finished_run(boot())
    ok(at.switch_page("app_pages/runs.py").run())
    order = walk(at.main)
    answer = next(i for i, e in enumerate(order)
                  if type(e).__name__ == "Subheader" and e.value == "Answer")
    trace = next(i for i, e in enumerate(order)
                 if type(e).__name__ == "Expander" and e.label.startswith("Research trace"))
    assert answer < trace and order[trace].proto.expanded is False
    assert answers(at)[0]["cites"]
