"""Issue 37 item 9: when the LLM fails, the dashboard says so.

The real ChatOpenAI / httpx against the repo's fake OpenAI-compatible server and a local HTML
web server on 127.0.0.1: a web page as base URL is named as one (never advice about
structured-output methods); saving an endpoint checks that it answers and warns when it does
not; the sidebar says what answered the last run; the trace's per-node calls add up to the
run's count.
"""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from streamlit.testing.v1 import AppTest

from components.sidebar import ActiveStack, llm_words
from components.usage_meter import run_totals, usage_from_events
from core.foundation.config import Settings
from core.llm import breaker
from core.llm.probe import check_connection
from core.llm.reach import last_reach, reach
from core.llm.usage import LLMAccount
from testkit.fakes.fixtures import llm_settings
from testkit.fakes.openai_server import Behaviour, FakeOpenAIServer
from tests.test_app import APP, TIMEOUT, app_env, texts  # noqa: F401 (app_env is a fixture)

pytestmark = pytest.mark.slow
SECRET = "sk-test-SECRET-0123456789"
WEB_PAGE = "returns a web page, not an OpenAI-compatible API"


class WebSite:
    """A plain web site on 127.0.0.1: every GET is an HTML page, every POST a 405 HTML page
    (what nginx or a static server answers at a URL that is not an API)."""

    def __init__(self, post_status: int = 405):
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def _page(self, status: int) -> None:
                body = (b"<!DOCTYPE html><html><head><title>Acme</title></head>"
                        b"<body><h1>Welcome</h1></body></html>")
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                self._page(200)

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self._page(post_status)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> WebSite:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def free_port_url() -> str:
    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def settings_for(tmp_path, base_url: str, **kw) -> Settings:
    return Settings(data_dir=tmp_path / "store", llm_base_url=base_url, llm_api_key=SECRET,
                    llm_timeout_s=3.0, llm_max_retries=0, _env_file=None, **kw)


# --- a web page as base URL ---------------------------------------------------------------

@pytest.mark.parametrize("post_status", [200, 404, 405])
@pytest.mark.parametrize("suffix", ["", "/v1", "/docs/"])
def test_a_web_site_as_base_url_is_named_a_web_page(tmp_path, post_status, suffix):
    with WebSite(post_status) as site:
        cfg = settings_for(tmp_path, site.url + suffix)
        check = check_connection(cfg)
        reached = reach(cfg)
    for message in (check.message, reached.message):
        assert WEB_PAGE in message and "API root" in message, message
        assert "structured" not in message.lower() and "json_mode" not in message, message
        assert SECRET not in message
    assert not check.ok and not reached.ok
    assert last_reach(cfg) == reached


@pytest.mark.parametrize("status", [200, 404, 405])
def test_the_fake_api_serving_html_gets_the_same_advice(tmp_path, status):
    with FakeOpenAIServer(default=Behaviour.html(status)) as server:
        check = check_connection(llm_settings(server, tmp_path))
    assert not check.ok and WEB_PAGE in check.message
    assert "DTR_LLM_STRUCTURED_METHOD" not in check.message


def test_a_proxy_error_page_is_still_a_server_error(tmp_path):
    with FakeOpenAIServer(default=Behaviour.html(502)) as server:
        check = check_connection(llm_settings(server, tmp_path))
    assert not check.ok and "HTTP 502" in check.message and WEB_PAGE not in check.message


# --- the endpoint check run when settings are saved ---------------------------------------

def test_reach_names_each_state_of_the_endpoint(tmp_path):
    down = reach(settings_for(tmp_path, free_port_url()))
    assert not down.ok and down.checked and "could not be reached" in down.message
    with FakeOpenAIServer(model="qwen2.5") as server:
        listed = reach(settings_for(tmp_path, server.base_url, llm_model="qwen2.5"))
        other = reach(settings_for(tmp_path, server.base_url, llm_model="llama3"))
        sent = len(server.chat_requests)
    assert listed.ok and "lists the model 'qwen2.5'" in listed.message
    assert other.ok and "does not list the model 'llama3'" in other.message
    assert sent == 0  # nothing spent: no chat request
    offline = reach(Settings(data_dir=tmp_path / "store", _env_file=None))
    assert not offline.checked


