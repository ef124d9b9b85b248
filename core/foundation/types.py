"""Records that flow one way: file -> ingest -> chunks -> store -> retrieval -> agent."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class Section(BaseModel):
    """A contiguous span of a document's clean text."""

    title: str = Field(description="Normalised title, e.g. 'Item 1A. Risk Factors' or 'Document'.")
    item: str | None = Field(default=None, description="Item number such as '1A', if any.")
    part: str | None = Field(default=None, description="'Part I' / 'Part II' (10-Q), if any.")
    start: int = Field(description="Start character offset in the document text.")
    end: int = Field(description="End character offset (exclusive).")


class Page(BaseModel):
    """A page's character span in the document text."""

    number: int = Field(description="Physical page, 1-based (PDF: index + 1; HTML: breaks).")
    start: int
    end: int
    label: str | None = Field(
        default=None, description="The page label printed on the page ('5', 'F-7'), if any."
    )


class ParsedDocument(BaseModel):
    """Output of a loader: clean text plus structure, before chunking."""

    text: str
    pages: list[Page] = Field(default_factory=list)
    tables: int = 0
    dei: dict[str, str] = Field(default_factory=dict, description="iXBRL dei facts found.")
    title: str | None = None
    table_spans: list[tuple[int, int]] = Field(
        default_factory=list,
        description="(start, end) character span of each table, its caption lines included.",
    )


class DocumentMeta(BaseModel):
    """A registered document."""

    doc_id: str = Field(description="Stable id: hash of the file's content.")
    file_name: str
    company: str = "unknown"
    form_type: str = "unknown"
    period: str = "unknown"
    sections: list[str] = Field(default_factory=list)
    n_chunks: int = 0
    n_tables: int = 0
    n_pages: int = 0
    source: str = Field(default="", description="Path or URL it came from.")
    size_bytes: int = 0
    ingested_at: str = ""
    ticker: str = Field(default="", description="Trading symbol(s) from the cover, e.g. 'MMM'.")
    cik: str = Field(
        default="",
        description="The filer's SEC Central Index Key, 10 digits ('0001045810'); '' unknown. "
        "Read from the iXBRL dei facts, the EDGAR header or the cover page.",
    )
    printed_name: str = Field(
        default="",
        description="The company name this filing prints, when the registry shows the "
        "company under another (canonical) name of the same filer; '' when they agree.",
    )
    former_names: list[str] = Field(
        default_factory=list, description="Former company names the filing states."
    )
    period_end: str = Field(default="", description="Period end date, ISO YYYY-MM-DD.")
    edgar_name: str = Field(default="", description="EDGAR's name for the filer's CIK, for a "
                            "filing fetched from EDGAR ('' otherwise).")
    name_conflict: str = Field(default="", description="Read, never stored: why the name this "
                               "filing prints disagrees with EDGAR's name for its CIK or with "
                               "the company's other filings ('' when it agrees).")
    corrected: list[str] = Field(
        default_factory=list,
        description="Fields a user corrected by hand ('company', 'form_type', 'period', "
        "'ticker'), in the order first corrected.",
    )


class Chunk(BaseModel):
    """A retrievable piece of a document."""

    chunk_id: str = Field(description="Stable id from doc id and position, e.g. 'ab12cd34ef-0042'.")
    doc_id: str
    index: int = Field(description="Position of the chunk in its document.")
    text: str
    section: str
    page: int | None = Field(
        default=None, description="Physical page (1-based) holding the chunk's first character."
    )
    page_end: int | None = Field(
        default=None, description="Physical page holding its last character (None: as page)."
    )
    page_label: str | None = Field(
        default=None, description="The printed page label of ``page`` ('23', 'F-7'), if any."
    )
    start: int
    end: int
    kind: Literal["text", "table"] = "text"
    context: str = Field(
        default="",
        description="Where the chunk sits, in the filing's words: for a table piece its caption "
        "and column headings. Indexed with the text, shown apart from it.",
    )
    statement: str | None = Field(
        default=None,
        description="Financial statement the chunk belongs to ('income', 'balance', 'cash_flow', "
        "'equity', 'comprehensive_income'), tagged at indexing; None for anything else.",
    )

    @property
    def pages(self) -> range:
        """The physical pages the chunk spans (empty when unknown)."""
        if self.page is None:
            return range(0)
        return range(self.page, max(self.page, self.page_end or self.page) + 1)


class StageScore(BaseModel):
    """A hit's rank (1-based) and score in one retrieval stage."""

    rank: int
    score: float


Stage = Literal["keyword", "vector", "statement", "fused", "reranked"]


class Hit(BaseModel):
    """A retrieved chunk with its score at every stage it went through."""

    chunk: Chunk
    document: DocumentMeta | None = None
    stages: dict[str, StageScore] = Field(default_factory=dict)
    rank: int = 0
    score: float = 0.0

    @property
    def citation_label(self) -> str:
        """"Company form period — section, p. N", each part from the filing made inert
        (``core.foundation.safety.clean_meta``: no markup, no instruction-like company names)."""
        from core.foundation.pages import page_ref
        from core.foundation.safety import clean_meta

        doc = self.document
        name = clean_meta(doc.company) if doc else ""
        if doc and name == "unknown":
            name = clean_meta(doc.file_name, fallback="")
        where = page_ref(self.chunk.page, self.chunk.page_label, short=True)
        page = f", {where}" if where else ""
        form = (f"{clean_meta(doc.form_type, limit=20, fallback='')} "
                f"{clean_meta(doc.period, limit=30, fallback='')}") if doc else ""
        section = clean_meta(self.chunk.section, limit=160, fallback="")
        return f"{name} {form} — {section}{page}".strip()


