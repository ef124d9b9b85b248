"""Issue 37 item 12: the offline engine's text answers read as answers, on real 10-Ks.

Questions are generated from slots (companies, topics, wordings, one or two parts, with and
without recent news) and run end to end by the offline engine over the session's ingested
NVIDIA and AMD 10-Ks and the bundled demo web snapshot. Every answer must: open each part
with a sentence saying what the filings say; introduce every quote by its speaker (no
unattributed "we"); quote whole sentences only (none cut mid-way, none ending in ":"); say
nothing twice; keep the "partly answered" note out of the list; and label demo web articles
as such, never citing them in an opening sentence.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from core.agent.roles.quotable import same_quote
from core.agent.roles.speakers import DEMO_LABEL
from core.agent.roles.synthesize import DEMO_LEAD
from core.foundation.config import Settings

pytestmark = pytest.mark.slow
SNAPSHOT = Path(__file__).resolve().parent.parent / "data" / "web_snapshot"
FILINGS = ("nvda-10k-fy2023.html", "amd-10k-fy2025.htm")
COMPANIES = ("NVIDIA", "AMD")
TOPICS = ("competition", "their supply chain", "export controls", "research and development",
          "their customers", "manufacturing")
ONE = ("What does {c} say about {t}?", "How does {c} describe {t}?",
       "What risks does {c} state about {t}?")
TWO = ("What do {c1} and {c2} say about {t1}, and how do they describe {t2}?",
       "How do {c1} and {c2} describe {t1}, and what do they say about {t2}?")
NEWS = ("Based on {c1}'s 10-K, what does it say about {t1}? Then find recent news (from 2024) "
        "about {c2}'s AI chip strategy.")


def questions() -> list[str]:
    """A spread of generated questions (deterministic: every slot value appears)."""
    out = [ONE[k % len(ONE)].format(c=c, t=t)
           for k, (c, t) in enumerate(itertools.product(COMPANIES, TOPICS[:3]))]
    pairs = list(itertools.permutations(COMPANIES))
    out += [TWO[k % len(TWO)].format(c1=a, c2=b, t1=TOPICS[k + 2], t2=TOPICS[k + 3])
            for k, (a, b) in enumerate(pairs)]
    out += [NEWS.format(c1=a, c2=b, t1=TOPICS[k]) for k, (a, b) in enumerate(pairs)]
    return out


@pytest.fixture(scope="module")
def service(tmp_path_factory, ingested_store):
    from core.agent.deps import CorpusInfo
    from core.app.research import ResearchService
    from core.retrieval.rerank import get_reranker
    from core.retrieval.retriever import Retriever
    from core.retrieval.web import SnapshotWebSearch
    from core.store.corpus_store import CorpusStore
    from testkit.fakes.embedder import HashEmbedder

    dest = ingested_store(tmp_path_factory.mktemp("brief") / "store", *FILINGS)
    settings = Settings(data_dir=dest, snapshot_dir=SNAPSHOT, cache_enabled=False,
                        _env_file=None)
    embedder = HashEmbedder()
    store = CorpusStore(settings, embedder)
    retriever = Retriever(store, embedder, get_reranker(settings, embedder, store), settings)
    yield ResearchService(settings, retriever, SnapshotWebSearch(SNAPSHOT), None,
                          CorpusInfo.from_store(store), embedder=embedder, store=store)
    store.close()


QUOTE = re.compile(r"“(.+?)”\s*\[\d+\]")
SPEAKER = re.compile(r"^(?:- )?(?P<who>[^“:]+?)(?::| says| reports) ")


DANGLING = re.compile(r"(?<![\w-])(?:from|to|of|and|or|the|by|with|including|such as|U\.S)"
                      r"\W*$", re.IGNORECASE)


def whole_sentence(quote: str, inline: bool) -> bool:
    """Rules of its own (not the code's): it opens like a sentence (a capital or a figure
    after any bullet or bracket), and ends like one: a full stop, "!" or "?" (a quote inside
    the opening sentence has its full stop dropped, so there: no colon, comma or dangling
    word at the end)."""
    start = re.sub(r"^[\W_]+", "", quote)[:1]
    if not start or start.islower():
        return False
    end = quote.rstrip()
    if end.rstrip(".").endswith((":", ",", ";")) or DANGLING.search(end.rstrip(".")):
        return False
    return inline or end.endswith((".", "!", "?"))


def paragraphs(text: str) -> list[list[str]]:
    return [[ln for ln in p.splitlines() if ln.strip()] for p in re.split(r"\n\s*\n", text)]


def body(text: str) -> str:
    """The answer without its closing banner and reading line."""
    return text.split("\n\nExtractive brief (offline engine)")[0]


@pytest.mark.parametrize("question", questions())
def test_a_generated_text_question_gets_a_readable_brief(service, question):
    record = service.ask(question)
    answer = record.answer
    assert answer is not None and answer.source == "offline", record.error
    text = body(answer.text)
    evidence = {n: ev for n, ev in enumerate(answer.evidence, start=1)}
    known = {"NVIDIA", "AMD", "Nvidia", "Advanced Micro Devices"}
    quotes: list[str] = []
    for para in paragraphs(text):
        cited = [ln for ln in para if re.search(r"\[\d+\]", ln)]
        if not any("“" in ln for ln in cited) or para[0].startswith(("I could not",
                                                                      "Only weak evidence")):
            continue  # no quote: a figure's paragraph (the figure engine's), or the gaps
        demo = para[0] == DEMO_LEAD or (len(para) > 1 and para[1] == DEMO_LEAD)
        lead = next(ln for ln in para if re.search(r"\[\d+\]", ln))
        if not demo and not lead.startswith("- "):  # the part opens with what the filing says
            assert re.match(r"^[A-Z][^“]* (?:says|reports) ", lead), lead
        for line in cited:
            who = SPEAKER.match(line)
            assert who, f"a quote with no speaker: {line}"
            tag = who.group("who").strip()
            marks = [int(n) for n in re.findall(r"\[(\d+)\]", line)]
            web = [evidence[n] for n in marks if n in evidence and evidence[n].kind == "web"]
            if web:
                assert demo and DEMO_LABEL in line, f"a demo article said as fact: {line}"
            elif "could not quote" not in line:
                assert any(tag.startswith(k) or k in tag for k in known), tag
            for q in QUOTE.findall(line):
                quotes.append(q)
                assert whole_sentence(q, inline=not line.startswith("- ")), q
                assert "from:." not in line, line
    # no "we" outside a quote: every first person is someone's words
    outside = QUOTE.sub("", text)
    assert not re.search(r"(?<![\w-])(?:we|our|us)(?![\w-])", outside, re.IGNORECASE), outside
    for a, b in itertools.combinations(quotes, 2):
        assert not same_quote(a, b), (a, b)
    for para in paragraphs(text):  # the partly-answered note stands alone, after its list
        for line in para:
            if "partly answered" in line.lower():
                assert len(para) == 1 and not line.startswith("- "), para


def test_the_generated_questions_cover_every_slot():
    asked = " ".join(questions())
    assert all(c in asked for c in COMPANIES) and all(t in asked for t in TOPICS[:5])
    assert len(questions()) == len(set(questions())) >= 8


# --- the same rules on records built from slots (no corpus needed) ------------------------

SENTENCES = {
    "NVIDIA": "We expect competition to increase from both existing competitors and new "
              "market entrants.",
    "AMD": "Competition is expected to remain intense, driven by rapid technological change "
           "and lower channel sell-in.",  # a hyphenated last word: no dangling "in"
    "Adobe": "We participate in a rapidly evolving, highly competitive global environment.",
}
ARTICLE = "AMD said its data center GPU sales would exceed $3.5 billion in 2024."


def _slot_records(companies: list[str], coverage: str, with_news: bool):
    from core.agent.deps import CorpusInfo
    from core.agent.state import Evidence, StepRecord
    from core.foundation.types import DocumentMeta

    docs = [DocumentMeta(doc_id=f"d{k}", file_name=f"{c.lower()}.htm",
                         company=f"{c.upper()} CORP", form_type="10-K", period="FY2024")
            for k, c in enumerate(companies)]
    context = "\n".join(f"- {SENTENCES[c]} [d{k}-1]" for k, c in enumerate(companies))
    context += "\n" + "\n".join(f"- suppliers of GPUs, such as {c} and others; [d{k}-1]"
                                for k, c in enumerate(companies))  # a list item: a fragment
    ids = [f"d{k}-1" for k in range(len(companies))]
    ev = {k + 1: Evidence(id=i, kind="chunk", text=SENTENCES[c], doc_id=f"d{k}",
                          label=f"{c.upper()} CORP 10-K FY2024 — Item 1A, p. 9")
          for k, (i, c) in enumerate(zip(ids, companies, strict=True))}
    recs = [StepRecord(step=0, sub_question=f"What do {' and '.join(companies)} say about "
                       "competition?", tool="filing_search", query="q", evidence_ids=ids,
                       coverage=coverage, context=context)]
    if with_news:
        url = "https://www.reuters.com/amd-outlook"
        ev[len(ev) + 1] = Evidence(id=url, kind="web", text=ARTICLE, url=url, date="2024-01-30",
                                   label="AMD lifts its outlook (Reuters · demo article, "
                                         "2024-01-30)")
        recs.append(StepRecord(step=1, sub_question="Find recent news (from 2024) about AMD's AI "
                               "chip strategy.", tool="web_search", query="q",
                               evidence_ids=[url], coverage="answered",
                               context=f"- {ARTICLE} [{url}]"))
    return recs, ev, CorpusInfo(documents=docs)


@pytest.mark.parametrize("companies", [["NVIDIA"], ["NVIDIA", "AMD"], ["AMD", "Adobe"],
                                       ["Adobe", "NVIDIA", "AMD"]])
@pytest.mark.parametrize("coverage", ["answered", "partial"])
@pytest.mark.parametrize("with_news", [False, True])
def test_slot_records_give_an_opening_speakers_and_the_notes_in_place(companies, coverage,
                                                                      with_news):
    from core.agent.roles.synthesize import offline_answer

    recs, ev, corpus = _slot_records(companies, coverage, with_news)
    question = " ".join(r.sub_question for r in recs)
    text, not_found = offline_answer(question, recs, ev, None, corpus)
    paras = paragraphs(body(text))
    first = paras[0][1] if with_news else paras[0][0]  # several parts: under their heading
    said = [f"{c} says “{SENTENCES[c].rstrip('.')}” [{k + 1}]" for k, c in enumerate(companies)]
    assert first == "; ".join(said) + ".", first  # one sentence: what each company says
    assert "suppliers of GPUs" not in text  # the list item is no sentence
    notes = [p for p in paras if p[0].startswith("Partly answered")]
    if coverage == "partial":
        assert len(notes) == 1 and len(notes[0]) == 1  # its own paragraph, after the list
        assert paras.index(notes[0]) == 1
    else:
        assert notes == []
    demo = [p for p in paras if DEMO_LEAD in p]
    if with_news:
        assert len(demo) == 1 and demo[0][-1] == (f"- Reuters, 2024-01-30 ({DEMO_LABEL}): "
                                                  f"“{ARTICLE}” [{len(ev)}]")
        assert ARTICLE not in " ".join(ln for p in paras if p not in demo for ln in p)
    else:
        assert demo == [] and not_found == []


@pytest.mark.parametrize(("company", "items"), [
    ("Alphabet", ["general purpose search engines", "online advertising platforms",
                  "providers of enterprise cloud services"]),
    ("Adobe", ["large multinational software enterprises", "smaller specialised vendors"]),
])
def test_a_list_introduction_is_quoted_with_its_items(company, items):
    from core.agent.deps import CorpusInfo
    from core.agent.roles.synthesize import offline_answer
    from core.agent.state import Evidence, StepRecord
    from core.foundation.types import DocumentMeta

    intro = "We face formidable competition in every aspect of our business, including from:"
    chunk = "\n".join(["Competition", intro, *(f"•{item};" for item in items),
                       "Our business is characterized by rapid change."])
    ev = {1: Evidence(id="d0-1", kind="chunk", text=chunk, doc_id="d0", label="10-K")}
    rec = StepRecord(step=0, sub_question=f"How does {company} describe its competition?",
                     tool="filing_search", query="q", evidence_ids=["d0-1"],
                     coverage="answered", context=f"- {intro} [d0-1]")
    corpus = CorpusInfo(documents=[DocumentMeta(doc_id="d0", file_name="x.htm",
                                                company=f"{company.upper()} INC.")])
    text, _ = offline_answer(rec.sub_question, [rec], ev, None, corpus)
    lead = body(text)
    assert lead == f"{company} says “{intro} {'; '.join(items)}” [1].", lead
