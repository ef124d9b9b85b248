"""The typed reading (core.reading) on the fictional filers of tests/test_analysis (Acme
Corp, Birch Inc., Cobalt Ltd; tickers added here): company forms, measure words, kinds and
directions generated from slots (never one example per rule), the reading's slots edited
into a plan with no sentence between, and the reading said on one line."""

from __future__ import annotations

import itertools

import pytest

from core.analysis.combine import answer_analysis
from core.analysis.question import AnalysisPlan
from core.figures.compute import answer_figure
from core.foundation.types import DocumentMeta
from core.reading import normalise, read_question
from core.reading.companies import resolve_companies
from core.reading.edit import LATEST, company_choices, edited_reading
from core.reading.lexicon import lexicon
from core.reading.model import Reading
from core.reading.requests import plan_from_reading
from tests.test_analysis import ACME, BIRCH, COBALT, FACTS
from tests.test_figures_compute import FactStore

DOCS = [DocumentMeta(doc_id=ACME, file_name="acme-10k-2024.htm", company="ACME CORP",
                     form_type="10-K", period="FY2024", period_end="2024-12-31", ticker="ACM"),
        DocumentMeta(doc_id=BIRCH, file_name="birch-10k-2025.htm", company="Birch Inc.",
                     form_type="10-K", period="FY2025", period_end="2025-06-30",
                     ticker="BRCH"),
        DocumentMeta(doc_id=COBALT, file_name="cobalt-10k-2024.htm", company="COBALT LTD",
                     form_type="10-K", period="FY2024", period_end="2024-12-31",
                     ticker="CBLT")]
STORE = FactStore(FACTS, DOCS)
NAMES = {"ACME CORP": ("Acme", "ACM"), "Birch Inc.": ("Birch", "BRCH")}


def forms(short: str, ticker: str) -> dict[str, str]:
    """Every way the slot grammar writes a company: name, lower and upper case, ticker in
    both cases, and (names of five letters or more) a deletion and a transposition."""
    out = {"name": short, "lower": short.lower(), "upper": short.upper(), "ticker": ticker,
           "ticker-lower": ticker.lower()}
    if len(short) >= 5:
        out["typo-deletion"] = short[:2] + short[3:]
        out["typo-swap"] = short[:2] + short[3] + short[2] + short[4:]
    return out


def _read(question: str):
    return read_question(question, DOCS, STORE)


@pytest.mark.parametrize("company", list(NAMES))
def test_every_form_of_a_company_resolves_to_its_filer_and_the_reading_says_how(company):
    short, ticker = NAMES[company]
    for how, words in forms(short, ticker).items():
        text, matches = resolve_companies(f"What was {words}'s revenue in FY2024?", DOCS,
                                          STORE)
        reading, _, request = _read(f"What was {words}'s revenue in FY2024?")
        assert request is not None and request.companies == [company], (how, words, text)
        assert reading.companies[0].name == company
        said = [m for m in matches if m.words.lower() == words.lower()]
        if how not in ("name", "lower", "upper"):  # a change of case alone is not said
            assert said and said[0].read_as == company, (how, words, matches)
        if how.startswith("typo"):
            assert said[0].how == "a typo"


def test_common_words_and_measures_are_never_companies():
    for word in sorted(lexicon().common)[:60] + ["revenue", "margin", "operating"]:
        text, matches = resolve_companies(f"Which {word} was higher in FY2024?", DOCS, STORE)
        assert matches == [], (word, matches)


def test_a_word_as_near_to_two_filers_is_not_guessed():
    docs = DOCS + [DocumentMeta(doc_id="borch", file_name="borch-10k.htm", company="BORCH INC",
                                form_type="10-K", period="FY2024", period_end="2024-12-31")]
    _, matches = resolve_companies("What was Bxrch's revenue?", docs, None)
    assert matches == []  # one edit from Birch and from Borch


