"""A two-company corpus for the answer's tests: Acme Chips (10-K FY2024) and Borealis Foods
(10-K FY2024), with prose, risk factors and income-statement tables in the parsers' shape
(cells joined by " | "), searched by ``testkit.agent_fakes.FakeRetriever``'s overlap rule."""

from __future__ import annotations

from core.agent.deps import CorpusInfo
from core.app.research import ResearchService
from core.foundation.types import Chunk, DocumentMeta
from testkit.agent_fakes import FakeRetriever, FakeWeb

SECTIONS = ["Item 1. Business", "Item 1A. Risk Factors",
            "Item 7. Management's Discussion and Analysis",
            "Item 8. Financial Statements and Supplementary Data"]
ACME = DocumentMeta(doc_id="acme", file_name="acme-10k-2024.htm", company="ACME CHIPS INC",
                    form_type="10-K", period="FY2024", sections=SECTIONS)
BOREALIS = DocumentMeta(doc_id="bore", file_name="borealis-10k-2024.htm",
                        company="BOREALIS FOODS CORP", form_type="10-K", period="FY2024",
                        sections=SECTIONS)

ACME_TEXTS = [
    (SECTIONS[1], "We face intense competition from larger chip vendors in the accelerator "
     "market. If competitors deliver faster products, we could lose market share."),
    (SECTIONS[2], "Net revenue for fiscal 2024 was $3,912.0 million, up 28% from fiscal 2023, "
     "driven by data center accelerator sales."),
    (SECTIONS[3], "CONSOLIDATED STATEMENTS OF OPERATIONS\n(in millions)\n\n"
     " | Fiscal 2024 | Fiscal 2023\nNet revenue | $ 3,912.0 | $ 3,056.3\n"
     "Gross margin | 1,955.1 | 1,467.0\nNet income | $ 611.8 | $ 402.4"),
]
BOREALIS_TEXTS = [
    (SECTIONS[1], "Commodity price increases for wheat and cocoa could reduce our gross margin "
     "if we cannot raise prices."),
    (SECTIONS[2], "Net sales for fiscal 2024 were $2,184.6 million, an increase of 43%, driven by "
     "pricing in the snacks segment and higher volumes in North America."),
    (SECTIONS[3], "CONSOLIDATED STATEMENTS OF INCOME\n(in millions)\n\n"
     " | Fiscal 2024 | Fiscal 2023\nNet sales | $ 2,184.6 | $ 1,527.3\n"
     "Cost of sales | 1,402.2 | 1,011.9\nNet income | $ 457.3 | $ 181.0"),
]


def _chunks(doc: DocumentMeta, texts) -> list[Chunk]:
    out, pos = [], 0
    for i, (section, text) in enumerate(texts):
        out.append(Chunk(chunk_id=f"{doc.doc_id}-{i:05d}", doc_id=doc.doc_id, index=i,
                         text=text, section=section, page=i + 1, start=pos,
                         end=pos + len(text)))
        pos += len(text) + 1
    return out


class TwoCompanyRetriever(FakeRetriever):
    """``FakeRetriever`` over both filings; each hit carries its own document."""

    def __init__(self):
        super().__init__(_chunks(ACME, ACME_TEXTS) + _chunks(BOREALIS, BOREALIS_TEXTS), ACME)
        self.docs = {ACME.doc_id: ACME, BOREALIS.doc_id: BOREALIS}

    def search(self, query, **kwargs):
        result = super().search(query, **kwargs)
        for hit in result.hits:
            hit.document = self.docs[hit.chunk.doc_id]
        return result


def two_company_info() -> CorpusInfo:
    return CorpusInfo(documents=[ACME, BOREALIS],
                      sections={d.doc_id: list(SECTIONS) for d in (ACME, BOREALIS)})


def question_service(settings, *, llm=None, web=None) -> ResearchService:
    return ResearchService(settings, TwoCompanyRetriever(),
                           web if web is not None else FakeWeb([]), llm, two_company_info())
