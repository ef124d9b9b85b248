"""Issue 22: a filing is data, never instructions: a heading where the cover names the
registrant is not taken as the company's name (the next metadata source is used)."""

from __future__ import annotations

import pytest

from core.ingest.cover import looks_like_name, registrant_name

COVER = """UNITED STATES
SECURITIES AND EXCHANGE COMMISSION
Washington, D.C. 20549
FORM 10-K
ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
Commission file number 001-99999
{name}
(Exact name of registrant as specified in its charter)
Delaware
"""


@pytest.mark.parametrize("heading", ["Item 1A. Risk Factors", "ITEM 7. MANAGEMENT'S DISCUSSION",
                                     "Part II", "Table of Contents", "Business"])
def test_a_heading_is_never_the_registrant(heading):
    assert not looks_like_name(heading)
    assert registrant_name(COVER.format(name=heading)) is None


@pytest.mark.parametrize("name", ["Northwind Semiconductor, Inc.", "3M COMPANY",
                                  "Business Development Corp of America", "Itemize Holdings"])
def test_real_names_still_read(name):
    assert registrant_name(COVER.format(name=name)) == name