MEASURES = {"operating margin": ["operating margin", "op margin", "Op Margin",
                                 "operating margins", "OP MARGIN"],
            "net margin": ["net margin", "net margins", "Net Margin"],
            "operating income": ["operating income", "op income", "loss from operations",
                                 "operating result"]}


@pytest.mark.parametrize("name", list(MEASURES))
def test_measure_words_read_as_the_catalogue_names(name):
    for words in MEASURES[name]:
        text, _ = normalise(f"What was Acme's {words} in FY2024?", DOCS, STORE)
        assert f"acme's {name} in fy2024" in text.lower(), (words, text)


def test_a_catalogue_name_is_never_rewritten_inside_a_longer_one():
    text, _ = normalise("What was Acme's net income margin in FY2024?", DOCS, STORE)
    assert "net income margin" in text


ORDERS = ["Which had the higher {m}{p}, {a} or {b}?", "{a} or {b}: which had the higher {m}{p}?",
          "Whose {m} was higher{p}, {a} or {b}?", "Compare {a} and {b} by {m}{p}: which is higher?"]
PERIODS = {"none": "", "FY": " in FY2024", "fiscal": " in fiscal 2024"}


def test_comparisons_in_every_order_form_and_period_name_the_winner_first():
    # Acme FY2024 operating margin 25.0%; Birch FY2025 15.0%, FY2024 15.7%
    seen = 0
    for order, p, fa, fb in itertools.product(
            ORDERS, PERIODS.values(), forms("Acme", "ACM").values(),
            list(forms("Birch", "BRCH").values())[:4]):
        q = order.format(m="op margin", p=p, a=fa, b=fb)
        reading, plan, _ = _read(q)
        assert plan is not None and reading.kind == "compare", q
        result = answer_analysis(plan, STORE)
        assert result.rows[0].company == "ACME CORP", (q, result.lead)
        assert result.lead.startswith(f"{result.rows[0].label} had the higher operating "
                                      "margin: 25.0%"), (q, result.lead)
        seen += 1
    assert seen == len(ORDERS) * len(PERIODS) * 5 * 4


DIFFERENCES = ["By how many points did {a}'s {m} exceed {b}'s?",
               "How much higher was {a}'s {m} than {b}'s?",
               "What is the gap between {a}'s and {b}'s {m}?",
               "{a} vs {b} {m}: by how much do they differ?"]


@pytest.mark.parametrize("template", DIFFERENCES)
def test_a_difference_states_the_gap_first(template):
    for a, b in (("Acme", "Birch"), ("birch", "ACM")):
        q = template.format(a=a, b=b, m="op margin")
        reading, plan, _ = _read(q)
        assert plan is not None and reading.kind == "difference", q
        result = answer_analysis(plan, STORE)
        hi, lo = sorted(result.rows, key=lambda r: -r.value)  # rows keep the order asked
        first, second = hi.label, lo.label
        assert hi.company == "ACME CORP", (q, result.lead)
        assert result.lead.startswith(f"{first}'s operating margin was 10.0 points higher "
                                      f"than {second}'s"), (q, result.lead)


ASCENDING = ["weakest first", "lowest first", "from lowest to highest", "worst to best",
             "in ascending order", "smallest first"]
DESCENDING = ["strongest first", "highest first", "from highest to lowest", "best to worst"]


def test_a_ranking_follows_the_direction_words():
    for words, first in [(w, "lowest") for w in ASCENDING] + [(w, "highest") for w in
                                                               DESCENDING]:
        for verb in ("Rank", "Order", "Sort"):
            q = f"{verb} Acme and Birch by net margin, {words}"
            reading, plan, _ = _read(q)
            assert plan is not None and reading.kind in ("rank", "compare"), q
            lead = answer_analysis(plan, STORE).lead
            # Acme 18.0%, Birch FY2025 13.0%
            want = "Birch" if first == "lowest" else "Acme"
            assert plan.spec.direction == ("lower" if first == "lowest" else "higher"), q
            assert lead.split(":")[1].strip().startswith(want) or lead.startswith(want), \
                (q, lead)


