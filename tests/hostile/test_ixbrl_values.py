"""Inline-XBRL values as filers tag them (issue 32), read by ``core.ingest.facts.xbrl``:
properties over scale, sign, decimals, format, nil and the tag case a serialiser leaves,
on small documents built here. The fact's value is the printed number with its sign and
scale applied, its decimals and printed text kept; a nil fact (``xsi:nil="true"``: no
value reported) is no fact at all, never a 0 (main read it as 0.0, so an answer stated
"$0 million"); what cannot be read is left out, never guessed."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.ingest.facts.xbrl import read_xbrl
from tests.hostile.ixbrl_kit import document, grouped, nonfraction

SCALES = st.sampled_from([-6, -3, -2, 0, 3, 6, 9])
DECIMALS = st.one_of(st.integers(min_value=-9, max_value=6).map(str), st.just("INF"))
SIGNS = st.sampled_from([None, "-"])
DIGITS = st.integers(min_value=0, max_value=10**15)
FRACTION = st.one_of(st.just(""), st.integers(min_value=0, max_value=999).map(str))


def _facts(*elements: str, lower: bool = False):
    return [t.fact for t in read_xbrl(document(*elements, lower=lower), "doc", None)]


def _expected(whole: int, fraction: str, sign: str | None, scale: int) -> float:
    number = float(f"{whole}.{fraction or 0}")
    return (-number if sign == "-" else number) * 10**scale


@given(DIGITS, FRACTION, SIGNS, SCALES, DECIMALS, st.booleans())
def test_a_value_is_the_printed_number_with_its_sign_and_scale(whole, fraction, sign, scale,
                                                               decimals, lower):
    text = grouped(whole, ",", fraction, ".")
    (fact,) = _facts(nonfraction("us-gaap:Revenues", text, scale=scale, sign=sign,
                                 decimals=decimals, fmt="ixt:num-dot-decimal"), lower=lower)
    assert fact.value == pytest.approx(_expected(whole, fraction, sign, scale), rel=1e-12)
    assert fact.scale == scale and fact.printed == text
    assert fact.decimals == (None if decimals == "INF" else int(decimals))
    assert (fact.concept, fact.unit, fact.period_type) == ("us-gaap:Revenues", "USD", "duration")


@given(DIGITS, FRACTION, SIGNS, SCALES)
def test_a_comma_decimal_value_reads_as_its_dot_decimal_twin(whole, fraction, sign, scale):
    dot = nonfraction("us-gaap:Revenues", grouped(whole, ",", fraction, "."), scale=scale,
                      sign=sign, fmt="ixt:num-dot-decimal")
    comma = nonfraction("us-gaap:Revenues", grouped(whole, ".", fraction, ","), scale=scale,
                        sign=sign, fmt="ixt:num-comma-decimal", ctx="c-fy23")
    first, second = _facts(dot, comma)
    assert second.value == pytest.approx(first.value, rel=1e-12)
    assert (first.end, second.end) == ("2024-12-31", "2023-12-31")


@given(SCALES, SIGNS, DECIMALS, st.sampled_from(["", " ", "\n  "]), st.booleans(),
       st.booleans())
def test_a_nil_fact_is_no_fact_never_a_zero(scale, sign, decimals, inner, closed, lower):
    nil = nonfraction("us-gaap:Revenues", inner, scale=scale, sign=sign, decimals=decimals,
                      nil=True, self_closing=closed and not inner)
    kept = nonfraction("us-gaap:NetIncomeLoss", "40.5", scale=6, decimals="-5")
    facts = _facts(nil, kept, lower=lower)
    assert [(f.concept, f.value) for f in facts] == [("us-gaap:NetIncomeLoss", 40_500_000.0)]


@given(st.sampled_from(["—", "-", "–", ""]), SIGNS, SCALES,
       st.sampled_from(["ixt:fixed-zero", "ixt:zerodash", "ixt-sec:numwordsen"]))
def test_a_dash_or_a_fixed_zero_is_zero_whatever_the_sign_and_scale(dash, sign, scale, fmt):
    text = "no" if fmt == "ixt-sec:numwordsen" else dash
    (fact,) = _facts(nonfraction("us-gaap:Goodwill", text, scale=scale, sign=sign, fmt=fmt,
                                 ctx="c-i24"))
    assert fact.value == 0 and fact.period_type == "instant" and fact.start is None


WORDS = {"one": 1, "five": 5, "twelve": 12, "forty two": 42, "three hundred": 300}


@given(st.sampled_from(sorted(WORDS)), SIGNS, st.sampled_from([0, 3, 6]))
def test_a_number_in_words_takes_its_sign_and_scale_too(words, sign, scale):
    (fact,) = _facts(nonfraction("us-gaap:NumberOfSegments", words, scale=scale, sign=sign,
                                 fmt="ixt-sec:numwordsen", unit="pure", decimals="INF"))
    assert fact.value == _expected(WORDS[words], "", sign, scale)


@given(st.lists(st.integers(min_value=-9, max_value=4), min_size=2, max_size=5, unique=True))
def test_a_fact_printed_several_times_keeps_its_most_precise_occurrence(places):
    """The table's '412' (decimals -6) and the text's '412.5' (decimals -5) are one fact."""
    elements = [nonfraction("us-gaap:Revenues", f"{412.123456789:.{max(p + 6, 0)}f}",
                            scale=6, decimals=str(p)) for p in places]
    (fact,) = _facts(*elements)
    assert fact.decimals == max(places)
    assert fact.printed == f"{412.123456789:.{max(max(places) + 6, 0)}f}"


@given(st.sampled_from(["n/a", "12abc", "1.2.3", "(40)", "$40", "forty-ish"]),
       st.sampled_from([None, "ixt:num-dot-decimal", "ixt:no-such-format"]))
def test_a_value_that_cannot_be_read_is_left_out_and_the_rest_is_read(text, fmt):
    bad = nonfraction("us-gaap:Revenues", text, fmt=fmt, scale=6)
    unknown_format = nonfraction("us-gaap:Assets", "100", fmt="ixt:no-such-format", scale=6,
                                 ctx="c-i24")
    good = nonfraction("us-gaap:NetIncomeLoss", "40", scale=6)
    facts = _facts(bad, unknown_format, good)
    assert [(f.concept, f.value) for f in facts] == [("us-gaap:NetIncomeLoss", 40e6)]


@pytest.mark.parametrize("ref", ["c-missing", "", "c-fy24 c-fy23"])
def test_a_fact_whose_context_is_not_declared_is_left_out(ref):
    facts = _facts(nonfraction("us-gaap:Revenues", "412", scale=6, ctx=ref),
                   nonfraction("us-gaap:NetIncomeLoss", "40", scale=6))
    assert [f.concept for f in facts] == ["us-gaap:NetIncomeLoss"]


@given(DIGITS, SCALES)
def test_a_segments_fact_stays_apart_from_the_entity_total(whole, scale):
    total = nonfraction("us-gaap:Revenues", f"{whole:,}", scale=scale)
    part = nonfraction("us-gaap:Revenues", f"{whole // 3:,}", scale=scale, ctx="c-fy24-dc")
    by_dims = {f.dims: f.value for f in _facts(total, part)}
    axis = "us-gaap:StatementBusinessSegmentsAxis=acme:DataCenterMember"
    assert by_dims == {"": whole * 10.0**scale, axis: (whole // 3) * 10.0**scale}



@pytest.fixture(scope="module")
def tagged(tmp_path_factory):
    """A tagged 10-K ingested: FY2024 revenue "$ 412.5" (scale 6), FY2023 revenue nil, a
    net loss "(40.5)" tagged with sign="-"."""
    from core.app.corpus import Corpus
    from core.app.research import ResearchService
    from core.foundation.config import Settings
    from testkit.fakes.embedder import HashEmbedder
    from tests.hostile.ixbrl_kit import tagged_10k

    def cell(concept, text, ctx="c-fy24", **kw):
        return nonfraction(f"us-gaap:{concept}", text, ctx=ctx, scale=6, decimals="-5", **kw)

    cells = {("Revenue", "2024"): "$ " + cell("Revenues", "412.5"),
             ("Revenue", "2023"): cell("Revenues", "", "c-fy23", nil=True, self_closing=True),
             ("Cost of revenue", "2024"): cell("CostOfRevenue", "200.0"),
             ("Cost of revenue", "2023"): cell("CostOfRevenue", "190.0", "c-fy23"),
             ("Net income (loss)", "2024"): f"({cell('NetIncomeLoss', '40.5', sign='-')})",
             ("Net income (loss)", "2023"): cell("NetIncomeLoss", "30.5", "c-fy23")}
    settings = Settings(data_dir=tmp_path_factory.mktemp("tagged") / "store",
                        cache_enabled=False, _env_file=None)
    corpus = Corpus(settings, embedder=HashEmbedder())
    corpus.ingest_bytes(tagged_10k(cells).encode(), "tagged-10k-2024.htm")
    yield ResearchService.from_corpus(settings, corpus), corpus
    corpus.close()


def test_a_nil_fact_in_a_filing_is_stored_as_no_figure(tagged):
    _, corpus = tagged
    revenue = {(f.source, f.fiscal_year): f.value for f in corpus.store.facts(metric="revenue")}
    assert revenue == {("table", 2024): 412_500_000.0, ("xbrl", 2024): 412_500_000.0}
    loss = {f.source: f.value for f in corpus.store.facts(metric="net_income")
            if f.fiscal_year == 2024}
    assert loss == {"table": -40_500_000.0, "xbrl": -40_500_000.0}


@pytest.mark.parametrize(("question", "first"), [
    ("What was Tagged Widgets' revenue in fiscal 2023?",
     "I could not compute FY2023 revenue: no FY2023 revenue in the filings loaded."),
    ("What was Tagged Widgets' gross profit in fiscal 2023?",
     "I could not compute FY2023 gross profit: no FY2023 revenue in the filings loaded."),
    ("What was Tagged Widgets' revenue in fiscal 2024?",
     "Tagged Widgets' FY2024 revenue was $413 million [1]."),
    ("What was Tagged Widgets' net income in fiscal 2024?",
     "Tagged Widgets' FY2024 net income was -$41 million [1]."),
])
def test_an_answer_never_states_a_nil_fact_as_zero(tagged, question, first):
    service, _ = tagged
    text = service.ask(question).answer.text
    assert text.splitlines()[0] == first, text
    assert "$0" not in text
