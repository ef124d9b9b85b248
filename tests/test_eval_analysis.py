"""Evaluate scores the analysis kinds: verdict right (compare, rank, yes / no) and figures
right, beside numeric correctness; faithfulness counts a figure line supported by the fact
it cites.

The figure answers are the figures layer's own (NVIDIA's FY2023 and AMD's FY2025 iXBRL
10-Ks read by the ingest pipeline, looked up, stated by ``core.figures.statement``), the
contexts the chunks they cite; the LLM judge is the fake OpenAI-compatible server."""

from __future__ import annotations

import json

import pytest

from core.agent.state import Answer, Evidence
from core.evaluation.analysis_scores import (
    analysis_scores,
    body_lines,
    gold_figures,
    gold_verdict,
)
from core.evaluation.faithfulness import faithfulness
from core.evaluation.gold import Piece
from core.evaluation.judge import EvalSample, Judge
from core.evaluation.questions import EvalQuestion, parse_question_set
from core.evaluation.report import summarise
from core.evaluation.results import EvalManifest, QuestionResult
from core.evaluation.runner import fingerprint, score_record
from core.figures.statement import figure_sentence, work_lines
from core.foundation.config import Settings
from tests.analysis_fixtures import margin, operating_margin_comparison, prepared
from tests.test_figures_compute import FactStore

Q = "Between NVIDIA and AMD, which had the higher operating margin in its latest fiscal year?"


def verdict(answer: str, gold, figures=None, question: str = Q) -> float | None:
    sample = EvalSample(question, answer, verdict=gold, gold_figures=figures or {})
    return analysis_scores(sample)[0].value


# --- verdict right ---------------------------------------------------------------------

def test_a_comparison_is_right_when_its_first_line_names_the_winner_first():
    figures = {"NVIDIA": 15.66, "AMD": 10.66}
    assert verdict("NVIDIA had the higher operating margin: 15.7% against AMD's 10.7% [1].",
                   "NVIDIA", figures) == 1.0
    assert verdict("AMD trailed NVIDIA: 10.7% against 15.7%.", "NVIDIA", figures) == 0.0
    # the winner must be in the first line: a list of quotes that names it later is wrong
    assert verdict("Operating margins are discussed in Item 7.\nNVIDIA: 15.7%.", "NVIDIA",
                   figures) == 0.0
    # the engine's banner and a line restating the question are not the first line
    from core.agent.roles.synthesize import OFFLINE_NOTE

    echo = f"{Q}\nNVIDIA had the higher operating margin.\n{OFFLINE_NOTE}"
    assert body_lines(echo, Q) == ["NVIDIA had the higher operating margin."]
    assert verdict(echo, "NVIDIA", figures) == 1.0
    # names match without case or punctuation
    assert verdict("Coca-Cola had the higher gross margin.", "Coca Cola",
                   {"Coca Cola": 61.1, "Home Depot": 33.4}) == 1.0


def test_yes_no_and_rankings():
    assert verdict("Yes. Adobe's FY2024 free cash flow was $7,873 million [1].", "yes") == 1.0
    assert verdict("Adobe's FY2024 free cash flow was $7,873 million [1].", "yes") == 0.0
    assert verdict("No, revenue grew 10.8%.", "yes") == 0.0
    order = ["Alphabet", "Adobe", "Coca Cola"]
    assert verdict("Ranked by operating margin: Alphabet 32.1%, Adobe 31.3%, Coca Cola 21.2%.",
                   order) == 1.0
    assert verdict("Ranked: Adobe 31.3%, Alphabet 32.1%, Coca Cola 21.2%.", order) == 0.0
    assert verdict("Alphabet 32.1%, Adobe 31.3%.", order) == 0.0  # one company left out
    assert verdict("Whatever.", None) is None


