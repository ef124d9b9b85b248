"""A filing that names another company than EDGAR does for its CIK (issue 32: main printed
"ingested: HOSTILE DYNAMICS CORP (CIK 0001045810, NVDA)" and afterwards showed the company's
real filings under that name): it is flagged in the ingest result, the Library and doctor;
one filing never renames a company's other filings; the canonical name follows EDGAR or a
hand correction."""

from __future__ import annotations

import dataclasses

import pytest

from core.app.corpus import Corpus
from core.app.doctor import examine
from core.cli import main as cli
from core.store.companies import companies
from testkit.filings import edgar_filings
from tests.hostile.kit import ScriptedEdgar, edgar_env

HOSTILE = "HOSTILE DYNAMICS CORP"
EDGAR_NAME = "NORTHWIND INSTRUMENTS INC"


def _hostile_doc():
    real = next(f for f in edgar_filings() if f.file_name == "nwi-20240128.htm")
    fake = dataclasses.replace(real, company=HOSTILE)
    return f"111111/{real.accession.replace('-', '')}/{real.file_name}", fake


@pytest.fixture
def fetched(tmp_path, monkeypatch, hash_embedder, capsys):
    with ScriptedEdgar() as edgar:
        path, fake = _hostile_doc()
        edgar.documents[path] = fake.html()
        for key, value in edgar_env(edgar.url, tmp_path / "store").items():
            monkeypatch.setenv(key, value)
        opened = []
        monkeypatch.setattr(cli, "_corpus", lambda s: opened.append(
            Corpus(s, embedder=hash_embedder)) or opened[-1])
        assert cli.main(["fetch", "NWI", "--form", "10-K", "--form", "10-Q"]) == 0
        out = capsys.readouterr()
        yield opened[-1], out


def test_the_ingest_result_flags_the_name_and_keeps_edgars(fetched):
    corpus, out = fetched
    hostile = [line for line in out.out.splitlines() if "nwi-20240128.htm" in line]
    assert len(hostile) == 1 and f": {EDGAR_NAME} (CIK 0000111111" in hostile[0], out.out
    assert HOSTILE not in out.out
    assert f"warning: nwi-20240128.htm prints the company name {HOSTILE!r}, which disagrees " \
           f"with EDGAR's name for CIK 0000111111, {EDGAR_NAME!r}" in out.err


def test_one_filing_never_renames_the_companys_others(fetched):
    corpus, _ = fetched
    docs = corpus.documents()
    assert len(docs) == 3 and {d.company for d in docs} == {EDGAR_NAME}
    (company,) = companies(corpus.store.registry.documents())
    assert company.name == EDGAR_NAME
    flagged = [d for d in docs if d.name_conflict]
    assert [d.file_name for d in flagged] == ["nwi-20240128.htm"]
    assert flagged[0].printed_name == HOSTILE  # what it prints is kept, as an alias


def test_the_library_and_the_doctor_flag_it(fetched, settings):
    from components.library import documents_frame

    corpus, _ = fetched
    frame = documents_frame(corpus.documents())
    checks = [c for c in frame["name check"] if c]
    assert len(checks) == 1 and HOSTILE in checks[0]
    report = examine(corpus.settings, lambda: corpus.store)
    assert [f.what for f in report.findings] == ["company"]
    assert HOSTILE in report.findings[0].problem and "docs --set" in report.findings[0].problem


def test_a_hand_correction_names_the_company(fetched):
    corpus, _ = fetched
    doc = next(d for d in corpus.documents() if d.name_conflict)
    corpus.update_document(doc.doc_id, company="Northwind Instruments, Inc.")
    docs = corpus.documents()
    assert {d.company for d in docs} == {"Northwind Instruments, Inc."}
    assert not any(d.name_conflict for d in docs)


def test_without_edgar_the_first_filings_name_stays_and_the_odd_one_is_flagged(
        settings, hash_embedder):
    """Uploaded files (no EDGAR name): the 10-K printing another name for the same CIK does
    not rename the older 10-K."""
    _, fake = _hostile_doc()
    older = next(f for f in edgar_filings() if f.file_name == "nwi-20230129.htm")
    corpus = Corpus(settings, embedder=hash_embedder)
    corpus.ingest_bytes(older.html(), older.file_name)
    report = corpus.ingest_bytes(fake.html(), fake.file_name)
    assert report.meta.company == EDGAR_NAME
    assert any("disagrees with the name of CIK 0000111111's other filings" in w
               for w in report.warnings), report.warnings
    assert {d.company for d in corpus.documents()} == {EDGAR_NAME}
