"""What is indexed for a chunk (context header, statement tags) and what a query asks for."""

from __future__ import annotations

from core.foundation.types import Chunk, DocumentMeta
from core.retrieval.query import analyse
from core.store.index_text import (
    header,
    index_text,
    statement_title,
    tag_statements,
    vector_text,
)


def chunk(i: int, text: str, page: int, kind: str = "table", **kw) -> Chunk:
    return Chunk(chunk_id=f"d-{i:05d}", doc_id="d", index=i, text=text, section="Item 8",
                 page=page, start=0, end=len(text), kind=kind, **kw)


def test_statement_titles_are_whole_title_lines_only():
    assert statement_title("CONSOLIDATED STATEMENTS OF CASH FLOWS") == "cash_flow"
    assert statement_title("Condensed Consolidated Statements of Income (Unaudited)") == "income"
    assert statement_title("Consolidated Statement of Operations (in millions)") == "income"
    assert statement_title("Amcor plc and Subsidiaries Condensed Consolidated Balance Sheets") \
        == "balance"
    assert statement_title("Consolidated Statements of Financial Position") == "balance"
    assert statement_title("Consolidated Statements of Comprehensive Income (Loss)") \
        == "comprehensive_income"
    assert statement_title("Consolidated Statements of Shareholders' Equity") == "equity"
    # Table-of-contents rows, running text and analysis headings are not titles.
    assert statement_title("Condensed Consolidated Statements of Income | 5") is None
    assert statement_title("The following is derived from the Consolidated Statements of "
                           "Cash Flows:") is None
    assert statement_title("CONSOLIDATED BALANCE SHEETS AND CASH FLOWS ANALYSIS") is None
    assert statement_title("balance sheets.") is None


def test_statement_tags_follow_table_pieces_to_the_statement_end():
    chunks = [
        chunk(0, "Item 8. Financial Statements\nIndex\nConsolidated Statements of Income | 40",
              39, "text"),
        chunk(1, "Consolidated Statements of Cash Flows\n($ in millions) | 2018 | 2017\n"
                 "Net income | 5,363 | 4,858", 41),
        chunk(2, "Purchases of property, plant and equipment (PP&E) | (1,577) | (1,373)", 41),
        chunk(3, "Net cash used in financing | (6,701) | (2,655)\nSee accompanying notes to the "
                 "consolidated financial statements.", 42),
        chunk(4, "Revenue by segment | 2018 | 2017\nSafety | 6,827 | 6,235", 42),
        chunk(5, "Consolidated Balance Sheets\nTotal assets | 36,500 | 37,987", 43),
        chunk(6, "Note 1. Significant accounting policies. We consolidate ...", 44, "text"),
        chunk(7, "Property, plant and equipment | 24,873 | 24,317", 44),
    ]
    assert tag_statements(chunks) == [None, "cash_flow", "cash_flow", "cash_flow", None,
                                      "balance", None, None]


def test_index_text_carries_company_period_section_statement_and_table_headings():
    doc = DocumentMeta(doc_id="d", file_name="f.pdf", company="3M COMPANY", form_type="10-K",
                       period="FY2018")
    c = chunk(2, "Purchases of property, plant and equipment (PP&E) | (1,577) | (1,373)", 41,
              statement="cash_flow", context="($ in millions) | 2018 | 2017")
    head = header(c, doc)
    assert head == ("3M COMPANY 10-K FY2018 / Item 8 / Statement of cash flows / "
                    "($ in millions) | 2018 | 2017")
    assert index_text(c, doc) == f"{head}\n{c.text}"
    bare = DocumentMeta(doc_id="d", file_name="f.pdf")
    plain = chunk(3, "text", 1).model_copy(update={"section": "Document"})
    assert index_text(plain, bare) == "text"
    # What is embedded: the whole header, its filing part, or the filing's words alone.
    assert vector_text(c, doc, "full") == index_text(c, doc)
    assert vector_text(c, doc, "filing") == (
        "3M COMPANY 10-K FY2018 / Item 8 / Statement of cash flows\n" + c.text)
    assert vector_text(c, doc, "none") == c.text


def test_queries_naming_metrics_and_statements():
    capex = analyse("What is the FY2018 capital expenditure amount (in USD millions) for 3M? "
                    "Give a response by relying on the details shown in the cash flow statement.")
    assert capex.statements == ["cash_flow"] and capex.named_statements == ["cash_flow"]
    assert "purchases of property, plant and equipment" in capex.line_items
    ratio = analyse("What is the FY2019 fixed asset turnover ratio? Use the statement of income "
                    "and the statement of financial position.")
    assert set(ratio.statements) >= {"income", "balance"}
    assert analyse("Which competitors does the company name?").statements == []
