"""Issue 22 in the app: a run link naming no run, a run deleted while it is open, an
unreadable run record and a non-http LLM URL are said, never silently replaced or saved."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from components import keys
from core.foundation.config import Settings
from testkit.agent_fakes import make_service
from tests.test_app import APP, TIMEOUT, app_env, ok, texts  # noqa: F401  (fixture)


@pytest.fixture
def two_runs(app_env):  # noqa: F811
    settings = Settings(data_dir=app_env / "store", _env_file=None)
    svc = make_service(settings)
    return settings, [svc.ask(q).id for q in ("What drove Acme's revenue in fiscal 2023?",
                                              "What supply chain risks does Acme state?")]


def _runs_page(run: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    if run is not None:
        at.query_params["run"] = run
    ok(at.run())
    at.switch_page("app_pages/runs.py")
    if run is not None:
        at.query_params["run"] = run
    return ok(at.run())


@pytest.mark.parametrize("link", ["20990101-000000-deadbeef", "../../../etc/passwd"])
def test_a_link_to_no_run_says_so_before_showing_the_latest(two_runs, link):
    at = _runs_page(link)
    assert f"There is no run {link}" in texts(at).replace("\\", "")
    assert at.selectbox(key=keys.RUNS_OPEN).value in two_runs[1]


def test_a_run_deleted_elsewhere_while_open_is_said_and_delete_is_disarmed(two_runs):
    settings, (first, second) = two_runs
    at = _runs_page(first)
    assert at.selectbox(key=keys.RUNS_OPEN).value == first
    ok(at.button(key="runs_delete").click().run())  # asks to confirm the delete of `first`
    (settings.runs_dir / f"{first}.json").unlink()  # another process deletes it meanwhile
    ok(at.run())
    assert f"The run you had open ({first}) was deleted elsewhere" in texts(at)
    assert at.selectbox(key=keys.RUNS_OPEN).value == second
    assert not [b for b in at.button if b.key == "runs_delete_yes"]  # nothing armed
    assert (settings.runs_dir / f"{second}.json").exists()


def test_an_unreadable_run_record_is_named_on_the_runs_page(two_runs):
    settings, (first, _) = two_runs
    path = settings.runs_dir / f"{first}.json"
    path.write_text(path.read_text()[:100])
    at = _runs_page()
    assert f"1 run record(s) cannot be read (truncated or corrupt) and are not listed: {first}" \
        in texts(at).replace("\\", "")


def test_the_settings_page_refuses_a_javascript_llm_url(app_env):  # noqa: F811
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    ok(at.run())
    ok(at.switch_page("app_pages/settings.py").run())
    box = next(t for t in at.text_input if t.label == "Base URL")
    box.set_value("javascript:alert(1)")
    save = next(b for b in at.button if "Save" in b.label)
    ok(save.click().run())
    errors = " ".join(e.value for e in at.error).replace("\\", "")
    assert "Not saved" in errors and "http:// or https:// URL" in errors
    saved = at.session_state[keys.APP_OVERRIDES] if keys.APP_OVERRIDES in at.session_state \
        else {}
    assert (saved or {}).get("llm_base_url") != "javascript:alert(1)"


@pytest.mark.parametrize("thread", ["<script>alert(1)</script>", "x" * 5000,
                                    "caf\ufffd-run", "../../../etc/passwd"])
def test_a_hostile_thread_id_in_the_url_is_a_message_not_an_exception(app_env, thread):  # noqa: F811
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["thread"] = thread
    ok(at.run())  # no exception box
    assert "is not a run id" in texts(at).replace("\\", "")
    raw = [e.value for kind in (at.markdown, at.caption, at.info, at.warning) for e in kind]
    assert not any("<script>" in str(v) for v in raw)  # escaped: shown as text, never markup
