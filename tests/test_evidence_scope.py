"""Evidence belongs to the question: period words are no request for news, and a web step
about named companies keeps only the pages that mention them (the keyless demo articles
about other companies answer nothing)."""

from __future__ import annotations

import pytest

from core.agent.roles.planner import WEB_CUES
from core.foundation.types import Chunk, DocumentMeta, Hit
from core.retrieval.web_about import about, company_words

DOCS = [DocumentMeta(doc_id="ko", file_name="ko-10-k-2025.html", company="COCA COLA CO"),
        DocumentMeta(doc_id="adbe", file_name="adbe-10-k-2025.html", company="ADOBE INC."),
        DocumentMeta(doc_id="nvda", file_name="nvda-10k.html", company="NVIDIA CORP")]


def web(url: str, title: str, text: str) -> Hit:
    return Hit(chunk=Chunk(chunk_id=url, doc_id="web", index=0, text=text, section=title,
                           start=0, end=len(text)))


@pytest.mark.parametrize("text,news", [
    ("Which had the higher margin in its latest fiscal year, Adobe or Coca Cola?", False),
    ("for its most recent fiscal year", False), ("What is Adobe's current ratio?", False),
    ("in the latest 10-K", False), ("current assets and current liabilities", False),
    ("Find recent news about AMD's AI chip strategy", True), ("the latest news", True),
    ("What has NVIDIA announced since the filing?", True), ("currently", True),
])
def test_period_and_line_words_are_no_request_for_news(text, news):
    assert bool(WEB_CUES.search(text)) is news


def test_a_web_step_about_named_companies_keeps_only_pages_that_mention_them():
    hits = [web("https://demo/nvda", "NVIDIA's quarter", "NVIDIA reported rapid growth."),
            web("https://demo/ko", "Beverage makers", "Coca-Cola raised prices again."),
            web("https://demo/adbe", "Adobe Firefly", "Adobe expands its AI tools.")]
    kept, words = about(hits, "What is the news on Coca Cola and Adobe pricing?", DOCS)
    assert [h.chunk.chunk_id for h in kept] == ["https://demo/ko", "https://demo/adbe"]
    assert "coca cola" in words and "adobe" in words
    assert about(hits, "What is the news on chip export rules?", DOCS) == (hits, [])
    assert company_words("Did Coca-Cola's revenue grow?", DOCS)[0] == "coca cola"
