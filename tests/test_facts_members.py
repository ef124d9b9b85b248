"""Members of dimensional facts keep the name the filing prints (real iXBRL 10-Ks: NVIDIA
FY2023, AMD FY2025), and a segment's tagged figure is linked to the row that names it."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from core.foundation.config import Settings
from core.ingest.facts.members import NameIndex, entries, find_name, member_words
from core.ingest.pipeline import prepare

FIXTURES = Path(__file__).parent / "fixtures" / "figures"


def _prepare(name: str):
    data = gzip.decompress((FIXTURES / name).read_bytes())
    return prepare(data, name.removesuffix(".gz"), Settings(_env_file=None))


@pytest.fixture(scope="module")
def nvidia():
    return _prepare("nvda-10k-fy2023.html.gz")


@pytest.fixture(scope="module")
def amd():
    return _prepare("amd-10k-fy2025.htm.gz")


@pytest.mark.parametrize("member, words", [
    ("adbe:DigitalMediaMember", "Digital Media"),
    ("ko:LatinAmericaSegmentMember", "Latin America"),
    ("ko:A.PacificMember", "A Pacific"),
    ("nvda:OEMAndOtherMember", "OEM And Other"),
    ("Compute & Networking", "Compute & Networking"),  # a table's member column
])
def test_member_words_from_the_qname(member, words):
    assert member_words(member) == words


@pytest.mark.parametrize("words, printed", [
    ("Med Tech", "Total MedTech Sales"),
    ("MedTech", "Med Tech"),
    ("Europe Middle East Africa", "Europe, Middle East & Africa"),
    ("A Pacific", "Asia Pacific"),
    ("Compute And Networking", "Compute & Networking"),
    ("US", "U.S."),
])
def test_a_name_is_found_however_it_is_printed(words, printed):
    span = find_name(words, printed)
    assert span is not None
    assert NameIndex(["Revenue", printed]).find(words) == printed[span[0]:span[1]]


def test_other_words_are_not_a_name():
    assert find_name("Digital Media", "Digital Experience") is None
    assert find_name("Gaming", "Total revenue") is None
    assert entries("srt:ConsolidationItemsAxis=us-gaap:OperatingSegmentsMember; "
                   "us-gaap:StatementBusinessSegmentsAxis=nvda:GraphicsMember") == \
        [("us-gaap:StatementBusinessSegmentsAxis", "nvda:GraphicsMember")]


def _tagged(prepared, concept: str, member: str, year: int):
    return next(f for f in prepared.facts if f.source == "xbrl" and f.concept == concept
                and member in f.dims and f.fiscal_year == year and f.months == 12)


def test_segments_and_markets_keep_their_printed_names(nvidia):
    chunks = {c.chunk_id: c for c in nvidia.chunks}
    cn = _tagged(nvidia, "us-gaap:Revenues", "nvda:ComputeAndNetworkingMember", 2023)
    assert cn.value == 15_068_000_000.0
    assert cn.member_names["nvda:ComputeAndNetworkingMember"] == "Compute & Networking"
    # linked to a row that names the segment, not to any row of the same value
    assert "Compute & Networking" in chunks[cn.chunk_id].text
    assert "Compute & Networking" in f"{cn.row} {cn.column}"
    dc = _tagged(nvidia, "us-gaap:Revenues", "nvda:DataCenterMember", 2023)
    assert dc.member_names == {"nvda:DataCenterMember": "Data Center"}
    assert dc.value == 15_005_000_000.0 and dc.row.startswith("Data Center |")
    pv = _tagged(nvidia, "us-gaap:Revenues", "nvda:ProfessionalVisualizationMember", 2023)
    assert pv.row.startswith("Professional Visualization |")  # not "Depreciation ..."
    us = _tagged(nvidia, "us-gaap:Revenues", "country:US", 2023)
    assert us.member_names == {"country:US": "United States"}  # the row it is printed in
    totals = [f for f in nvidia.facts if f.source == "xbrl" and not f.dims]
    assert all(f.member_names == {} for f in totals)


def test_a_segment_named_apart_from_its_qname(amd):
    dc = _tagged(amd, "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax",
                 "amd:DatacenterMember", 2025)
    assert dc.member_names["amd:DatacenterMember"] == "Data Center"
    assert dc.value == 16_635_000_000.0 and dc.chunk_id is not None


def test_a_plural_is_the_same_name():
    assert find_name("Service", "Net sales – services") is not None
    assert find_name("Google Services", "Google Service") is not None