def test_references_come_from_the_fields_or_from_tags_and_the_reference_answer():
    shaped = parse_question_set("\n".join(json.dumps(x) for x in [
        {"id": "c", "question": Q, "ground_truth": "NVIDIA", "tags": ["compare"]},
        {"id": "r", "question": "Rank them", "ground_truth": '["A", "B"]', "tags": ["rank"]},
        {"id": "y", "question": "Positive?", "ground_truth": "Yes.", "tags": ["yesno"]},
        {"id": "p", "question": "Both margins?", "ground_truth": "[31.3, 25.9]",
         "tags": ["pair"]},
        {"id": "f", "question": Q, "verdict": "NVIDIA",
         "figures": {"NVIDIA": 15.66, "AMD": 10.66}},
        {"id": "n", "question": "Revenue?", "ground_truth": "$26,974 million"},
    ]), name="t")
    c, r, y, p, f, n = shaped.questions
    assert [gold_verdict(q) for q in (c, r, y, p, f, n)] == [
        "NVIDIA", ["A", "B"], "yes", None, "NVIDIA", None]
    assert gold_figures(p) == {"figure 1": 31.3, "figure 2": 25.9}
    assert gold_figures(f) == {"NVIDIA": 15.66, "AMD": 10.66} and gold_figures(n) == {}
    with pytest.raises(Exception, match="verdict, figures"):
        parse_question_set('{"question": "q", "values": {}}', name="bad")


# --- figures right -------------------------------------------------------------------------

def test_figures_right_is_the_share_of_reference_figures_stated():
    def share(answer, figures):
        return analysis_scores(EvalSample("q", answer, gold_figures=figures))[1]

    pair = {"operating margin": 31.3, "net margin": 25.9}
    assert share("Operating margin 31.3%; net margin 25.9% [1].", pair).value == 1.0
    half = share("Operating margin 31.3% [1]; net margin 22.0%.", pair)
    assert half.value == 0.5 and half.details["stated"]["net margin"] is None
    assert share("Net income was $10.6 billion.", {"Coca Cola": 10631.0}).value == 1.0
    assert share("Net income was $10,631 million.", {"Coca Cola": 10631.0}).value == 1.0
    assert share("The margin was 30%.", {"A": 31.3}).value == 0.0  # beyond 1%
    assert share("anything", {}).value is None


# --- faithfulness counts a figure line by the fact it cites -----------------------------

@pytest.fixture(scope="module")
def real():
    metas, facts, chunks = prepared()
    store = FactStore(facts, metas)
    return store, metas, {c.chunk_id: c for c in chunks}


def _figure_answer(real):
    """NVIDIA's FY2023 operating margin, stated by the figures layer, cited to its chunk."""
    store, metas, chunks = real
    result = margin(store, metas[0].doc_id, metas[0].company, "FY2023")
    numbers: dict[str, str] = {}

    def cite(chunk_id):
        return numbers.setdefault(chunk_id, f"[{len(numbers) + 1}]")

    text = "\n".join([figure_sentence(result, "NVIDIA", cite), *work_lines(result, cite)])
    contexts = [Piece(id=c, text=chunks[c].text) for c in numbers]
    return result, text, contexts


def test_a_figure_line_is_supported_by_the_fact_it_cites(real, settings):
    result, text, contexts = _figure_answer(real)
    assert "15.66%" in text and "[1]" in text
    judge = Judge(settings, None, None)
    without = faithfulness(EvalSample("q", text, contexts), judge)
    backed = faithfulness(EvalSample("q", text, contexts, figures=[result]), judge)
    assert backed.value == 1.0 and (without.value or 0.0) < 1.0
    rows = backed.details["statements"]
    assert any("operating income, FY2023 (XBRL us-gaap:OperatingIncomeLoss, p."
               in r.get("backed_by", "") for r in rows)
    # another metric's words, or a chunk the facts are not printed in, back nothing
    wrong = "NVIDIA's net income was $4,224 million in FY2023 [1]."
    assert faithfulness(EvalSample("q", wrong, contexts, figures=[result]), judge).value == 0.0
    elsewhere = [Piece(id="other-chunk", text="Item 1A. Competition is intense.")]
    assert faithfulness(EvalSample("q", text, elsewhere, figures=[result]),
                        judge).value < 1.0


def test_the_llm_judge_is_overruled_for_a_figure_line_its_fact_backs(real, tmp_path):
    from core.llm.factory import make_chat_model
    from testkit.fakes.fixtures import llm_settings
    from testkit.fakes.openai_server import Behaviour, FakeOpenAIServer

    result, text, contexts = _figure_answer(real)
    strict = {"statements": [{"statement": "NVIDIA's operating margin was 15.66% in FY2023.",
                              "supported": False, "reason": "15.66% is not printed",
                              "figures": ["15.66%"], "cited": [1]}]}
    with FakeOpenAIServer() as server:
        settings = llm_settings(server, tmp_path)
        server.enqueue(Behaviour.json(strict))
        judge = Judge(settings, None, make_chat_model(settings))
        score = faithfulness(EvalSample("q", text, contexts, figures=[result]), judge)
    assert score.judge.startswith("llm") and score.value == 1.0
    assert score.details["statements"][0]["reason"].startswith("backed by the fact it cites")