def test_the_largest_loss_is_the_lowest_result():
    for words in ("the largest operating loss", "the biggest operating loss",
                  "the deepest operating loss", "a larger operating loss"):
        reading, plan, _ = _read(f"Which had {words} in FY2024, Acme or Birch?")
        assert plan is not None and plan.spec.direction == "lower", words
        assert answer_analysis(plan, STORE).verdict == "Acme"  # 250 against Birch's 330


def test_a_change_in_each_year_checks_every_step():
    # Acme operating margin: 30.0% (2022), 22.2% (2023), 25.0% (2024): rose last year only
    for words in ("in each of the last three years", "every year", "year after year",
                  "for three straight years"):
        for verb in ("rise", "improve", "increase"):
            q = f"Did Acme's operating margin {verb} {words}?"
            reading, plan, _ = _read(q)
            assert reading.kind == "trend" and plan.spec.each, q
            result = answer_analysis(plan, STORE)
            assert result.verdict == "No", (q, result.lead)
            assert result.lead.startswith("No. Acme's operating margin fell from 30.0% in "
                                          "fiscal 2022 to 22.2% in fiscal 2023"), result.lead
    reading, plan, _ = _read("Did Acme's revenue grow in each of the last three years?")
    assert answer_analysis(plan, STORE).lead.startswith(
        "Yes. Acme's revenue rose every year: $800 million in fiscal 2022")


def test_the_reading_is_said_on_one_line_with_every_match():
    reading, _, _ = _read("whose op margin was higher, acm or brch?")
    line = reading.summary()
    assert line.startswith("Read as: which is higher · operating margin · ACME CORP ")
    assert "'acm' as ACME CORP (its ticker)" in line and "'op margin' as operating margin" in line
    text, _, _ = _read("Why did Acme's margin fall?")
    assert text.kind == "text" and not text.figures


def test_a_reading_survives_a_checkpoint_as_a_dict():
    from core.reading.model import as_reading

    reading, _, _ = _read("Which had the higher net margin, Acme or Birch?")
    assert as_reading(reading.model_dump(mode="json")) == reading
    assert as_reading(None) is None and as_reading({"kind": "nonsense"}) is None


def _answer(reading: Reading):
    made = plan_from_reading(reading, DOCS)
    if isinstance(made, AnalysisPlan):
        return answer_analysis(made, STORE).lead
    return answer_figure(made, STORE).display if made is not None else None


def test_every_slot_edited_makes_the_plan_again_from_the_slots():
    reading, _, _ = _read("Which had the higher operating margin, Acme or Birch?")
    choices = company_choices(DOCS)
    both = [choices["ACME CORP"], choices["Birch Inc."]]

    def edit(**kw):
        base = dict(kind="compare", companies=both, metric="operating_margin", period=LATEST,
                    direction="higher", test=None, threshold=None)
        return edited_reading(reading, **{**base, **kw})

    assert _answer(edit()).startswith("Acme had the higher operating margin: 25.0%")
    assert _answer(edit(direction="lower")).startswith("Birch had the lower operating margin")
    assert _answer(edit(metric="net_margin")).startswith(
        "Acme had the higher net profit margin: 18.0%")  # the catalogue's label
    assert _answer(edit(kind="difference")).startswith(
        "Acme's operating margin was 10.0 points higher than Birch's")
    assert _answer(edit(period="FY2024")).endswith("against Birch's 15.7% in fiscal 2024.")
    assert _answer(edit(kind="growth_compare", metric="revenue")).startswith(
        "Acme had the higher revenue growth: 11.1%")  # 900 -> 1000; Birch 2100 -> 2000
    assert _answer(edit(kind="verdict", test="above", threshold=20.0,
                        companies=both[:1])).startswith("Yes. Acme's operating margin")
    assert _answer(edit(kind="trend", test="grew", metric="revenue",
                        companies=both[:1])).startswith("Yes. Acme's revenue rose every year")
    assert _answer(edit(kind="figure", companies=both[1:])) == "15.0%"
    edited = edit(kind="rank", direction="lower")
    assert edited.source == "analyst" and _answer(edited).startswith(
        "By operating margin, lowest first: Birch")
    assert plan_from_reading(edit(companies=[]), DOCS) is None
    assert plan_from_reading(edit(metric="not_a_metric"), DOCS) is None
    assert "corrected at review" in edit().summary()


