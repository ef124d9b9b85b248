"""The dashboard with a configured LLM: the real ChatOpenAI against a local fake server.

Settings are entered on the Settings page (the key stays in the session); the connection test
reports success; a research run uses the LLM for the plan, degrades to the
offline rules with visible warnings when the endpoint fails, and the key never
appears on screen or in the saved record.
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from components import keys
from testkit.fakes.fixtures import openai_server  # noqa: F401 (fixture)
from testkit.fakes.openai_server import Behaviour
from tests.test_app import (  # noqa: F401 (app_env is a fixture)
    APP,
    TIMEOUT,
    answer_text,
    app_env,
    load_sample,
    sub_questions,
    texts,
)

SECRET = "sk-test-SECRET-0123456789"


def configure_llm(at: AppTest, server) -> AppTest:
    at.switch_page("app_pages/settings.py").run()
    at.text_input[0].set_value(server.base_url)
    at.text_input[1].set_value(server.model)
    at.text_input[2].set_value(SECRET)
    at.button(key="FormSubmitter:settings_form-Save settings").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.slow
def test_llm_settings_connection_and_a_run_that_degrades_visibly(
    app_env, openai_server, monkeypatch  # noqa: F811
):
    monkeypatch.setenv("DTR_LLM_MAX_RETRIES", "0")
    monkeypatch.setenv("DTR_LLM_TIMEOUT_S", "5")
    at = load_sample(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    configure_llm(at, openai_server)
    assert f"{openai_server.model} @ {openai_server.base_url}" in texts(at)

    openai_server.enqueue(Behaviour.text("OK"), Behaviour.json({"word": "OK"}))
    at.button(key="settings_test").click().run()
    assert any("Connected to" in s.value for s in at.success), [e.value for e in at.error]

    plan = {"steps": [{"sub_question": "What competition risks does Northwind state?",
                       "justification": "the filing lists its risks", "tool": "filing_search",
                       "keywords": ["competition"], "section": "Item 1A. Risk Factors",
                       "doc_ids": []}]}
    openai_server.enqueue(Behaviour.json(plan))  # every later call gets HTTP 500
    at.switch_page("app_pages/research.py").run()
    at.text_area(key=keys.RES_QUESTION).set_value("What competition risks does Northwind face?")
    at.button(key="FormSubmitter:res_ask_form-Ask").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Proposed by the LLM" in texts(at)
    assert sub_questions(at) == [plan["steps"][0]["sub_question"]]

    at.button(key="res_approve").click().run()
    assert not at.exception, [e.value for e in at.exception]
    page = texts(at)
    assert "used the offline rule instead" in page  # each failed role says so
    calls = {m.label: m.value for m in at.metric}["LLM calls"]
    assert int(calls) >= 2
    assert "[1]" in answer_text(at), "still a cited answer"
    assert SECRET not in page
    thread = at.query_params["thread"]
    thread = thread[0] if isinstance(thread, list) else thread
    saved = (app_env / "store" / "runs" / f"{thread}.json").read_text(encoding="utf-8")
    assert SECRET not in saved and openai_server.model in saved


@pytest.mark.slow
def test_connection_test_picks_and_saves_a_method_the_endpoint_accepts(app_env, monkeypatch):  # noqa: F811
    """Fault 11: a llama.cpp-like server answers json_schema with HTTP 500; the test says so,
    switches to json_mode and saves it (non-secret settings file), instead of "Connected"."""
    import json

    from testkit.fakes.openai_server import FakeOpenAIServer

    monkeypatch.setenv("DTR_LLM_TIMEOUT_S", "5")
    with FakeOpenAIServer(json_schema_status=500) as server:
        at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
        configure_llm(at, server)
        server.enqueue(Behaviour.text("OK"), Behaviour.json({"word": "OK"}))
        at.button(key="settings_test").click().run()
        assert not at.exception, [e.value for e in at.exception]
        said = " ".join(s.value for s in [*at.success, *at.info]).replace("\\", "")
        assert "works with json_mode" in said and "json_schema failed" in said, said
        assert "HTTP 500" in said and "saved to" in said
        assert at.selectbox[0].value == "json_mode"  # the form shows the method in use
        stored = json.loads((app_env / "store" / "ui_settings.json").read_text())
        assert stored["llm_structured_method"] == "json_mode"
        assert SECRET not in json.dumps(stored)
