"""EDGAR's replies as a hostile or broken server sends them: submissions JSON of the wrong
shape (issue 32: ``"files": [{"filingTo": ...}]`` raised KeyError 'name', ``"files":
["oops"]`` AttributeError), replies that are not JSON, too large, too slow, redirected.
Each is one line naming the host and what was wrong; the corpus keeps what it had."""

from __future__ import annotations

import json

import pytest

from core.foundation.errors import FetchError
from core.ingest.edgar import Edgar
from testkit.fakes.http_base import Response
from tests.hostile.kit import ScriptedEdgar, edgar_env, edgar_settings, one_line

NWI = "/submissions/CIK0000111111.json"


@pytest.fixture
def edgar():
    with ScriptedEdgar() as server:
        yield server


def _submissions(edgar) -> dict:
    return json.loads(json.dumps(edgar.submissions["CIK0000111111"]))


MALFORMED = {
    "a file entry without its name": (
        lambda s: s["filings"].update(files=[{"filingTo": "2010-12-31"}]),
        "filings.files[0] names no file"),
    "a file entry that is a string": (
        lambda s: s["filings"].update(files=["oops"]), "filings.files[0] names no file"),
    "files that is not a list": (
        lambda s: s["filings"].update(files="oops"), "'filings.files' is not a list"),
    "a file name with a path": (
        lambda s: s["filings"].update(files=[{"name": "../../etc/passwd.json"}]),
        "filings.files[0] names no file"),
    "a file name that is a number": (
        lambda s: s["filings"].update(files=[{"name": 7}]), "filings.files[0] names no file"),
    "a second entry broken": (
        lambda s: s["filings"].update(files=[{"name": "CIK0000111111-submissions-001.json",
                                              "filingTo": "1990-01-01"}, None]),
        "filings.files[1] names no file"),
    "filings that is a list": (lambda s: s.update(filings=[]), "'filings' is not an object"),
    "recent that is a string": (
        lambda s: s["filings"].update(recent="x"), "'filings.recent' is not an object"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_submissions_are_one_line_naming_the_host(tmp_path, edgar, case):
    change, what = MALFORMED[case]
    sub = _submissions(edgar)
    change(sub)
    edgar.override[NWI] = Response(body=sub)
    with pytest.raises(FetchError) as err:
        Edgar(edgar_settings(tmp_path, edgar.url)).filings("NWI", ["10-K"])
    message = one_line(str(err.value))
    assert message.startswith("127.0.0.1 sent a malformed submissions file "
                              "(CIK0000111111.json)"), message
    assert what in message


NOT_JSON = {
    "an HTML page": (Response(raw=b"<html>Maintenance</html>", content_type="text/html"),
                     "did not return JSON"),
    "truncated JSON": (Response(raw=b'{"cik": "111111", "filings": {"rec'),
                       "did not return JSON"),
    "a JSON list": (Response(body=[1, 2, 3]), "JSON of an unexpected shape"),
    "a JSON string": (Response(body="hello"), "JSON of an unexpected shape"),
    "HTTP 500": (Response(500, raw=b"oops", content_type="text/plain"), "500"),
    "HTTP 404": (Response(404, raw=b"<html>Not Found</html>", content_type="text/html"),
                 "404"),
}


@pytest.mark.parametrize("case", sorted(NOT_JSON))
def test_submissions_that_are_not_json_name_the_url(tmp_path, edgar, case):
    reply, what = NOT_JSON[case]
    edgar.override[NWI] = reply
    with pytest.raises(FetchError) as err:
        Edgar(edgar_settings(tmp_path, edgar.url)).filings("NWI")
    message = one_line(str(err.value))
    assert what in message and "127.0.0.1" in message


def test_a_broken_older_filings_file_is_named(tmp_path, edgar):
    sub = _submissions(edgar)
    sub["filings"]["files"] = [{"name": "CIK0000111111-submissions-001.json",
                                "filingTo": "2015-01-01"}]
    edgar.override[NWI] = Response(body=sub)
    edgar.override["/submissions/CIK0000111111-submissions-001.json"] = Response(
        body={"accessionNumber": "not columns"})
    found = Edgar(edgar_settings(tmp_path, edgar.url)).filings("NWI")
    assert {f.form for f in found} == {"10-K"}  # a page with no column arrays lists nothing
    edgar.override["/submissions/CIK0000111111-submissions-001.json"] = Response(body=[])
    with pytest.raises(FetchError, match="CIK0000111111-submissions-001.json returned JSON of "
                       "an unexpected shape"):
        Edgar(edgar_settings(tmp_path, edgar.url)).filings("NWI")


def test_columns_of_unequal_length_and_odd_types_list_what_is_whole(tmp_path, edgar):
    sub = _submissions(edgar)
    recent = sub["filings"]["recent"]
    recent["form"].append("10-K")  # one column longer than the others
    recent["reportDate"] = [None if i == 0 else d for i, d in enumerate(recent["reportDate"])]
    edgar.override[NWI] = Response(body=sub)
    found = Edgar(edgar_settings(tmp_path, edgar.url)).filings("NWI", ["10-K", "10-Q"])
    assert len(found) == len(recent["accessionNumber"])  # rows past the shortest column: none
    assert [f for f in found if f.report_date == "None"][0].fiscal_year is None


def test_tickers_of_the_wrong_shape_say_so(tmp_path, edgar):
    edgar.override["/files/company_tickers.json"] = Response(body=["NWI"])
    with pytest.raises(FetchError, match="company_tickers.json returned JSON of an "
                       "unexpected shape"):
        Edgar(edgar_settings(tmp_path, edgar.url)).filings("NWI")
    edgar.override["/files/company_tickers.json"] = Response(
        body={"0": {"ticker": "NWI", "cik_str": "not a number"}, "1": "junk"})
    with pytest.raises(FetchError, match="no company with the ticker 'NWI'"):
        Edgar(edgar_settings(tmp_path, edgar.url)).filings("NWI")


def test_a_huge_submissions_reply_is_cut_at_the_size_limit(tmp_path, edgar):
    edgar.override[NWI] = Response(raw=b"{" + b" " * (2 * 1024 * 1024) + b"}")
    with pytest.raises(FetchError) as err:
        Edgar(edgar_settings(tmp_path, edgar.url, max_file_mb=1)).filings("NWI")
    assert "larger than the 1 MiB limit" in one_line(str(err.value))


def test_a_slow_submissions_reply_stops_at_the_deadline(tmp_path, edgar):
    edgar.override[NWI] = Response(body={}, delay_s=30)
    settings = edgar_settings(tmp_path, edgar.url, fetch_timeout_s=0.5, fetch_deadline_s=1.0)
    with pytest.raises(FetchError) as err:
        Edgar(settings).filings("NWI")
    assert "127.0.0.1" in one_line(str(err.value))


@pytest.mark.parametrize("location", ["http://169.254.169.254/latest/meta-data/",
                                      "http://example.org/submissions.json", "file:///etc/passwd",
                                      ""])
def test_a_redirected_submissions_reply_is_checked_hop_by_hop(tmp_path, edgar, location):
    headers = {"Location": location} if location else {}
    edgar.override[NWI] = Response(302, raw=b"", headers=headers, content_type="text/plain")
    with pytest.raises(FetchError) as err:
        Edgar(edgar_settings(tmp_path, edgar.url)).filings("NWI")
    one_line(str(err.value))
    assert [r for r in edgar.requests if "169.254" in r.path or "passwd" in r.path] == []


def test_fetch_lists_the_other_companies_and_keeps_the_corpus(tmp_path, edgar, monkeypatch,
                                                               capsys, hash_embedder):
    """A malformed listing for one ticker is one ✗ line; the next ticker is fetched and what
    the corpus held stays."""
    from core.app.corpus import Corpus
    from core.cli import main as cli

    for key, value in edgar_env(edgar.url, tmp_path / "store").items():
        monkeypatch.setenv(key, value)
    opened = []
    monkeypatch.setattr(cli, "_corpus",
                        lambda s: opened.append(Corpus(s, embedder=hash_embedder)) or opened[-1])
    assert cli.main(["fetch", "SGL", "--form", "10-Q"]) == 0
    sub = _submissions(edgar)
    sub["filings"]["files"] = ["oops"]
    edgar.override[NWI] = Response(body=sub)
    assert cli.main(["fetch", "NWI", "SGL", "--form", "10-K"]) == 1
    captured = capsys.readouterr()
    errors = [line for line in captured.err.splitlines() if line.startswith("✗")]
    assert errors == ["✗ NWI: 127.0.0.1 sent a malformed submissions file (CIK0000111111.json):"
                      " filings.files[0] names no file of older filings (got 'oops'); is it "
                      "EDGAR? Nothing was ingested for this company."]
    assert "SGL: 1 10-K filing(s)" in captured.out
    forms = sorted(d.form_type for d in opened[-1].documents())
    assert forms == ["10-K", "10-Q"]  # the 10-Q fetched before stays; SGL's 10-K came in
