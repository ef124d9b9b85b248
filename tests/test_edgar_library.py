"""The Library's "Load from EDGAR by ticker" panel (AppTest) against the fake EDGAR."""

from __future__ import annotations

import socket

import pytest

from components import edgar_fetch as ef
from testkit.fakes.edgar_server import FakeEdgarServer
from testkit.filings import edgar_filings
from tests.test_app import app_env, boot, ok  # noqa: F401  (app_env is a fixture)


def _point_at(monkeypatch, url: str) -> None:
    for key, value in {"DTR_EDGAR_WWW_URL": url, "DTR_EDGAR_DATA_URL": url,
                       "DTR_ALLOWED_FETCH_HOSTS": "127.0.0.1", "DTR_ALLOW_PRIVATE_FETCH": "true",
                       "DTR_SEC_USER_AGENT": "Jane Analyst jane@example.org"}.items():
        monkeypatch.setenv(key, value)


@pytest.fixture
def edgar(app_env, monkeypatch):  # noqa: F811
    with FakeEdgarServer.from_filings(edgar_filings()) as server:
        _point_at(monkeypatch, server.url)
        yield server


def test_library_lists_and_loads_filings_by_ticker(edgar):
    at = boot("app_pages/library.py")
    at.text_input(key=ef.TICKER).input("NWI")
    ok(at.text_input(key=ef.YEARS).input("2023-2024").run())
    ok(at.button(key=ef.LIST).click().run())
    table = next(d.value for d in at.dataframe if "fiscal year" in d.value)
    assert list(table["fiscal year"]) == ["FY2024", "FY2023"]
    assert any("CIK 0000111111" in c.value for c in at.caption)
    ok(at.button(key=ef.LOAD).click().run())
    docs = next(d.value for d in at.dataframe if "doc id" in d.value)
    assert sorted(docs["period"]) == ["FY2023", "FY2024"]
    downloads = [r for r in edgar.requests if r.path.startswith("/Archives/")]
    assert len(downloads) == 2
    assert {r.headers["user-agent"] for r in edgar.requests} == {"Jane Analyst jane@example.org"}


def test_library_says_plainly_that_edgar_is_unreachable(app_env, monkeypatch):  # noqa: F811
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    _point_at(monkeypatch, f"http://127.0.0.1:{port}")
    at = boot("app_pages/library.py")
    ok(at.text_input(key=ef.TICKER).input("NVDA").run())
    ok(at.button(key=ef.LIST).click().run())
    errors = [e.value.replace("\\", "") for e in at.error]  # markdown-escaped
    said = "EDGAR is unreachable: could not reach 127.0.0.1"
    assert any(e.startswith(said) for e in errors), errors
    assert not [d for d in at.dataframe if "fiscal year" in d.value]
