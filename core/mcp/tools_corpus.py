"""The corpus: the bodies of ``list_filings``, ``search`` and ``metrics``.

Listing reads the registry (companies grouped by filer as the Library groups them:
``core.store.companies``); search is the Search page's and the CLI's
(``core.app.corpus.Corpus.search``: the query's scope, hybrid fusion, the active reranker,
every stage's score); the catalogue is ``core.metrics`` with the reader's lexicon and the
criteria that decide judgement words.
"""

from __future__ import annotations

from core.foundation.pages import page_ref
from core.mcp.citations import Citer
from core.mcp.errors import unknown_filing_period
from core.mcp.models import (
    CompanyOut,
    CriterionOut,
    FilingOut,
    FilingsOut,
    HitOut,
    MetricOut,
    MetricsOut,
    SearchOut,
    StageOut,
)
from core.mcp.names import (
    filing_period,
    form_of,
    parse_period,
    resolve_company,
    resolve_form,
)


def _filtered(service, companies: list[str] | None, forms: list[str] | None,
              periods: list[str] | None) -> tuple[list, list[str]]:
    """The filings the filters leave, and the filters in words (``InputError`` for a name
    the corpus does not hold)."""
    docs = service.documents()
    kept, said = list(docs), []
    if companies:
        ids: set[str] = set()
        for words in companies:
            filer = resolve_company(words, docs)
            ids |= set(filer.doc_ids)
            said.append(f"company: {filer.name}")
        kept = [d for d in kept if d.doc_id in ids]
    if forms:
        wanted = {resolve_form(f, docs) for f in forms}
        kept = [d for d in kept if form_of(d) in wanted]
        said += [f"form: {f}" for f in sorted(wanted)]
    if periods:
        wanted = {parse_period(p) for p in periods}
        have = sorted({filing_period(d) for d in kept})
        missing = [p for p in wanted if p not in have]
        if missing:
            whose = " and ".join(s.split(": ", 1)[1] for s in said) or "the corpus"
            raise unknown_filing_period(missing[0], whose, have)
        kept = [d for d in kept if filing_period(d) in wanted]
        said += [f"period: {p}" for p in sorted(wanted)]
    return kept, said


def list_filings_of(service, company: str | None = None, form: str | None = None,
                    period: str | None = None) -> FilingsOut:
    """The companies and filings loaded (those the filters leave)."""
    from core.store.companies import companies as filers

    docs, said = _filtered(service, [company] if company else None,
                           [form] if form else None, [period] if period else None)
    counts = service.facts.facts_status()
    groups = [g for g in filers(service.documents()) if set(g.doc_ids) & {d.doc_id
                                                                          for d in docs}]
    return FilingsOut(
        companies=[CompanyOut(name=g.name, cik=g.cik, tickers=g.tickers,
                              also_printed_as=g.names[1:], doc_ids=g.doc_ids) for g in groups],
        filings=[FilingOut(doc_id=d.doc_id, file_name=d.file_name, company=d.company,
                           cik=d.cik, ticker=d.ticker, form=d.form_type,
                           period=filing_period(d), period_end=d.period_end,
                           chunks=d.n_chunks, facts=counts.get(d.doc_id),
                           sections=list(d.sections), ingested_at=d.ingested_at)
                 for d in docs],
        forms=sorted({form_of(d) for d in docs}),
        periods=sorted({filing_period(d) for d in docs}), filters=said)


def search_of(service, query: str, companies: list[str] | None = None,
              forms: list[str] | None = None, periods: list[str] | None = None,
              section: str | None = None, strategy: str = "hybrid", k: int = 5) -> SearchOut:
    """Ranked chunks for ``query``: filters first (checked against the registry, no model
    needed to refuse one), then the corpus's search as the Search page runs it."""
    from core.mcp.errors import InputError

    if not (query or "").strip():
        raise InputError("query is empty: say what to look for ('supply chain risks').")
    docs, said = _filtered(service, companies, forms, periods)
    if not docs:
        raise InputError("The corpus is empty: add filings first." if not said else
                         f"No filing matches {', '.join(said)}.")
    filtered = bool(companies or forms or periods)
    sections = [section] if section and section.strip() else None
    result = service.corpus.search(query.strip(), strategy=strategy, k=k,
                                   doc_ids=[d.doc_id for d in docs] if filtered else None,
                                   sections=sections, scope="all" if filtered else "auto")
    citer = Citer(service)
    hits = []
    for hit in result.hits:
        c, d = hit.chunk, hit.document
        hits.append(HitOut(
            rank=hit.rank, chunk_id=c.chunk_id, company=d.company if d else "",
            form=d.form_type if d else "", period=filing_period(d) if d else "",
            section=c.section, page=page_ref(c.page, c.page_label, short=True),
            score=round(hit.score, 6),
            scores={s: StageOut(rank=v.rank, score=round(v.score, 6))
                    for s, v in hit.stages.items()},
            text=c.text, context=c.context, citation=citer.number(c.chunk_id)))
    info = result.reranker
    return SearchOut(query=result.query, strategy=result.strategy,
                     scope=result.scope.reason if result.scope else "",
                     filters=said + ([f"section: {section}"] if sections else []),
                     reranker=f"{info.name} ({info.kind}): {info.reason}" if info else "",
                     hits=hits, warnings=list(result.warnings), citations=citer.citations())


def metrics_of() -> MetricsOut:
    """The catalogue: every metric with its names, unit and formula; the criteria that
    decide judgement words; the kinds of question the reader knows."""
    from core.metrics import catalog
    from core.metrics.criteria import criteria
    from core.reading.kinds import KINDS
    from core.reading.lexicon import lexicon

    cat = catalog()
    also: dict[str, list[str]] = {}
    for _rx, typed, name in lexicon().measures:
        hits = cat.find_metrics(name)
        if len(hits) == 1:
            also.setdefault(hits[0].key, []).append(typed)
    metrics = [MetricOut(key=m.key, label=m.label, names=list(m.names),
                         also=sorted(also.get(m.key, [])), unit=m.unit, statement=m.statement,
                         derived=m.derived, formula=m.formula)
               for m in cat.metrics.values()]
    crit = [CriterionOut(key=c.key, label=c.label, rule=c.rule,
                         tests=[f"{t.measure} {t.op} {t.threshold:g}" for t in c.tests],
                         compare_by=c.compare) for c in criteria()]
    return MetricsOut(metrics=metrics, criteria=crit,
                      kinds={k.name: k.words for k in KINDS.values()})
