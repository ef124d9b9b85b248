"""Issue 11, item 9: the bundled web snapshot is labelled as demo articles (URLs unverified)
and the analyst can add saved pages and search results, which web search then finds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.foundation.config import Settings
from core.foundation.errors import IngestError
from core.retrieval.web import SnapshotWebSearch, get_web_search, parse_article
from core.retrieval.web_saved import (
    add_saved_page,
    add_search_results,
    delete_saved,
    list_sources,
    provenance_of,
)

SNAPSHOT = Path(__file__).resolve().parent.parent / "data" / "web_snapshot"
BODY = ("Gadgetron said on Tuesday that its new quantum widget line will ship to hyperscale "
        "customers in the spring, undercutting rival accelerators on price and power. ") * 3


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(data_dir=tmp_path / "store", web_provider="snapshot", _env_file=None)


def test_every_bundled_article_is_a_demo_article_and_search_says_so(settings):
    for path in SNAPSHOT.glob("2*.md"):
        meta, _ = parse_article(path.read_text(encoding="utf-8"))
        assert meta["provenance"] == "demo", path.name
    hits = get_web_search(settings).search("AMD MI300X Instinct", k=3)
    assert hits and all(h.publisher.endswith("demo article") for h in hits)
    assert provenance_of(hits[0].url, settings) == "demo"
    assert provenance_of("https://example.com/never-seen", settings) == ""
    kinds = {s.provenance for s in list_sources(settings)}
    assert kinds == {"demo"}


def test_a_saved_html_page_is_read_as_text_and_found_by_web_search(settings):
    html = (f"<html><head><script>alert('x')</script><style>p{{}}</style></head><body>"
            f"<nav>Home | News</nav><h1>Gadgetron ships widgets</h1><p>{BODY}</p>"
            f"<img src='https://tracker.example/p.gif'></body></html>").encode()
    path = add_saved_page(settings, data=html, file_name="gadgetron.html",
                          url="https://news.example.com/gadgetron", title="Gadgetron ships",
                          date="2024-09-03", publisher="Example News")
    text = path.read_text()
    assert path.parent == settings.saved_web_dir and "provenance: saved" in text
    assert "alert" not in text and "tracker.example" not in text and "Home | News" not in text
    web = get_web_search(settings)
    hit = web.search("Gadgetron quantum widget", k=1)[0]
    assert hit.url == "https://news.example.com/gadgetron" and hit.date == "2024-09-03"
    assert hit.publisher == "Example News"  # not a demo article
    assert provenance_of(hit.url, settings) == "saved"
    assert web.search("Gadgetron", k=1, after="2024-10-01") == []
    with pytest.raises(IngestError, match="already holds"):
        add_saved_page(settings, data=html, file_name="again.html",
                       url="https://news.example.com/gadgetron")
    assert delete_saved(settings, path.name) and not path.exists()
    assert not delete_saved(settings, "../../etc/passwd")


@pytest.mark.parametrize("url,data,message", [
    ("ftp://x.example/a", BODY.encode(), "http:// or https://"),
    ("javascript:alert(1)", BODY.encode(), "http:// or https://"),
    ("https://x.example/a", b"too short", "fewer than 20 words"),
])
def test_a_saved_page_is_refused_with_a_reason(settings, url, data, message):
    with pytest.raises(IngestError, match=message):
        add_saved_page(settings, data=data, file_name="p.txt", url=url)


def test_saved_search_results_are_added_once_and_bundled_urls_are_skipped(settings):
    demo_url = list_sources(settings)[0].url
    reply = {"query": "gadgetron", "results": [
        {"url": "https://a.example/1", "title": "Gadgetron one", "content": BODY,
         "published_date": "Tue, 03 Sep 2024 10:00:00 GMT", "score": 0.9},
        {"url": demo_url, "title": "a copy of a demo article", "content": BODY},
        {"url": "file:///etc/passwd", "title": "bad", "content": BODY},
        {"url": "https://a.example/empty", "title": "no text", "content": ""},
    ]}
    written = add_search_results(settings, json.dumps(reply).encode())
    assert [p.name.startswith("2024-09-03-gadgetron-one-") for p in written] == [True]
    assert add_search_results(settings, json.dumps(reply["results"]).encode()) == []
    assert provenance_of("https://a.example/1", settings) == "saved"
    assert provenance_of(demo_url, settings) == "demo"
    with pytest.raises(IngestError, match="must be JSON"):
        add_search_results(settings, b"{not json")
    with pytest.raises(IngestError, match="No result"):
        add_search_results(settings, b'{"results": []}')


def test_the_snapshot_searches_the_saved_folder_too(tmp_path):
    saved = tmp_path / "saved"
    saved.mkdir()
    (saved / "a.md").write_text(f"---\nurl: https://s.example/a\ntitle: Saved\n---\n{BODY}\n")
    web = SnapshotWebSearch(SNAPSHOT, saved=saved)
    assert len(web) == len(list(SNAPSHOT.glob("2*.md"))) + 1
    assert web.search("Gadgetron", k=1)[0].url == "https://s.example/a"