WHO = ["Which company had the {s} {m}?", "Who had the {s} {m} in FY2024?",
       "which had the {s} {m}", "Whose {m} was the {s}?"]


def test_a_superlative_with_no_company_named_asks_among_every_company_loaded():
    for template, (s, want) in itertools.product(WHO, (("highest", "Acme"),
                                                       ("lowest", "Birch"))):
        q = template.format(s=s, m="net margin")
        reading, plan, _ = _read(q)
        assert plan is not None and len(reading.companies) == 3, q  # Cobalt: no margin
        result = answer_analysis(plan, STORE)
        assert result.rows[0].company.lower().startswith(want.lower()), (q, result.lead)
    _, plan, _ = _read("Which of its segments had the largest revenue?")
    assert plan is None  # "its": no company to read the segments of, never every company


def test_growth_compared_in_other_words_compares_growth_not_size():
    # revenue growth: Acme 900 -> 1000 (+11.1%); Birch 2100 -> 2000 (-4.8%); Birch is larger
    for words in ("Who grew revenue the fastest?", "whose sales grew more, acm or brch?",
                  "Which grew its revenue faster, Acme or Birch?",
                  "Which of Acme and Birch had faster-growing revenue?"):
        reading, plan, _ = _read(words)
        assert reading.kind == "growth_compare", (words, reading.kind)
        result = answer_analysis(plan, STORE)
        assert result.rows[0].company == "ACME CORP" and "11.1%" in result.lead, \
            (words, result.lead)


def test_a_figure_asked_of_no_company_is_given_for_each_and_never_one_for_all():
    reading, plan, request = _read("What was net income in FY2024?")
    assert request is None and plan is not None and plan.spec.kind == "multi"
    result = answer_analysis(plan, STORE)
    assert "Acme's net income in fiscal 2024 was $180 million" in result.lead
    assert "Birch's net income in fiscal 2024 was $240 million" in result.lead
    assert "no company named: every company loaded" in reading.summary()
    reading, _, _ = _read("Did net income increase?")
    assert reading.not_answered().startswith("Not answered: the yes / no: the question "
                                             "names no company")
    one = [d for d in DOCS if d.doc_id == ACME]
    _, plan, request = read_question("What was net income in FY2024?", one, STORE)
    assert plan is None and request is not None  # one company loaded: its figure


def test_several_measures_of_several_companies_are_one_comparison_each():
    from core.reading import read_plans

    for words in ("operating and net margins", "operating margin and net margin",
                  "op margin and net margin"):
        reading, plans, _ = read_plans(f"Compare Acme and Birch on {words}", DOCS, STORE)
        assert [p.requests[0].metric for p in plans] == ["operating_margin", "net_margin"], words
        assert [m.metric for m in reading.measures] == ["operating_margin", "net_margin"]
        leads = [answer_analysis(p, STORE).lead for p in plans]
        assert leads[0].startswith("Acme had the higher operating margin: 25.0%")
        assert leads[1].startswith("Acme had the higher net profit margin: 18.0%")


SHARES = ["{x} as a share of {c} revenue?", "How big a slice of {c}'s revenue is {x}?",
          "What portion of {c}'s revenue came from {x}?", "{x} as a percentage of {c}'s sales"]


