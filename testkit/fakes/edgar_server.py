"""A local EDGAR on 127.0.0.1: company_tickers.json, submissions/CIK##########.json and
primary documents under /Archives/edgar/data/<cik>/<accession>/<doc>, from recorded JSON.

    with FakeEdgarServer.from_filings(two_company_corpus()) as edgar:   # tests
        settings = Settings(edgar_www_url=edgar.url, edgar_data_url=edgar.url, ...)

    python -m testkit.fakes.edgar_server --documents ../shared/filings   # by hand, port printed

``testkit/edgar/`` holds the recordings (EDGAR's shapes, trimmed to the filings whose
documents ``../shared/filings`` holds; ``documents.json`` maps an archive path to a file
there). Like EDGAR, a request whose User-Agent names no contact (no "@") gets HTTP 403.
Requests are recorded with the monotonic time they arrived (``arrivals``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from testkit.fakes.http_base import Response, ScriptedServer

RECORDED = Path(__file__).resolve().parent.parent / "edgar"


class FakeEdgarServer(ScriptedServer):
    """Serves ``tickers`` (company_tickers.json), ``submissions`` (CIK -> JSON) and
    ``documents`` (archive path -> bytes)."""

    def __init__(self, tickers: dict, submissions: dict[str, dict],
                 documents: dict[str, bytes]):
        self.tickers, self.submissions, self.documents = tickers, submissions, documents
        self.arrivals: list[float] = []
        super().__init__()

    def handle(self, method: str, path: str, body: Any) -> Response:
        self.arrivals.append(time.monotonic())
        agent = self.current.headers.get("user-agent", "") if self.current else ""
        if "@" not in agent:
            return Response(403, raw=b"<html>Your Request Originates from an Undeclared "
                            b"Automated Tool</html>", content_type="text/html")
        if path == "/files/company_tickers.json":
            return Response(body=self.tickers)
        if path.startswith("/submissions/"):
            name = path.removeprefix("/submissions/").removesuffix(".json")
            found = self.submissions.get(name)
            return Response(body=found) if found else Response(404, body={"error": "no"})
        if path.startswith("/Archives/edgar/data/"):
            doc = self.documents.get(path.removeprefix("/Archives/edgar/data/"))
            if doc is not None:
                kind = "application/pdf" if doc[:5] == b"%PDF-" else "text/html"
                return Response(raw=doc, content_type=kind)
        return Response(404, raw=b"<html>Not Found</html>", content_type="text/html")

    @classmethod
    def from_recordings(cls, documents_dir: Path, recorded: Path = RECORDED) -> FakeEdgarServer:
        """The recordings of ``recorded``, documents read from ``documents_dir``."""
        tickers = json.loads((recorded / "company_tickers.json").read_text())
        subs = {p.stem: json.loads(p.read_text())
                for p in (recorded / "submissions").glob("CIK*.json")}
        mapping = json.loads((recorded / "documents.json").read_text())
        docs = {path: (documents_dir / name).read_bytes() for path, name in mapping.items()
                if (documents_dir / name).is_file()}
        return cls(tickers, subs, docs)

    @classmethod
    def from_filings(cls, filings: list) -> FakeEdgarServer:
        """EDGAR for ``testkit.filings.Filing`` objects (their CIK: the first filing of the
        company that has one)."""
        cik_of: dict[str, str] = {}
        for f in filings:
            key = f.file_name.split("-")[0]
            if f.cik:
                cik_of.setdefault(key, f.cik)
        tickers, subs, docs = {}, {}, {}
        for f in filings:
            key = f.file_name.split("-")[0]
            cik = cik_of[key]
            sub = subs.setdefault(f"CIK{cik}", _submission(cik, f))
            if not any(t["cik_str"] == int(cik) for t in tickers.values()):
                tickers[str(len(tickers))] = {"cik_str": int(cik), "ticker": key.upper(),
                                              "title": f.company}
            recent = sub["filings"]["recent"]
            for column, value in (("accessionNumber", f.accession), ("filingDate", f.filed),
                                  ("reportDate", f.period_end), ("form", f.form),
                                  ("primaryDocument", f.file_name),
                                  ("primaryDocDescription", f.form), ("isInlineXBRL", 1)):
                recent[column].append(value)
            docs[f"{int(cik)}/{f.accession.replace('-', '')}/{f.file_name}"] = f.html()
        return cls(tickers, subs, docs)


def _submission(cik: str, first) -> dict:
    end = first.period_end[5:7] + first.period_end[8:10] if first.form == "10-K" else "1231"
    return {
        "cik": str(int(cik)), "entityType": "operating", "name": first.company.upper(),
        "tickers": [first.file_name.split("-")[0].upper()], "exchanges": ["Nasdaq"],
        "fiscalYearEnd": end,
        "filings": {"recent": {c: [] for c in ("accessionNumber", "filingDate", "reportDate",
                                                "form", "primaryDocument",
                                                "primaryDocDescription", "isInlineXBRL")},
                    "files": []},
    }


def main() -> None:
    p = argparse.ArgumentParser(description="A fake EDGAR on 127.0.0.1 from recordings.")
    p.add_argument("--documents", type=Path, required=True, help="folder of primary documents")
    p.add_argument("--recorded", type=Path, default=RECORDED)
    args = p.parse_args()
    server = FakeEdgarServer.from_recordings(args.documents, args.recorded)
    print(server.url, f"({len(server.documents)} documents)", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.close()


if __name__ == "__main__":
    main()
