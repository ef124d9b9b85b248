"""Each evaluation metric on hand-made cases whose right value is known."""

from __future__ import annotations

import json
import math

import pytest

from core.agent.state import Evidence, RoleUsage
from core.evaluation.answer_correctness import answer_correctness, factual_f1
from core.evaluation.citation_validity import citation_validity, cited_sentences
from core.evaluation.context_precision import average_precision, context_precision
from core.evaluation.context_recall import context_recall
from core.evaluation.cost import run_cost
from core.evaluation.evidence_recall import gold_evidence_recall
from core.evaluation.faithfulness import LLM_NAME, OFFLINE_NAME, faithfulness
from core.evaluation.gold import GoldTarget, Piece, first_ranks, gains, matches, normalise
from core.evaluation.judge import EvalSample, Judge
from core.evaluation.questions import GoldEvidence
from core.evaluation.ranking import dcg_at_k, ndcg_at_k, recall_at_k, reciprocal_rank
from core.foundation.config import Settings
from core.foundation.types import Chunk
from testkit.fakes.chat_model import FakeChatModel

REVENUE = ("Revenue for fiscal 2024 was $2,184.6 million, up 43% from $1,527.3 million in fiscal "
           "2023. The increase came from the Data Center segment, whose revenue grew 74% as the "
           "Meridian M3 entered volume production. Gross margin rose to 58.1% from 54.6% on a "
           "richer mix of M3 products.")
SUPPLY = ("All of our leading-edge compute dies are manufactured by a single third-party foundry "
          "at facilities in Taiwan. High-bandwidth memory is purchased from two suppliers.")
OTHER = ("Our cybersecurity program is overseen by the Audit Committee of our Board of Directors "
         "and managed by our Chief Information Security Officer.")
FAITHFUL = ("Northwind's revenue grew 43% to $2,184.6 million in fiscal 2024 [1]. Growth came from "
            "the Data Center segment, where revenue rose 74% as the Meridian M3 reached volume "
            "production [1]. A single foundry in Taiwan makes all of its leading-edge compute "
            "dies [2]. The company buys high-bandwidth memory from two suppliers [2].")
UNFAITHFUL = ("Northwind's revenue fell 12% to $1,900.0 million in fiscal 2024 [1]. The decline "
              "was caused by weak smartphone modem sales in Europe [1]. The company plans to pay "
              "a special dividend to shareholders next year [2]. Management expects the "
              "automotive business to double by 2026 [2].")


def chunk(i: int, text: str, section: str = "Item 7. MD&A", page: int | None = None,
          doc: str = "doc1") -> Chunk:
    return Chunk(chunk_id=f"{doc}-{i:05d}", doc_id=doc, index=i, text=text, section=section,
                 page=page, start=0, end=len(text))


def target(doc: str = "doc1", **item) -> GoldTarget:
    return GoldTarget(GoldEvidence(document="f.htm", **item), "filing", doc_id=doc)


def contexts() -> list[Piece]:
    return [Piece.from_chunk(chunk(1, REVENUE)), Piece.from_chunk(chunk(2, SUPPLY))]


@pytest.fixture
def offline(settings, hash_embedder) -> Judge:
    return Judge(settings, hash_embedder, None)


# --- gold matching and ranking metrics --------------------------------------------------

def test_hit_rules_page_text_section_and_document():
    table = Piece.from_chunk(chunk(3, "Total revenue | $ 2,184.6 | $ 1,527.3 | 43%", page=21))
    assert matches(table, target(text="revenue $2,184.6  $1,527.3"))  # spacing, case, cells
    assert matches(table, target(page=21))
    assert not matches(table, target(page=22))
    assert not matches(table, target(doc="doc2", text="Total revenue"))  # other filing
    risk = Piece.from_chunk(chunk(4, "We face competition.", section="Item 1A. Risk Factors"))
    assert matches(risk, target(section="Item 1A"))
    assert not matches(risk, target(section="Item 7"))
    # with text given, the section alone is not enough
    assert not matches(risk, target(section="Item 1A", text="export controls"))
    web = Piece(id="u", text="AMD agreed to acquire ZT Systems.", url="https://x.test/zt/")
    web_target = GoldTarget(GoldEvidence(document="zt.md", text="acquire ZT Systems"), "web",
                            url="https://x.test/zt")
    assert matches(web, web_target)
    assert not matches(web, GoldTarget(web_target.item, "missing"))
    assert normalise("NVIDIA’s  GPUs") == normalise("nvidia's gpus")


