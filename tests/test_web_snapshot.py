"""Offline web search over the project's snapshot folder, saving hits, provider choice."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.foundation.config import Settings
from core.foundation.errors import RetrievalError
from core.retrieval.web import (
    NoWebSearch,
    SnapshotWebSearch,
    TavilyWebSearch,
    WebHit,
    get_web_search,
    normalise_date,
    parse_article,
    save_to_snapshot,
)

SNAPSHOT = Path(__file__).resolve().parent.parent / "data" / "web_snapshot"
ARTICLES = [p for p in SNAPSHOT.glob("*.md") if p.name != "README.md"]


@pytest.fixture(scope="module")
def snapshot() -> SnapshotWebSearch:
    return SnapshotWebSearch(SNAPSHOT)


def test_every_bundled_article_has_front_matter():
    assert len(ARTICLES) >= 8
    for path in ARTICLES:
        meta, body = parse_article(path.read_text())
        assert meta["url"].startswith("https://"), path.name
        assert meta["title"] and meta["source"], path.name
        assert normalise_date(meta["date"]) == meta["date"] and meta["date"].startswith("2024")
        assert path.name.startswith(meta["date"])
        assert len(body.split()) > 100, path.name


def test_name_counts_articles(snapshot):
    assert snapshot.name == f"Web snapshot ({len(ARTICLES)} articles)"


def test_amd_ai_chip_strategy_finds_mi300x_and_rocm_articles(snapshot):
    hits = snapshot.search("AMD AI chip strategy 2024", k=5)
    assert len(hits) == 5
    assert all(h.source == "snapshot" and h.url.startswith("https://") for h in hits)
    assert sum("MI300X" in h.text for h in hits) >= 2
    assert any("ROCm" in h.text for h in hits)
    assert not any("Federal Reserve" in h.title for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


@pytest.mark.parametrize(
    ("query", "title_word"),
    [
        ("AMD acquisition of ZT Systems rack-scale", "ZT Systems"),
        ("NVIDIA export controls China H20", "export controls"),
        ("cloud providers designing their own custom AI chips", "own AI chips"),
        ("ROCm open software Silo AI", "Silo AI"),
        ("data center GPU revenue more than $5 billion", "$5 billion"),
    ],
)
def test_specific_questions_rank_the_right_article_first(snapshot, query, title_word):
    assert title_word in snapshot.search(query, k=3)[0].title


def test_after_filter_and_passages(snapshot):
    hits = snapshot.search("AMD MI300X", k=10, after="2024-08-01")
    assert hits and all(h.date >= "2024-08-01" for h in hits)
    everything = snapshot.search("AMD MI300X", k=10)
    assert len(everything) > len(hits)
    assert all(len(h.text) <= snapshot.max_chars + 400 for h in everything)


def test_nothing_for_unrelated_or_empty_queries(snapshot):
    assert snapshot.search("zebra xylophone", k=5) == []
    assert snapshot.search("   ", k=5) == []
    with pytest.raises(RetrievalError, match="k must be greater than 0"):
        snapshot.search("AMD", k=0)


def test_missing_folder_is_empty(tmp_path):
    search = SnapshotWebSearch(tmp_path / "nope")
    assert len(search) == 0 and search.search("AMD") == []


def test_save_to_snapshot_sanitises_names_and_is_idempotent(tmp_path):
    hits = [
        WebHit(url="https://news.example.com/a?id=1", title='../../etc/passwd: "evil" name\nx',
               date="2024-11-02", text="Oracle expands its MI300X cluster.", score=0.9,
               source="tavily", publisher="Example: News"),
        WebHit(url="https://news.example.com/b", title="", text="Undated AMD note.",
               source="tavily"),
        WebHit(url="https://news.example.com/c", title="Empty body", text="  ", source="tavily"),
    ]
    written = save_to_snapshot(hits, tmp_path)
    assert len(written) == 2
    for path in written:
        assert path.parent == tmp_path
        assert all(c.isalnum() or c in "-." for c in path.name)
    assert written[0].name.startswith("2024-11-02-etc-passwd-evil-name-x-")
    assert written[1].name.startswith("undated-https-news-example-com-b-")
    before = {p: p.read_text() for p in written}
    assert save_to_snapshot(hits, tmp_path) == []  # same URLs: nothing new
    assert {p: p.read_text() for p in tmp_path.iterdir()} == before

    found = SnapshotWebSearch(tmp_path).search("Oracle MI300X cluster")
    assert found[0].url == "https://news.example.com/a?id=1"
    assert found[0].title == '../../etc/passwd: "evil" name x'
    assert found[0].publisher == "Example: News" and found[0].date == "2024-11-02"


def test_save_skips_url_already_in_hand_written_article(tmp_path):
    (tmp_path / "mine.md").write_text("---\nurl: https://x.test/1\ntitle: t\n---\nbody text\n")
    assert save_to_snapshot([WebHit(url="https://x.test/1", text="dup", source="tavily")],
                            tmp_path) == []


def test_normalise_date_formats():
    assert normalise_date("2024-08-19T10:00:00Z") == "2024-08-19"
    assert normalise_date("Mon, 19 Aug 2024 13:05:00 GMT") == "2024-08-19"
    assert normalise_date("last week") is None and normalise_date(None) is None


def test_get_web_search_choice(tmp_path):
    base = dict(data_dir=tmp_path / "store", _env_file=None)
    empty = tmp_path / "empty"
    assert isinstance(get_web_search(Settings(**base, snapshot_dir=empty)), NoWebSearch)
    assert get_web_search(Settings(**base, snapshot_dir=empty)).name == "none"
    auto = get_web_search(Settings(**base, snapshot_dir=SNAPSHOT))
    assert isinstance(auto, SnapshotWebSearch) and len(auto) == len(ARTICLES)
    keyed = get_web_search(Settings(**base, snapshot_dir=SNAPSHOT, tavily_api_key="tvly-x",
                                    tavily_base_url="http://127.0.0.1:9"))
    assert isinstance(keyed, TavilyWebSearch) and keyed.name == "Tavily"
    off = Settings(**base, snapshot_dir=SNAPSHOT, tavily_api_key="tvly-x", web_provider="none")
    assert isinstance(get_web_search(off), NoWebSearch)
    forced = Settings(**base, snapshot_dir=empty, web_provider="snapshot")
    assert get_web_search(forced).name == "Web snapshot (0 articles)"
    with pytest.raises(RetrievalError, match="DTR_TAVILY_API_KEY"):
        get_web_search(Settings(**base, web_provider="tavily"))
    assert NoWebSearch().search("anything") == []
