"""Issue 12, fault 2: bad plan files, bad DTR_* values and unknown run ids get a message and
leave nothing behind (no paused run, no traceback)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from core.app.runs import list_runs
from core.cli.agent import ask
from core.foundation.config import SettingsError, load_settings
from core.foundation.errors import AppError
from testkit.agent_fakes import make_service

ROOT = Path(__file__).resolve().parent.parent
PLAN = [{"sub_question": "How did revenue change in fiscal 2023?", "tool": "filing_search",
         "keywords": ["revenue"], "section": "Item 7"}]


def _cli(*args: str, env: dict[str, str] | None = None,
         data_dir: Path) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith("DTR_")}
    full.update(DTR_DATA_DIR=str(data_dir), HF_HUB_OFFLINE="1", **(env or {}))
    return subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, env=full,
                          capture_output=True, text=True, timeout=300)


BAD_PLANS = {
    "missing": (None, "not found"),
    "latin-1": ('[{"sub_question": "Café revenue?", "tool": "filing_search"}]'.encode("latin-1"),
                "not UTF-8 text (byte 0xe9"),
    "not-json": (b'[{"sub_question": "x", "tool": "filing_search"', "not valid JSON (line 1"),
    "bad-step": (json.dumps([{"sub_question": "x", "tool": "telepathy"}]).encode(), "tool"),
}


@pytest.mark.parametrize("case", sorted(BAD_PLANS))
def test_a_bad_plan_file_is_refused_before_a_run_exists(settings, tmp_path, case):
    data, words = BAD_PLANS[case]
    path = tmp_path / "plan.json"
    if data is not None:
        path.write_bytes(data)
    svc = make_service(settings)
    with pytest.raises(AppError, match=words.replace("(", r"\(")):
        ask("How did revenue change?", settings=settings, plan_file=str(path), service=svc,
            out=io.StringIO())
    assert svc.paused_runs() == [] and list_runs(settings) == []


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8-sig"])
def test_a_plan_file_with_a_byte_order_mark_is_read(settings, tmp_path, encoding):
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(PLAN, ensure_ascii=False), encoding=encoding)
    record = ask("How did revenue change?", settings=settings, plan_file=str(path),
                 service=make_service(settings), out=io.StringIO())
    assert record.status == "done" and len(record.plan) == 1


def test_a_run_left_paused_by_a_failure_prints_its_id(settings, tmp_path, capsys):
    svc = make_service(settings)

    def broken(thread_id, plan=None):
        raise AppError("The checkpoint store is unavailable.")

    svc.resume = broken
    with pytest.raises(AppError):
        ask("How did revenue change?", settings=settings, approve=True, service=svc,
            out=io.StringIO())
    (paused,) = svc.paused_runs()
    err = capsys.readouterr().err
    assert f"Run {paused.id} is left paused" in err and f"--resume {paused.id}" in err


def test_settings_from_the_environment_give_one_line_messages(monkeypatch):
    monkeypatch.setenv("DTR_ALLOWED_FETCH_HOSTS", "www.sec.gov, Example.org")
    assert load_settings(_env_file=None).allowed_fetch_hosts == ["www.sec.gov", "example.org"]
    monkeypatch.setenv("DTR_ALLOWED_FETCH_HOSTS", '["a.example", "b.example"]')
    assert load_settings(_env_file=None).allowed_fetch_hosts == ["a.example", "b.example"]
    monkeypatch.setenv("DTR_MAX_FILE_MB", "abc")
    monkeypatch.setenv("DTR_WEB_PROVIDER", "carrier-pigeon")
    with pytest.raises(SettingsError) as err:
        load_settings(_env_file=None)
    msg = str(err.value)
    assert "DTR_MAX_FILE_MB='abc' is not valid: expected a number, e.g. 50" in msg
    assert "DTR_WEB_PROVIDER='carrier-pigeon'" in msg and "'snapshot'" in msg
    assert "\n" not in msg and "pydantic" not in msg


def test_the_cli_reports_bad_settings_plan_files_and_unknown_runs(tmp_path):
    data = tmp_path / "store"
    bad = _cli("docs", env={"DTR_MAX_FILE_MB": "abc"}, data_dir=data)
    assert bad.returncode == 1 and "Traceback" not in bad.stderr
    assert bad.stderr.strip().splitlines() == [
        "error: Invalid setting(s): DTR_MAX_FILE_MB='abc' is not valid: expected a number, e.g. 50"]
    hosts = _cli("docs", env={"DTR_ALLOWED_FETCH_HOSTS": "a.example,b.example"}, data_dir=data)
    assert hosts.returncode == 0, hosts.stderr
    missing = _cli("ask", "What changed?", "--offline", "--plan-file",
                   str(tmp_path / "nope.json"), data_dir=data)
    assert missing.returncode == 1 and "Traceback" not in missing.stderr
    assert f"Plan file {tmp_path / 'nope.json'} not found" in missing.stderr
    runs = _cli("runs", data_dir=data)
    assert runs.returncode == 0 and runs.stdout.strip() == ""
    gone = _cli("runs", "--delete", "20991231-000000-deadbeef", data_dir=data)
    assert gone.returncode == 1
    assert "No saved run 20991231-000000-deadbeef" in gone.stderr


def test_the_app_names_a_bad_setting_instead_of_a_traceback(tmp_path, monkeypatch):
    monkeypatch.setenv("DTR_DATA_DIR", str(tmp_path / "store"))
    monkeypatch.setenv("DTR_MAX_FILE_MB", "abc")
    monkeypatch.chdir(tmp_path)
    st.cache_resource.clear()
    try:
        at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=120).run()
        assert not at.exception
        assert any("DTR_MAX_FILE_MB='abc'" in e.value for e in at.error)
    finally:
        st.cache_resource.clear()