class RerankerInfo(BaseModel):
    """Which reranker ran and why it was chosen."""

    name: str
    kind: Literal["cross-encoder", "fallback", "llm", "none"]
    reason: str


class ScopeInfo(BaseModel):
    """The filings a search read when it chose them from the question itself."""

    doc_ids: list[str] = Field(default_factory=list)
    companies: list[str] = Field(default_factory=list, description="Companies named, as filed.")
    periods: list[str] = Field(default_factory=list, description="Periods named, e.g. FY2018.")
    reason: str = Field(default="", description="What was matched, in words.")


class SearchResult(BaseModel):
    query: str
    rerank_query: str
    strategy: str = Field(description="A name from core.foundation.strategies.STRATEGIES.")
    hits: list[Hit]
    reranker: RerankerInfo | None = None
    timings_ms: dict[str, float] = Field(default_factory=dict)
    filters: dict[str, list[str]] = Field(default_factory=dict)
    scope: ScopeInfo | None = Field(
        default=None, description="Set when the documents were resolved from the query."
    )
    statements: list[str] = Field(
        default_factory=list, description="Financial statements the query asked for."
    )
    expansions: list[str] = Field(
        default_factory=list, description="Line items added to the keyword query."
    )
    warnings: list[str] = Field(
        default_factory=list, description="What the search could not do (said, not hidden)."
    )


FactSource = Literal["xbrl", "table"]


class Fact(BaseModel):
    """One reported figure of a filing: a statement line's value for one period.

    Read at ingest from the iXBRL tags (``source="xbrl"``: exact concept, context period,
    unit, scale and sign) or from a statement table (``source="table"``: line item as
    printed, column heading resolved to a period, the caption's scale applied, parentheses
    negative). ``value`` is in base units (dollars, shares), scale and sign applied:
    "$(1,577)" in a table "(in millions)" is ``-1_577_000_000.0``.
    """

    fact_id: str = Field(description="Stable id: '{doc_id}-f{n:05d}' in extraction order.")
    doc_id: str
    source: FactSource
    label: str = Field(description="Line item as printed ('Purchases of property, plant and "
                       "equipment (PP&E)'); for an unlinked XBRL fact, the concept's words.")
    metric: str | None = Field(default=None, description="Catalogue key ('capex', 'revenue') "
                               "when the metric catalogue knows the concept or line item.")
    concept: str | None = Field(default=None, description="XBRL concept with its prefix "
                                "('us-gaap:Revenues'); for a table fact, the concept of the "
                                "XBRL fact it was matched to, if any.")
    statement: str | None = Field(default=None, description="'income', 'balance', "
                                  "'cash_flow', 'equity', 'comprehensive_income' or None "
                                  "(a note or MD&A table).")
    period_type: Literal["duration", "instant"] = "duration"
    fiscal_year: int | None = Field(default=None, description="Fiscal year the period "
                                    "belongs to, as the filer names it (FY2023 -> 2023).")
    fiscal_period: str = Field(default="FY", description="'FY' (a full year), 'Q1'..'Q4' (a "
                               "quarter), 'H1', '9M' (year to date), or '' for an instant.")
    months: int | None = Field(default=None, description="Length of a duration in months "
                               "(3, 6, 9, 12); None for an instant or when unknown.")
    start: str | None = Field(default=None, description="Period start, ISO (durations).")
    end: str | None = Field(default=None, description="Period end (or instant), ISO.")
    value: float = Field(description="In base units, scale and sign applied.")
    unit: str = Field(default="USD", description="'USD' (or another ISO currency), 'shares', "
                      "'USD/share', 'percent' (value 12.5 means 12.5%), 'pure'.")
    scale: int = Field(default=0, description="Power of ten the printed figure was scaled by "
                       "(6: 'in millions').")
    decimals: int | None = Field(default=None, description="XBRL decimals (-6: to the "
                                 "million); for a table fact, -scale.")
    dims: str = Field(default="", description="'' for an entity total; otherwise the "
                      "dimensions, 'axis=member; ...' (a segment, a product line).")
    member_names: dict[str, str] = Field(
        default_factory=dict, description="Each member of ``dims`` with its name as the "
        "filing prints it ('adbe:DigitalMediaMember' -> 'Digital Media'; a table's member "
        "column is its heading); empty for an entity total or a fact read before names were.")
    chunk_id: str | None = Field(default=None, description="The chunk the figure is printed "
                                 "in (None: not printed, e.g. hidden XBRL).")
    page: int | None = Field(default=None, description="Physical page (1-based) it is on.")
    page_label: str | None = Field(default=None, description="The page number the filing "
                                   "prints on ``page``, when known (from its chunk).")
    row: str = Field(default="", description="The row as printed ('Revenue | $26,974 | "
                     "$26,914 | $16,675').")
    column: str = Field(default="", description="The column heading as printed "
                        "('January 29, 2023', '2018').")
    printed: str = Field(default="", description="The cell as printed ('$(1,577)').")
