"""Compare tells answers apart: coverage per sub-question with its evidence, a sentence diff,
and the baseline's own index built once per filing (first-run setup, not answer time)."""

from __future__ import annotations

from core.agent.state import Answer, Citation, PlanStep
from core.app.compare import answer_diff, figures_stated, headings_of, sentences, verdicts
from core.app.compare_verdict import overall
from core.app.runs import RunRecord

PLAN = [PlanStep(sub_question="What are Acme's key competition risks?"),
        PlanStep(sub_question="What did AMD announce about AI accelerators in 2024?",
                 tool="web_search"),
        PlanStep(sub_question="How does Acme's supply chain depend on one foundry?")]


def _record(kind: str, text: str, labels: dict[int, str], plan=()) -> RunRecord:
    cites = [Citation(n=n, evidence_id=f"e{n}", kind="chunk", label=label)
             for n, label in labels.items()]
    return RunRecord(kind=kind, question="q", plan=list(plan),
                     answer=Answer(text=text, citations=cites))


DEEP = _record("deep", (
    "What are Acme's key competition risks?\n"
    "Acme faces intense competition risks from larger accelerator vendors. [1]\n"
    "AMD announced an annual AI accelerator roadmap in 2024. [2]\n"
    "(Offline engine: extractive answer quoting the evidence.)"),
    {1: "Acme 10-K — Item 1A", 2: "AMD press release"}, PLAN)
BASE = _record("baseline", (
    "Acme faces intense competition risks from larger accelerator vendors. [1] "
    "Revenue grew 35% in fiscal 2023. [2] The weather was fine."),
    {1: "Acme 10-K — Item 1A", 2: "Acme 10-K — Item 7"})


def test_each_sub_question_says_who_covers_it_and_with_which_evidence(hash_embedder):
    found = verdicts(DEEP, BASE, hash_embedder)
    assert [v.sub_question for v in found] == [s.sub_question for s in PLAN]
    risks, news, supply = found
    assert risks.deep.coverage == risks.baseline.coverage == "covered"
    assert risks.winner == "both" and risks.deep.sources == ["Acme 10-K — Item 1A"]
    assert news.deep.coverage == "covered" and news.baseline.coverage == "missing"
    assert news.winner == "deep" and news.deep.markers == [2]
    assert supply.winner == "neither"


def test_a_heading_that_repeats_the_sub_question_is_no_evidence(hash_embedder):
    heading_only = _record("deep", "What are Acme's key competition risks?\nNothing found.", {},
                           PLAN[:1])
    assert verdicts(heading_only, BASE, hash_embedder)[0].deep.coverage == "missing"


def test_the_diff_says_what_both_say_and_what_only_one_says(hash_embedder):
    lines = answer_diff(DEEP.answer.text, BASE.answer.text, hash_embedder)
    kinds = {(ln.kind, ln.text[:20]) for ln in lines}
    assert ("both", "Acme faces intense c") in kinds
    assert ("deep", "AMD announced an ann") in kinds
    assert ("baseline", "Revenue grew 35% in ") in kinds
    assert not any("Offline engine" in ln.text for ln in lines)
    assert [s.markers for s in sentences("A claim here [1][3]. Another one without.")] == [
        [1, 3], []]


OFFLINE_BRIEF = (
    "Extractive brief (offline engine): for each part of the question, the best line of each "
    "source found, quoted with its citation; no analysis across sources. Configure an LLM for "
    "an analytical synthesis.\n\n"
    "What are Acme's key competition risks.\n"
    "- Acme faces intense competition risks from larger accelerator vendors. [1]\n\n"
    "**Supply**:\n"
    "- Acme, Inc. relies on one foundry for 90% of its wafers. [2]\n\n"
    "Limit reached: max_revisions (2) reached: step 3 is left without usable evidence.")


def test_banners_notes_and_headings_are_not_claims():
    claims = [s.plain for s in sentences(OFFLINE_BRIEF, headings_of(DEEP))]
    assert claims == ["Acme faces intense competition risks from larger accelerator vendors.",
                      "Acme, Inc. relies on one foundry for 90% of its wafers."]
    lines = answer_diff(OFFLINE_BRIEF, "Configure an LLM for an analytical synthesis. "
                        "Acme faces intense competition risks from larger accelerator vendors. "
                        "[1]", None, headings_of(DEEP))
    assert not any("Configure an LLM" in ln.text or "Limit reached" in ln.text
                   or "Extractive brief" in ln.text for ln in lines), lines
    assert figures_stated("Revenue was $26,974 million in fiscal 2023, up 0.2% [3].") == [
        "$26,974 million", "0.2%"]


def test_the_comparison_ends_with_a_one_line_verdict_and_its_reasons(hash_embedder):
    found = verdicts(DEEP, BASE, hash_embedder)
    o = overall(DEEP, BASE, found)
    assert o.winner == "deep"  # covers 2 of 3 against 1; the baseline states a figure
    assert o.line.startswith("Verdict: the deep agent's answer is better — it covers 2 of 3")
    assert "states figures in 0 cited claim(s) (baseline 1)" in o.line
    assert len(o.reasons) == 3 and "\n" not in o.line
    same = overall(BASE, BASE, verdicts(BASE, BASE, hash_embedder))
    assert same.winner == "tie" and same.line.startswith("Verdict: neither answer")


def test_the_baseline_index_is_built_once_per_filing(settings, hash_embedder):
    import core.baseline.index as baseline_index
    from core.app.corpus import Corpus
    from core.baseline.rag import run_baseline

    corpus = Corpus(settings, embedder=hash_embedder)
    text = ("ACME Corp Form 10-K\n\nItem 1A. Risk Factors\n\n"
            + "Competition from larger rivals may reduce our margins. " * 80).encode()
    doc = corpus.ingest_bytes(text, "acme.txt").meta
    assert baseline_index.missing(settings, hash_embedder, [doc]) == [doc]
    seen = []
    assert baseline_index.prepare(corpus.store, hash_embedder, [doc], settings,
                                  lambda name, done, total: seen.append((done, total))) == 1
    assert seen and seen[-1][0] == seen[-1][1]
    assert baseline_index.missing(settings, hash_embedder, [doc]) == []
    other = corpus.ingest_bytes(text.replace(b"ACME", b"Zenith"), "zenith.txt").meta
    assert baseline_index.missing(settings, hash_embedder, [doc, other]) == [other]  # only new
    record = run_baseline("competition from rivals", settings=settings, store=corpus.store,
                          embedder=hash_embedder)
    assert record.answer is not None and record.evidence
    assert baseline_index.missing(settings, hash_embedder, [doc, other]) == []
    corpus.close()
