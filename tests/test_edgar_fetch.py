"""EDGAR by ticker against a fake EDGAR on 127.0.0.1: ticker -> CIK, submissions, primary
documents, rate limit, user agent, URL rules, and one line when EDGAR is unreachable."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from core.foundation.config import Settings
from core.foundation.errors import FetchError
from core.ingest.edgar import Edgar, EdgarUnreachable, RateLimiter, fiscal_year_of, parse_years
from testkit.fakes.edgar_server import FakeEdgarServer
from testkit.filings import edgar_filings

ROOT = Path(__file__).resolve().parent.parent
AGENT = "Jane Analyst jane@example.org"


@pytest.fixture
def edgar():
    with FakeEdgarServer.from_filings(edgar_filings()) as server:
        yield server


def _env(server_url: str) -> dict[str, str]:
    return {"DTR_EDGAR_WWW_URL": server_url, "DTR_EDGAR_DATA_URL": server_url,
            "DTR_ALLOWED_FETCH_HOSTS": "127.0.0.1", "DTR_ALLOW_PRIVATE_FETCH": "true",
            "DTR_SEC_USER_AGENT": AGENT}


def _settings(tmp_path, url: str, **kw) -> Settings:
    return Settings(data_dir=tmp_path / "store", cache_enabled=False, edgar_www_url=url,
                    edgar_data_url=url, allowed_fetch_hosts=["127.0.0.1"],
                    allow_private_fetch=True, sec_user_agent=AGENT, _env_file=None, **kw)


def test_the_rate_limiter_spaces_requests_a_tenth_of_a_second_apart():
    now = [100.0]
    starts = []

    def sleep(s: float) -> None:
        now[0] += s

    limiter = RateLimiter(10, clock=lambda: now[0], sleep=sleep)
    for _ in range(25):
        limiter.wait()
        starts.append(now[0])
    gaps = [b - a for a, b in zip(starts, starts[1:], strict=False)]
    assert min(gaps) == pytest.approx(0.1)
    assert sum(1 for t in starts if t < starts[0] + 1.0 - 1e-9) == 10  # 10 in any second
    with pytest.raises(ValueError):
        Settings(sec_max_requests_per_s=11, _env_file=None)


def test_fiscal_years_follow_the_filers_year_end_and_years_parse():
    assert fiscal_year_of("2023-01-29", "0129") == 2023  # NVIDIA's 10-K for fiscal 2023
    assert fiscal_year_of("2023-04-30", "0129") == 2024  # its 10-Q for Q1 fiscal 2024
    assert fiscal_year_of("2024-01-28", "0129") == 2024  # a 52-week year ending early
    assert fiscal_year_of("2023-12-31", "1231") == 2023
    assert parse_years("2022-2024") == (2022, 2024) and parse_years("2023") == (2023, 2023)
    with pytest.raises(FetchError, match="2022-2024"):
        parse_years("last year")


def test_ticker_to_filings_uses_the_submissions_api_and_the_user_agent(tmp_path, edgar):
    client = Edgar(_settings(tmp_path, edgar.url))
    found = client.filings("nwi", ["10-K"], (2023, 2024))
    assert [(f.form, f.fiscal_year, f.primary_document) for f in found] == [
        ("10-K", 2024, "nwi-20240128.htm"), ("10-K", 2023, "nwi-20230129.htm")]
    assert found[0].cik == "0000111111" and found[0].archive_url.startswith(
        f"{edgar.url}/Archives/edgar/data/111111/000011111124000010/")
    assert [f.fiscal_year for f in client.filings("NWI", ["10-Q"])] == [2025]
    assert {r.headers["user-agent"] for r in edgar.requests} == {AGENT}
    with pytest.raises(FetchError, match="no company with the ticker 'ZZZZ'"):
        client.filings("ZZZZ")


def test_url_rules_still_apply_to_edgar(tmp_path, edgar):
    refused = Settings(data_dir=tmp_path, edgar_www_url=edgar.url, edgar_data_url=edgar.url,
                       _env_file=None)  # 127.0.0.1 is not an allowed host
    with pytest.raises(FetchError, match="not allowed"):
        Edgar(refused).filings("NWI")
    private = Settings(data_dir=tmp_path, edgar_www_url=edgar.url, edgar_data_url=edgar.url,
                       allowed_fetch_hosts=["127.0.0.1"], _env_file=None)
    with pytest.raises(FetchError, match="private or loopback"):
        Edgar(private).filings("NWI")
    assert edgar.requests == []
    anonymous = _settings(tmp_path, edgar.url).model_copy(update={"sec_user_agent": "bot"})
    with pytest.raises(FetchError, match="User-Agent"):
        Edgar(anonymous).filings("NWI")


def test_fetch_downloads_and_ingests_two_filings(tmp_path, edgar, monkeypatch, capsys,
                                                hash_embedder):
    from core.app.corpus import Corpus
    from core.cli import main as cli

    for key, value in _env(edgar.url).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("DTR_DATA_DIR", str(tmp_path / "store"))
    monkeypatch.setenv("DTR_CACHE_ENABLED", "false")
    opened = []
    monkeypatch.setattr(cli, "_corpus",
                        lambda s: opened.append(Corpus(s, embedder=hash_embedder)) or opened[-1])
    assert cli.main(["fetch", "NWI", "--form", "10-K", "--years", "2023-2024"]) == 0
    out = capsys.readouterr().out
    assert "NWI: 2 10-K filing(s) for FY2023-FY2024" in out
    assert out.count("✓") == 2 and "CIK 0000111111, NWI) 10-K FY2024" in out
    docs = opened[0].documents()
    assert sorted(d.period for d in docs) == ["FY2023", "FY2024"]
    assert {d.source.split("/")[-1] for d in docs} == {"nwi-20240128.htm", "nwi-20230129.htm"}
    downloads = [r.path for r in edgar.requests if r.path.startswith("/Archives/")]
    assert len(downloads) == 2
    # A 10-Q that prints no CIK gets EDGAR's, and joins the company's other filings.
    assert cli.main(["fetch", "NWI", "--form", "10-Q"]) == 0
    docs = opened[-1].documents()
    q = [d for d in docs if d.form_type == "10-Q"][0]
    assert q.cik == "0000111111" and len({d.company for d in docs}) == 1


def test_offline_fetch_fails_at_once_with_one_line_naming_the_host(tmp_path):
    with socket.socket() as s:  # a port nobody listens on: what an unreachable host does
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("DTR_")}
    env.update(_env(f"http://127.0.0.1:{port}"), DTR_DATA_DIR=str(tmp_path / "store"),
               HF_HUB_OFFLINE="1")
    out = subprocess.run([sys.executable, "-m", "core", "fetch", "NVDA", "--form", "10-K",
                          "--years", "2022-2024"], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 1 and out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("error: EDGAR is unreachable: could not reach 127.0.0.1")
    assert not (tmp_path / "store").exists() or not any((tmp_path / "store").iterdir())


def test_unreachable_is_its_own_error(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(EdgarUnreachable, match=r"could not reach 127\.0\.0\.1"):
        Edgar(_settings(tmp_path, f"http://127.0.0.1:{port}")).filings("NVDA")