def test_perfect_and_useless_retrieval():
    gold = [target(text="single third-party foundry")]
    perfect = [Piece.from_chunk(chunk(2, SUPPLY)), Piece.from_chunk(chunk(9, OTHER))]
    useless = [Piece.from_chunk(chunk(9, OTHER)), Piece.from_chunk(chunk(1, REVENUE))]
    for ranked, expected in ((perfect, 1.0), (useless, 0.0)):
        ranks = first_ranks(ranked, gold)
        assert recall_at_k(ranks, 1) == expected
        assert recall_at_k(ranks, 10) == expected
        assert reciprocal_rank(gains(ranked, gold), 10) == expected
        assert ndcg_at_k(gains(ranked, gold), [1], 10) == expected


def test_ranking_metrics_on_a_hand_computed_case():
    # gold items A (in chunks 2 and 4) and B (only in chunk 4); chunk 4 matches both (gain 2)
    a, b = target(text="foundry"), target(text="two suppliers")
    ranked = [Piece.from_chunk(chunk(1, OTHER)), Piece.from_chunk(chunk(2, "one foundry")),
              Piece.from_chunk(chunk(3, REVENUE)), Piece.from_chunk(chunk(4, SUPPLY))]
    g = gains(ranked, [a, b])
    assert g == [0, 1, 0, 2]
    assert first_ranks(ranked, [a, b]) == [2, 4]
    assert recall_at_k([2, 4], 1) == 0.0
    assert recall_at_k([2, 4], 3) == 0.5
    assert recall_at_k([2, 4], 5) == 1.0
    assert reciprocal_rank(g, 10) == 0.5
    assert reciprocal_rank(g, 1) == 0.0
    # DCG = 1/log2(3) + 2/log2(5); ideal [2, 1] -> 2/log2(2) + 1/log2(3)
    dcg = 1 / math.log2(3) + 2 / math.log2(5)
    idcg = 2 + 1 / math.log2(3)
    assert dcg_at_k(g, 10) == pytest.approx(dcg)
    assert ndcg_at_k(g, [1, 2], 10) == pytest.approx(dcg / idcg)
    assert ndcg_at_k(g, [1, 2], 10) == pytest.approx(0.567207, abs=1e-6)
    assert ndcg_at_k([0, 0], [], 10) is None  # nothing relevant: undefined
    with pytest.raises(ValueError, match="k must be greater than 0"):
        recall_at_k([1], 0)


# --- faithfulness ------------------------------------------------------------------------

def test_faithfulness_offline_high_for_faithful_low_for_invented(offline):
    good = faithfulness(EvalSample("q", FAITHFUL, contexts()), offline)
    bad = faithfulness(EvalSample("q", UNFAITHFUL, contexts()), offline)
    assert good.value == 1.0 and bad.value == 0.0
    assert good.name == OFFLINE_NAME and good.judge == "offline"
    assert "offline" in good.name and "LLM" not in good.name
    statements = bad.details["statements"]
    assert statements[0]["missing_numbers"] == ["12", "1900"]  # invented figures are caught
    # the same true sentences against unrelated context are not supported
    unrelated = faithfulness(EvalSample("q", FAITHFUL, [Piece(id="x", text=OTHER)]), offline)
    assert unrelated.value == 0.0


@pytest.mark.slow
def test_faithfulness_offline_with_the_real_embedder(settings, real_embedder):
    judge = Judge(settings, real_embedder, None)
    good = faithfulness(EvalSample("q", FAITHFUL, contexts()), judge)
    bad = faithfulness(EvalSample("q", UNFAITHFUL, contexts()), judge)
    assert good.value >= 0.75 and bad.value <= 0.25
    sims = [s["similarity"] for s in good.details["statements"]]
    assert all(s is not None and s > 0.5 for s in sims)


def test_faithfulness_with_a_scripted_llm_judge(settings, hash_embedder):
    llm = FakeChatModel()
    llm.enqueue({"statements": [
        {"statement": "Revenue grew 43%.", "supported": True, "reason": "stated"},
        {"statement": "A single foundry makes the dies.", "supported": True, "reason": "stated"},
        {"statement": "Margins hit 70%.", "supported": False, "reason": "not in context"}]})
    judge = Judge(settings, hash_embedder, llm)
    score = faithfulness(EvalSample("What happened?", FAITHFUL, contexts()), judge)
    assert score.value == pytest.approx(2 / 3)
    assert score.name == LLM_NAME and score.judge == "llm:fake-chat"
    assert score.judge_calls == 1 and score.judge_tokens > 0
    prompt = "\n".join(str(m.content) for m in llm.history[-1])
    assert "<<<EVIDENCE id=1" in prompt and "single third-party foundry" in prompt
    # Markers kept: the judge checks each figure against the passage the statement cites.
    assert "[1]" in prompt.split("ANSWER (with its [n] citations):")[1]