def save_endpoint(at: AppTest, base_url: str) -> AppTest:
    at.switch_page("app_pages/settings.py").run()
    at.text_input[0].set_value(base_url)
    at.text_input[1].set_value("fake-model")
    at.text_input[2].set_value(SECRET)
    at.button(key="FormSubmitter:settings_form-Save settings").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_saving_an_unreachable_or_web_page_url_saves_it_with_a_warning(app_env):  # noqa: F811
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    url = free_port_url()
    save_endpoint(at, url)
    warned = [w.value for w in at.warning]
    assert any("could not be reached" in w for w in warned), warned
    saved = json.loads((app_env / "store" / "ui_settings.json").read_text(encoding="utf-8"))
    assert saved["llm_base_url"] == url  # saved all the same
    side = "\n".join(m.value for m in at.sidebar.markdown)
    assert "failed when checked" in side and "written by the LLM" not in side, side
    with WebSite() as site:
        save_endpoint(at, site.url)
    warned = [w.value.replace("\\", "") for w in at.warning]
    assert any(WEB_PAGE in w for w in warned), warned
    assert SECRET not in texts(at)


# --- the sidebar after a run, and the trace's counts -------------------------------------

def stack(cfg: Settings, **kw) -> ActiveStack:
    return ActiveStack(documents=2, chunks=10, llm=f"{cfg.llm_model} @ {cfg.llm_base_url}",
                       llm_offline=False, reranker="none", reranker_kind="none",
                       reranker_reason="", web="none", data_dir="x", llm_model=cfg.llm_model,
                       **kw)


def failing_run(tmp_path, behaviour: Behaviour):
    from core.foundation.config import Settings as S
    from core.store.corpus_store import CorpusStore
    from testkit.corpus import amd_10k, nvda_10k
    from testkit.fakes.embedder import HashEmbedder
    from testkit.scenarios import QUESTION, service

    embedder = HashEmbedder()
    store = CorpusStore(S(data_dir=tmp_path / "corpus", _env_file=None), embedder)
    try:
        for meta, chunks in (nvda_10k(), amd_10k()):
            store.add(meta, chunks)
        with FakeOpenAIServer(default=behaviour) as server:
            cfg = llm_settings(server, tmp_path, llm_timeout_s=1.0)
            record = service(cfg, store, embedder).ask(QUESTION)
    finally:
        store.close()
    return cfg, record


@pytest.mark.parametrize(("behaviour", "why"), [
    (Behaviour.error(500, "model crashed"), "HTTP 500"),
    (Behaviour.error(503, "overloaded"), "HTTP 503"),
    (Behaviour.error(401, "bad key"), "HTTP 401"),
])
def test_the_sidebar_says_the_offline_engine_answered_the_last_run(tmp_path, behaviour, why):
    cfg, record = failing_run(tmp_path, behaviour)
    latest = breaker.latest_account()
    assert latest is not None and latest[1].never_answered
    words, details = llm_words(stack(cfg, llm_last_run=latest))
    assert "written by the LLM" not in words
    assert f"last run was answered by the offline engine (LLM failed: {why})" in words, words
    assert record.backend == f"offline engine (LLM failed: {why})"  # the record says the same
    assert f"{latest[1].failed} failed" in details


def test_the_sidebar_words_follow_what_the_llm_did():
    cfg = Settings(llm_base_url="http://127.0.0.1:9/v1", llm_model="m1", _env_file=None)
    fine = llm_words(stack(cfg, llm_last_run=(1.0, LLMAccount(replies=5, usable=5))))[0]
    assert fine.startswith("written by the LLM m1")
    partly = llm_words(stack(cfg, llm_last_run=(1.0, LLMAccount(
        replies=2, usable=2, failed=2, skipped=3, reason="HTTP 429"))))[0]
    assert "partly" in partly and "5 call(s)" in partly and "HTTP 429" in partly
    unusable = llm_words(stack(cfg, llm_last_run=(1.0, LLMAccount(
        replies=3, unusable=3, unusable_reason="prose, not JSON"))))[0]
    assert "answered by the offline engine (LLM replies unusable: prose, not JSON)" in unusable
    never = llm_words(stack(cfg))[0]
    assert "not used yet" in never and "written by" not in never


def test_trace_body_and_summary_count_the_same_llm_calls(tmp_path):
    """The synthesis node's event carries every call it made (answer and self-check), so the
    per-node body adds up to the record's count the summary shows."""
    from tests.test_agent_selfcheck import _replies, _run

    answer = {"answer": "Borealis's net sales were $2,184.6 million in fiscal 2024 [1].",
              "not_found": []}
    checks = {"verdicts": [{"index": 1, "supported": True, "reason": "figure in [1]"}]}
    server, record = _run(tmp_path, _replies(answer, checks=checks))
    body = usage_from_events(record.events)
    summary = record.total_usage
    assert run_totals(record).calls == body.calls  # the summary line's count function
    assert len(server.requests_for("SelfCheckOutput")) == 1
    assert body.calls == summary.calls == len(server.chat_requests)
    assert body.tokens == summary.total and body.calls_by_node["synthesize"] == 2