def test_a_share_in_other_words_is_a_percent():
    # Acme: R&D 90 of revenue 1,000 in FY2024
    for template in SHARES:
        q = template.format(x="R&D", c="Acme")
        reading, plan, request = _read(q)
        assert request is not None and request.unit == "percent", (q, reading)
        assert answer_figure(request, STORE).display == "9.0%", q


def test_registry_names_with_their_suffix_and_lower_case_names_read_as_the_filer():
    docs = DOCS + [DocumentMeta(doc_id="hd", file_name="hd-10k.htm", company="HOME WARES, INC.",
                                form_type="10-K", period="FY2024", period_end="2024-12-31",
                                ticker="HW")]
    for words in ("ACME CORP's", "Acme Corp.'s", "acme corp's", "ACME, CORP.'s"):
        text, _ = resolve_companies(f"What was {words} revenue in FY2024?", docs, STORE)
        assert "Acme's revenue" in text, (words, text)
    text, _ = resolve_companies("HOME WARES, INC.'s revenue", docs, STORE)
    assert text.startswith("Home Wares's revenue") or text.startswith("Home Wares' revenue"), text
    # a filer's first word inside another proper name ("X & Home ...") is not the filer; a
    # capitalised word after a filer's first word proves nothing ("Amazon Web Services")
    for words in ("What share of Acme's revenue is Garden & Home Care?",
                  "What share of Acme's revenue is fabric & home care?"):
        text, matches = resolve_companies(words, docs, STORE)
        assert not any(m.read_as == "HOME WARES, INC." for m in matches), (words, matches)
        from core.retrieval.scope import match_companies

        assert [s for s, _ in match_companies(text, docs).values()] == ["ACME CORP"], text


SLOWER = ["Whose revenue grew more slowly, Acme or Birch?", "Did Acme or Birch grow its "
          "revenue slower?", "Which grew its revenue less quickly, Acme or Birch?"]


def test_slower_growth_is_the_lower_growth_and_an_either_or_is_no_yes_no():
    for q in SLOWER:
        reading, plan, _ = _read(q)
        result = answer_analysis(plan, STORE)
        assert plan.spec.kind == "compare" and plan.spec.direction == "lower", q
        assert result.rows[0].company == "Birch Inc.", (q, result.lead)  # -4.8% vs +11.1%
        assert not result.lead.startswith(("Yes", "No")), (q, result.lead)


def test_two_measures_related_by_above_or_below():
    # Acme FY2024: net margin 18.0%, operating margin 25.0%
    for q, verdict in (("Was Acme's net margin above its op margin?", "No"),
                       ("Was Acme's net margin below its operating margin?", "Yes"),
                       ("Was Acme's op margin over its net margin in FY2024?", "Yes")):
        _, plan, _ = _read(q)
        assert plan is not None and plan.spec.test in ("more", "less"), q
        assert answer_analysis(plan, STORE).verdict == verdict, q


def test_segment_steps_are_never_merged_as_repeats_and_labels_never_shift():
    from core.agent.roles.plan_rules import dedupe_steps
    from core.agent.state import PlanStep
    from core.analysis.combine import analyze
    from core.analysis.model import AnalysisSpec
    from core.figures.model import FigureRequest, FigureResult

    steps = [PlanStep(sub_question=f"What was Acme's {m} revenue in FY2024?",
                      tool="figure_lookup", metric="revenue", periods=["FY2024"],
                      doc_ids=["acme24"], member=m)
             for m in ("North America", "Latin America", "South America")]
    kept, notes = dedupe_steps(steps)
    assert len(kept) == 3 and notes == []
    # a spec whose labels do not match its inputs names each figure by its own segment
    figs = [FigureResult(request=FigureRequest(name="revenue", formula="revenue[FY2024]",
                                               periods=["FY2024"], member=m,
                                               companies=["ACME CORP"]), value=v,
                         unit="USD millions", display=f"${v:,.0f} million")
            for m, v in (("North America", 300.0), ("Latin America", 200.0))]
    spec = AnalysisSpec(kind="compare", name="revenue",
                        labels=["Europe", "North America", "Latin America"])
    result = analyze(spec, figs, ["Acme", "Acme"])
    assert [r.label for r in result.rows] == ["North America", "Latin America"]
    assert result.verdict == "North America"