def test_llm_judge_failure_falls_back_to_the_named_offline_rule(settings, hash_embedder):
    llm = FakeChatModel(default="this is not JSON at all")
    judge = Judge(settings.model_copy(update={"llm_max_retries": 1, "llm_retry_backoff_s": 0}),
                  hash_embedder, llm)
    score = faithfulness(EvalSample("q", UNFAITHFUL, contexts()), judge)
    assert score.name == OFFLINE_NAME and score.judge == "offline"
    assert score.value == 0.0
    assert "LLM judge failed" in score.note and score.judge_calls == 2


# --- context precision and recall ----------------------------------------------------------

def test_average_precision_values():
    assert average_precision([True, False, True]) == pytest.approx((1 + 2 / 3) / 2)
    assert average_precision([False, True]) == 0.5
    assert average_precision([False, False]) == 0.0
    assert average_precision([True, True]) == 1.0


def test_context_precision_offline_ranks_matter(offline):
    truth = "Revenue was $2,184.6 million in fiscal 2024, up 43%."
    gold = [target(text="Revenue for fiscal 2024 was $2,184.6 million")]
    other = Piece.from_chunk(chunk(9, OTHER))
    first = EvalSample("q", "", [contexts()[0], other], ground_truth=truth, gold=gold)
    last = EvalSample("q", "", [other, contexts()[0]], ground_truth=truth, gold=gold)
    assert context_precision(first, offline).value == 1.0
    assert context_precision(last, offline).value == 0.5
    none = EvalSample("q", "", [other], ground_truth=truth, gold=gold)
    assert context_precision(none, offline).value == 0.0


def test_context_precision_with_scripted_verdicts(settings, hash_embedder):
    llm = FakeChatModel().enqueue({"verdicts": [
        {"index": 1, "useful": False, "reason": "cyber"},
        {"index": 2, "useful": True, "reason": "revenue"}]})
    sample = EvalSample("q", "", [Piece(id="a", text=OTHER), contexts()[0]],
                        ground_truth="Revenue was $2,184.6 million.")
    score = context_precision(sample, Judge(settings, hash_embedder, llm))
    assert score.value == 0.5 and score.details["useful"] == [False, True]


def test_context_recall_offline_and_scripted(settings, offline, hash_embedder):
    truth = ("Revenue was $2,184.6 million in fiscal 2024, up 43%. Northwind's leading-edge dies "
             "are made by a single foundry in Taiwan.")
    full = EvalSample("q", "", contexts(), ground_truth=truth)
    half = EvalSample("q", "", contexts()[:1], ground_truth=truth)
    empty = EvalSample("q", "", [Piece(id="x", text=OTHER)], ground_truth=truth)
    assert context_recall(full, offline).value == 1.0
    assert context_recall(half, offline).value == 0.5
    assert context_recall(empty, offline).value == 0.0
    assert context_recall(EvalSample("q", "", contexts()), offline).value is None  # no reference
    llm = FakeChatModel().enqueue({"sentences": [
        {"sentence": "Revenue was...", "attributed": True, "reason": ""},
        {"sentence": "Dies are made...", "attributed": False, "reason": ""}]})
    assert context_recall(full, Judge(settings, hash_embedder, llm)).value == 0.5


# --- answer correctness --------------------------------------------------------------------

def test_answer_correctness_offline_right_and_wrong_figures(offline):
    truth = "Total revenue was $2,184.6 million in fiscal 2024, up 43% from $1,527.3 million."
    right = EvalSample("q", "Revenue reached $2,184.6 million in fiscal 2024, 43% above the "
                            "$1,527.3 million of fiscal 2023 [1].", ground_truth=truth)
    wrong = EvalSample("q", "Revenue reached $1,900.0 million in fiscal 2024, 12% below the "
                            "prior year [1].", ground_truth=truth)
    r, w = answer_correctness(right, offline), answer_correctness(wrong, offline)
    assert r.details["numeric_agreement"] == 1.0 and w.details["numeric_agreement"] == 0.0
    assert r.value > 0.7 and w.value < 0.4
    assert "offline" in r.name
    assert answer_correctness(EvalSample("q", "x"), offline).value is None  # no ground truth


def test_answer_correctness_with_scripted_classes(settings):
    llm = FakeChatModel().enqueue({"tp": ["a", "b"], "fp": ["c"], "fn": ["d"]})
    judge = Judge(settings, None, llm)  # no embedder: the score is the factual F1 alone
    score = answer_correctness(EvalSample("q", "An answer.", ground_truth="Truth."), judge)
    assert factual_f1(2, 1, 1) == pytest.approx(2 / 3)
    assert score.value == pytest.approx(2 / 3) and score.judge == "llm:fake-chat"


# --- citations, gold evidence recall, cost ----------------------------------------------------

def evidence() -> list[Evidence]:
    return [Evidence(id="doc1-00001", kind="chunk", text=REVENUE, doc_id="doc1"),
            Evidence(id="https://x.test/a", kind="web", text=SUPPLY, url="https://x.test/a")]