# --- through the runner ---------------------------------------------------------------------

def test_a_run_record_is_scored_for_its_verdict_and_figures(real, settings):
    store, metas, chunks = real
    compare = operating_margin_comparison(store, metas)
    cited = list(dict.fromkeys(c for r in compare.rows for c in r.chunk_ids))
    evidence = [Evidence(id=c, kind="chunk", text=chunks[c].text) for c in cited]
    answer = Answer(text=compare.lead.replace("fiscal 2025.", "fiscal 2025 [1][2]."),
                    evidence=evidence, analyses=[compare])
    record = type("R", (), {"answer": answer, "evidence": evidence})()
    q = EvalQuestion(question=Q, verdict="NVIDIA", figures={"NVIDIA": 15.66, "AMD": 10.66},
                     tags=["compare"])
    judge = Judge(settings, None, None)
    scores = score_record(q, record, [], judge)
    assert scores["verdict_correct"].value == 1.0
    assert scores["verdict_correct"].details["run_verdict"] == "NVIDIA"
    assert scores["figures_correct"].value == 1.0
    assert scores["faithfulness"].value == 1.0  # the verdict line, backed by both facts
    plain = score_record(EvalQuestion(question="Revenue?"), record, [], judge)
    assert plain["verdict_correct"].value is None and plain["figures_correct"].value is None
    # the summary averages them beside numeric correctness
    manifest = EvalManifest(id="e", set_name="s", set_sha="x", created="t", judge="offline",
                            backend="offline engine", embedder="none", n_questions=1,
                            systems=["deep"], strategies=[])
    result = QuestionResult(question_id="q", system="deep", fingerprint="f", question=Q,
                            metrics=scores)
    row = summarise(manifest, [result], []).systems["deep"]
    assert row["verdict_correct"] == 1.0 and row["figures_correct"] == 1.0


def test_old_results_keep_their_fingerprint(settings):
    import hashlib

    from core.evaluation.runner import FINGERPRINT_SETTINGS

    q = EvalQuestion(id="x", question="Revenue?", ground_truth="$1")
    judge = Judge(Settings(_env_file=None), None, None)
    old = {k: v for k, v in q.model_dump().items() if k not in ("verdict", "figures")}
    parts = {"q": old, "system": "deep", "corpus": ["d"], "judge": judge.label,
             "judge_embedder": None, "backend": "offline engine",
             "settings": {k: str(getattr(settings, k)) for k in FINGERPRINT_SETTINGS}}
    before = hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:24]
    assert fingerprint(q, "deep", ["d"], judge, "offline engine", settings) == before


def test_a_work_line_is_backed_by_its_inputs_names_and_its_formula_s_constants(real, settings):
    """The analysis answer's bullets name a computed figure by its work ("operating income
    / revenue = ..."), and repeat its formula's constants ("... - 1")."""
    store, metas, chunks = real
    nvda = metas[0]
    growth = margin(store, nvda.doc_id, nvda.company, "FY2023", metric="revenue_growth")
    om = margin(store, nvda.doc_id, nvda.company, "FY2023")
    chunk = growth.inputs[0].fact.chunk_id
    text = ("- NVIDIA, fiscal 2023 (ended 2023-01-29): 0.2%; revenue FY2023 / revenue FY2022 "
            "- 1 = 26,974 / 26,914 - 1 (USD millions) [1]\n"
            "- NVIDIA, fiscal 2023 (ended 2023-01-29): 15.7%; operating income FY2023 / "
            "revenue FY2023 = 4,224 / 26,974 (USD millions) [1]")
    contexts = [Piece(id=chunk, text=chunks[chunk].text)]
    judge = Judge(settings, None, None)
    score = faithfulness(EvalSample("q", text, contexts, figures=[growth, om]), judge)
    assert score.value == 1.0, score.details
    wrong = text.replace("- 1 = 26,974 / 26,914 - 1", "- 2 = 26,974 / 26,914 - 2")
    assert faithfulness(EvalSample("q", wrong, contexts, figures=[growth, om]),
                        judge).value == 0.5  # 2 is no constant of the formula