def test_a_company_named_with_a_comparison_word_never_sets_the_direction():
    from core.agent.roles.analysis_check import contradiction
    from tests.test_figures_compute import fact

    best = [fact("best24", label, v, 2024, "income", end="2024-12-31", page=7)
            for label, v in (("Total revenue", 500), ("Operating income", 50))]
    docs = DOCS + [DocumentMeta(doc_id="best24", file_name="best-10k-2024.htm",
                                company="BEST WIDGETS INC", form_type="10-K",
                                period="FY2024", period_end="2024-12-31")]
    store = FactStore(FACTS + best, docs)
    for words, want in (("weaker", "Best Widgets"), ("lower", "Best Widgets"),
                        ("stronger", "Acme"), ("worse", "Best Widgets")):
        for order in ("Best Widgets or Acme: which had the {w} operating margin?",
                      "Which had the {w} operating margin, Acme or Best Widgets?"):
            q = order.format(w=words)
            _, plan, _ = read_question(q, docs, store)
            result = answer_analysis(plan, store)  # Acme 25.0%, Best Widgets 10.0%
            assert result.verdict == want, (q, result.lead)
            assert contradiction(result.lead, [result]) is None, (q, result.lead)


def test_a_margin_of_a_line_the_filer_never_prints_is_said_to_be_no_useful_metric():
    # Cobalt's filing prints no income statement at all; Acme prints no gross profit / COGS
    for q in ("What was Acme's gross margin in FY2024?",
              "Did Acme's gross margin improve in each of the last three years? If gross "
              "margin is not a useful metric for a company like this, state that."):
        _, plan, request = _read(q)
        if plan is not None:
            lead = answer_analysis(plan, STORE).lead
        else:
            lead = "; ".join(answer_figure(request, STORE).missing)
        assert "print no cost of goods sold line for any period" in lead, (q, lead)
        assert "not a useful metric for it as filed" in lead and lead.count("useful") == 1


def test_a_few_words_without_a_question_and_a_name_written_short():
    for words in ("acm op margin fy24", "Acme operating margin FY2024", "birch net income"):
        reading, plan, request = _read(words)
        assert request is not None and reading.kind == "figure", words
        assert reading.text.startswith("What was "), reading.text
    docs = DOCS + [DocumentMeta(doc_id="pc", file_name="pc-10k.htm", company="PEPSICOLA INC",
                                form_type="10-K", period="FY2024", period_end="2024-12-31")]
    text, matches = resolve_companies("rank acme, birch and pepsicol by net margin", docs,
                                      STORE)
    assert [m.how for m in matches if m.read_as == "PEPSICOLA INC"] == [
        "its name written short"], matches
    _, matches = resolve_companies("rank acme and pepsi by margin", docs, STORE)
    assert not [m for m in matches if m.read_as == "PEPSICOLA INC"]  # too short a part
    for words in ("acme risks", "Why did Acme's margin fall", "acme competition"):
        reading = _read(words)[0]
        assert reading.kind == "text" and not reading.text.startswith("What was"), words



def test_a_filer_first_word_before_another_capitalised_word_is_still_the_filer():
    from core.retrieval.scope import match_companies

    docs = DOCS + [DocumentMeta(doc_id="hw", file_name="hw-10k.htm", company="HOME WARES, INC.",
                                form_type="10-K", period="FY2024", period_end="2024-12-31")]
    for q in ("What was Home Wares' revenue?", "Home Web Services revenue in FY2024",
              "What drove Home's Garden Care revenue?"):
        assert "HOME WARES, INC." in {s for s, _ in match_companies(q, docs).values()}, q