def test_citation_validity_flags_invented_markers():
    valid = citation_validity("Revenue grew 43% [1]. Dies come from one foundry [2].", evidence())
    assert valid.value == 1.0 and valid.judge == "rule"
    invented = citation_validity("Revenue grew 43% [1]. Dies come from one foundry [2][7]. "
                                 "Margins rose [12].", evidence())
    assert invented.value == pytest.approx(2 / 4)
    assert invented.details["invalid"] == ["[7]", "[12]"]
    # markers the run already removed still count against it
    removed = citation_validity("Revenue grew 43% [1].", evidence(), removed=["[5]"])
    assert removed.value == 0.5
    assert citation_validity("No markers here at all.", evidence()).value is None


def test_cited_sentences_share():
    text = ("Revenue grew 43% to $2,184.6 million in fiscal 2024. [1] The foundry in Taiwan makes "
            "all compute dies [2]. Gross margin also rose to 58.1% last year.\n\n"
            "I could not find anything about dividends in the evidence.")
    score = cited_sentences(text)
    assert score.value == pytest.approx(2 / 3)
    assert score.details["uncited"] == ["Gross margin also rose to 58.1% last year."]


def test_gold_evidence_recall_of_a_run():
    pieces = [Piece.from_evidence(e) for e in evidence()]
    targets = [target(text="up 43% from $1,527.3 million"),
               GoldTarget(GoldEvidence(document="a.md", text="two suppliers"), "web",
                          url="https://x.test/a/"),
               GoldTarget(GoldEvidence(document="gone.htm", text="x"), "missing")]
    score = gold_evidence_recall(pieces, targets)
    assert score.value == 1.0  # the missing document is left out, not counted as a miss
    assert gold_evidence_recall(pieces[:1], targets).value == 0.5
    assert gold_evidence_recall(pieces, targets[2:]).value is None


def test_cost_from_a_run_record():
    from core.app.runs import RunRecord

    record = RunRecord(question="q", wall_s=2.5, usage={
        "planner": RoleUsage(calls=1, prompt_tokens=100, completion_tokens=20),
        "synthesizer": RoleUsage(calls=2, prompt_tokens=300, completion_tokens=80)})
    cost = run_cost(record)
    assert (cost.wall_s, cost.llm_calls, cost.tokens) == (2.5, 3, 500)


def test_hit_rule_and_configurations_agree_with_the_retrieval_measurement():
    from core.bench.measure import BenchQuestion, is_hit
    from core.evaluation.results import STRATEGIES
    from core.foundation.strategies import measured_configs

    assert {n: (s, r) for n, s, r in measured_configs() if s != "plain"} == STRATEGIES
    q = BenchQuestion(id="x", question="q", files=["f.pdf"], pages={"f.pdf": [21]},
                      evidence=["Total revenue $ 2,184.6"])
    targets = [target(page=21), target(text="Total revenue $ 2,184.6")]
    cases = [chunk(1, "Total revenue | $ 2,184.6", page=3), chunk(2, OTHER, page=21),
             chunk(3, OTHER, page=4), chunk(4, "Total revenue | $ 2,184.6", doc="doc2")]
    for c in cases:
        hit = is_hit(c, q, {"doc1": "f.pdf", "doc2": "g.pdf"})
        assert hit == any(matches(Piece.from_chunk(c), t) for t in targets)


@pytest.mark.slow
def test_llm_judge_through_the_real_chat_openai_client(tmp_path, hash_embedder):
    from core.evaluation.judge import make_judge
    from core.foundation.errors import AppError
    from testkit.fakes.fixtures import llm_settings
    from testkit.fakes.openai_server import Behaviour, FakeOpenAIServer

    with pytest.raises(AppError, match="LLM judge needs a model"):
        make_judge(Settings(data_dir=tmp_path, _env_file=None), hash_embedder, mode="llm")
    with FakeOpenAIServer() as server:
        settings = llm_settings(server, tmp_path)
        judge = make_judge(settings, hash_embedder, mode="llm")
        server.enqueue(Behaviour.json({"statements": [
            {"statement": "Revenue grew 43%.", "supported": True, "reason": "stated"},
            {"statement": "Margins hit 70%.", "supported": False, "reason": "absent"}]}))
        score = faithfulness(EvalSample("q", FAITHFUL, contexts()), judge)
        assert score.value == 0.5 and score.judge == f"llm:{server.model}"
        assert score.judge_calls == 1 and score.judge_tokens > 0
        sent = server.chat_requests[0]
        assert sent["response_format"]["type"] == "json_schema"
        assert sent["response_format"]["json_schema"]["name"] == "FaithfulnessVerdicts"
        assert "sk-test-SECRET" not in json.dumps(score.model_dump())
