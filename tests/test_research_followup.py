"""Follow-up questions on the Research screen (AppTest through the entry file, real NVIDIA
and AMD 10-Ks ingested, hash embedder: figures never use vectors): under a finished answer
the follow-up box starts a run whose question is made standalone, whose record keeps the run
it follows, drawn as a thread (earlier questions linked, what was carried said); the
conversation read back from the records (core.app.conversation)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from components import keys
from core.agent.state import Answer
from core.app.conversation import carried_line, earlier, first_line
from core.app.runs import RunRecord, load_run, save_run
from core.foundation.config import Settings
from tests.test_app import APP, TIMEOUT, app_env, ok, texts  # noqa: F401 (app_env: fixture)

FILINGS = ("nvda-10k-fy2023.html", "amd-10k-fy2025.htm")
NAMES = {"NVIDIA": "NVIDIA CORP", "AMD": "ADVANCED MICRO DEVICES, INC."}
MEASURES = ["revenue", "net income", "operating income"]


@pytest.fixture
def loaded(app_env, ingested_store):  # noqa: F811
    ingested_store(app_env / "store", *FILINGS)
    return app_env


def _thread(at: AppTest) -> str:
    thread = at.query_params["thread"]
    return thread[0] if isinstance(thread, list) else thread


def _ask(at: AppTest, question: str) -> AppTest:
    at.switch_page("app_pages/research.py").run()
    at.text_area(key=keys.RES_QUESTION).set_value(question)
    return ok(at.button(key="FormSubmitter:res_ask_form-Ask").click().run())


def _follow(at: AppTest, words: str) -> AppTest:
    at.text_input(key="res_follow_text").input(words)
    return ok(at.button(key="FormSubmitter:res_follow_form-Ask the follow-up").click().run())


@pytest.mark.parametrize(("first", "then", "measure", "year"), [
    ("NVIDIA", "AMD", "revenue", 2023),
    ("AMD", "NVIDIA", "net income", 2023),
    ("NVIDIA", "AMD", "operating income", 2022),
])
def test_a_three_question_conversation_keeps_its_thread(loaded, first, then, measure, year):
    settings = Settings(data_dir=loaded / "store", _env_file=None)
    at = _ask(ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run()),
              f"What was {first}'s {measure} in fiscal {year}?")
    one = _thread(at)
    assert load_run(settings, one).status == "done"  # the fast path answered it at once
    assert not any("Conversation" in c.value for c in at.caption)

    _follow(at, f"and {then}?")
    two = _thread(at)
    record = load_run(settings, two)
    assert two != one and record.follows == one and record.asked_as == f"and {then}?"
    assert then.lower() in record.question.lower() and measure in record.question.lower()
    assert any(measure in c for c in record.carried), record.carried
    shown = texts(at)
    assert "Conversation · 1 earlier question(s)" in shown
    assert f"carried from the previous question: {'; '.join(record.carried)}" in shown
    link = at.button(key=f"res_thread_{one}")
    assert f"What was {first}'s {measure}" in link.label.replace("\\", "")

    _follow(at, f"what about {year - 1}?")
    three = _thread(at)
    record = load_run(settings, three)
    assert record.follows == two and str(year - 1) in record.question
    assert then.lower() in record.question.lower()  # the company of the question before
    assert "Conversation · 2 earlier question(s)" in texts(at)
    linked = {b.key for b in at.button}
    assert {f"res_thread_{one}", f"res_thread_{two}"} <= linked
    ok(at.button(key=f"res_thread_{one}").click().run())  # an earlier question opens its run
    assert _thread(at) == one and not any("Conversation" in c.value for c in at.caption)


def test_a_whole_new_question_in_the_box_runs_as_typed_in_the_same_thread(loaded):
    settings = Settings(data_dir=loaded / "store", _env_file=None)
    at = _ask(ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run()),
              "What was NVIDIA's revenue in fiscal 2023?")
    one = _thread(at)
    whole = "What was AMD's net income in fiscal 2024?"
    _follow(at, whole)
    record = load_run(settings, _thread(at))
    assert record.question == whole and record.follows == one
    assert record.asked_as == "" and record.carried == []
    assert carried_line(record) == ""


def test_always_review_is_kept_across_questions_and_in_a_new_tab(loaded):
    at = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    at.switch_page("app_pages/research.py").run()
    assert at.checkbox(key=keys.RES_ALWAYS_REVIEW).value is False
    at.checkbox(key=keys.RES_ALWAYS_REVIEW).check()
    _ask_current(at, "What was NVIDIA's revenue in fiscal 2023?")
    assert at.button(key="res_approve")  # reviewed: the fast path waited
    ok(at.button(key="res_new").click().run())
    assert at.checkbox(key=keys.RES_ALWAYS_REVIEW).value is True  # the next question
    fresh = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())  # a new tab
    fresh.switch_page("app_pages/research.py").run()
    assert fresh.checkbox(key=keys.RES_ALWAYS_REVIEW).value is True
    fresh.checkbox(key=keys.RES_ALWAYS_REVIEW).uncheck()
    _ask_current(fresh, "What was AMD's revenue in fiscal 2024?")
    assert not _has(fresh, "res_approve")  # the fast path answered it: no review
    again = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    again.switch_page("app_pages/research.py").run()
    assert again.checkbox(key=keys.RES_ALWAYS_REVIEW).value is False


def _ask_current(at: AppTest, question: str) -> AppTest:
    at.text_area(key=keys.RES_QUESTION).set_value(question)
    return ok(at.button(key="FormSubmitter:res_ask_form-Ask").click().run())


def _has(at: AppTest, key: str) -> bool:
    return any(getattr(b, "key", None) == key for b in at.button)


def _record(run_id: str, question: str, follows: str | None = None, answer: str = "",
            **kw) -> RunRecord:
    return RunRecord(id=run_id, question=question, follows=follows,
                     answer=Answer(text=answer) if answer else None, **kw)


@pytest.mark.parametrize("n", [1, 2, 4])
def test_the_thread_is_read_back_from_the_records_oldest_first(tmp_path, n):
    settings = Settings(data_dir=tmp_path, _env_file=None)
    ids = [f"20261204-1200{i:02d}-0000000{i}" for i in range(n + 1)]
    for i, run_id in enumerate(ids):
        save_run(_record(run_id, f"question {i}", ids[i - 1] if i else None,
                         answer=f"Answer {i} is $1 million [1][2].\n\nMore [3]."), settings)
    turns = earlier(settings, load_run(settings, ids[-1]))
    assert [t.run_id for t in turns] == ids[:-1]
    assert [t.answer for t in turns] == [f"Answer {i} is $1 million." for i in range(n)]


def test_a_loop_or_a_missing_run_ends_the_thread(tmp_path):
    settings = Settings(data_dir=tmp_path, _env_file=None)
    a, b, c = (f"20261204-120000-0000000{i}" for i in range(3))
    save_run(_record(a, "qa", follows=b), settings)
    save_run(_record(b, "qb", follows=a), settings)
    assert [t.run_id for t in earlier(settings, load_run(settings, a))] == [b]
    save_run(_record(c, "qc", follows="20261204-120000-deadbeef"), settings)
    assert earlier(settings, load_run(settings, c)) == []
    assert first_line(_record(a, "q")) == ""
