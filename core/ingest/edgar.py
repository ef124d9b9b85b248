"""EDGAR by ticker: ticker -> CIK, the company's filings from the JSON submissions API, and
their primary documents.

* ``company_tickers.json`` (``settings.edgar_www_url``/files/) maps tickers to CIKs;
* ``submissions/CIK##########.json`` (``settings.edgar_data_url``) lists a filer's filings
  (column arrays under ``filings.recent``; older ones in the files named under
  ``filings.files``) with its ``fiscalYearEnd`` ("0129");
* a primary document lives at ``/Archives/edgar/data/<cik>/<accession without dashes>/<doc>``.

Every request goes through ``core.ingest.fetch.fetch_url`` (http(s) only, allowed hosts only,
no private addresses, size cap, deadline) with the configured SEC user agent, and through one
process-wide rate limiter: at most ``settings.sec_max_requests_per_s`` (≤ 10, the SEC's
fair-access limit) request starts per second. A host that does not answer stops everything at
once with one line naming it (``EdgarUnreachable``): the first request fails, no retries.

"Years" are fiscal years as the filer names them: a report date's fiscal year is the year of
the fiscal year end on or after it (``fiscalYearEnd``), named for the year before when that
end falls in the first week of January (``core.ingest.meta.fiscal_year``).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from core.foundation.config import Settings
from core.foundation.errors import FetchError
from core.ingest.cover import normal_cik
from core.ingest.fetch import UnreachableError, fetch_url
from core.ingest.meta import fiscal_year, safe_file_name


class EdgarUnreachable(FetchError):
    """EDGAR did not answer; the message is one line naming the host."""


class RateLimiter:
    """At most ``rate`` calls of ``wait`` return per second (evenly spaced), across threads."""

    def __init__(self, rate: float, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep):
        if rate <= 0:
            raise ValueError("rate must be greater than 0")
        self.interval = 1.0 / rate
        self._clock, self._sleep = clock, sleep
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self) -> None:
        with self._lock:
            now = self._clock()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            self._sleep(start - now)


_LIMITERS: dict[float, RateLimiter] = {}
_LIMITERS_LOCK = threading.Lock()


def shared_limiter(rate: float) -> RateLimiter:
    """The process's limiter for ``rate`` (every EDGAR client of the process shares it)."""
    with _LIMITERS_LOCK:
        return _LIMITERS.setdefault(rate, RateLimiter(rate))


@dataclass(frozen=True)
class EdgarFiling:
    """One filing as the submissions API lists it."""

    cik: str
    company: str
    ticker: str
    form: str
    accession: str
    filed: str
    report_date: str
    primary_document: str
    fiscal_year: int | None
    archive_url: str

    @property
    def label(self) -> str:
        year = f"FY{self.fiscal_year} " if self.fiscal_year else ""
        return f"{self.company} {self.form} {year}(period {self.report_date or '?'}, " \
               f"filed {self.filed})"


def fiscal_year_of(report_date: str, fiscal_year_end: str) -> int | None:
    """The fiscal year a report date belongs to (see the module docstring)."""
    try:
        end = date.fromisoformat(report_date)
    except ValueError:
        return None
    if len(fiscal_year_end) != 4 or not fiscal_year_end.isdigit():
        return fiscal_year(end, "")
    month, day = int(fiscal_year_end[:2]), int(fiscal_year_end[2:])
    try:
        year_end = date(end.year, month, min(day, 28 if month == 2 else day))
    except ValueError:
        return fiscal_year(end, "")
    if end > year_end + timedelta(days=7):  # 52/53-week years end a few days either side
        year_end = year_end.replace(year=end.year + 1)
    return fiscal_year(year_end, "")


class Edgar:
    """A small EDGAR client for one Settings (see the module docstring)."""

    def __init__(self, settings: Settings, *, limiter: RateLimiter | None = None,
                 fetch: Callable[[str, Settings], tuple[bytes, str]] = fetch_url):
        self.settings = settings
        self.www = (settings.edgar_www_url or "https://www.sec.gov").rstrip("/")
        self.data = (settings.edgar_data_url or "https://data.sec.gov").rstrip("/")
        self.limiter = limiter or shared_limiter(settings.sec_max_requests_per_s)
        self._fetch = fetch
        self._tickers: dict[str, tuple[str, str]] | None = None
        self.requests = 0

    def get(self, url: str) -> tuple[bytes, str]:
        """``(bytes, file name)`` of one EDGAR URL, rate-limited; EdgarUnreachable when the
        host does not answer."""
        self.limiter.wait()
        self.requests += 1
        try:
            return self._fetch(url, self.settings)
        except UnreachableError as exc:
            raise EdgarUnreachable(
                f"EDGAR is unreachable: could not reach {exc.host} ({exc.why})."
            ) from None

    def _json(self, url: str) -> dict:
        data, _ = self.get(url)
        try:
            found = json.loads(data)
        except ValueError:
            raise FetchError(f"{url} did not return JSON; is it EDGAR?") from None
        if not isinstance(found, dict):
            raise FetchError(f"{url} returned JSON of an unexpected shape.")
        return found

    def lookup(self, ticker: str) -> tuple[str, str]:
        """``(CIK, company name)`` of a ticker ("NVDA") or a CIK ("1045810")."""
        wanted = ticker.strip().upper()
        if normal_cik(wanted):
            return normal_cik(wanted), ""
        if self._tickers is None:
            rows = self._json(f"{self.www}/files/company_tickers.json").values()
            self._tickers = {str(r.get("ticker", "")).upper(): (normal_cik(r.get("cik_str")),
                                                                 str(r.get("title", "")))
                             for r in rows if isinstance(r, dict)}
        if wanted not in self._tickers or not self._tickers[wanted][0]:
            raise FetchError(f"EDGAR lists no company with the ticker {wanted!r}; check the "
                             "symbol, or give the company's CIK instead.")
        return self._tickers[wanted]

    def filings(self, ticker: str, forms: list[str] | tuple[str, ...] = ("10-K",),
                years: tuple[int, int] | None = None) -> list[EdgarFiling]:
        """The company's filings of ``forms`` (exact EDGAR form names) whose fiscal year is in
        ``years`` (inclusive), newest first."""
        cik, title = self.lookup(ticker)
        sub = self._json(f"{self.data}/submissions/CIK{cik}.json")
        name = str(sub.get("name") or title or cik)
        symbol = ", ".join(sub.get("tickers") or []) or \
            (ticker.strip().upper() if not normal_cik(ticker) else "")
        fy_end = str(sub.get("fiscalYearEnd") or "")
        url = f"{self.data}/submissions/CIK{cik}.json"
        pages = [_part(url, sub, "filings.recent")]
        for extra in _files(url, sub):
            upto = str(extra.get("filingTo", ""))[:4]
            if years and upto.isdigit() and int(upto) < years[0]:
                continue
            more = f"{self.data}/submissions/{extra['name']}"
            pages.append(_part(more, self._json(more), ""))
        wanted = {f.strip().upper() for f in forms}
        out: list[EdgarFiling] = []
        for page in pages:
            for row in _rows(page):
                if row.get("form", "").upper() not in wanted or not row.get("primaryDocument"):
                    continue
                fy = fiscal_year_of(row.get("reportDate", ""), fy_end)
                if years and (fy is None or not years[0] <= fy <= years[1]):
                    continue
                accession = row.get("accessionNumber", "")
                out.append(EdgarFiling(
                    cik=cik, company=name, ticker=symbol, form=row["form"],
                    accession=accession, filed=row.get("filingDate", ""),
                    report_date=row.get("reportDate", ""),
                    primary_document=row["primaryDocument"], fiscal_year=fy,
                    archive_url=(f"{self.www}/Archives/edgar/data/{int(cik)}/"
                                 f"{accession.replace('-', '')}/{row['primaryDocument']}"),
                ))
        out = list({f.accession: f for f in out}.values())
        return sorted(out, key=lambda f: (f.report_date, f.filed), reverse=True)

    def download(self, filing: EdgarFiling) -> tuple[bytes, str]:
        """The primary document's bytes and its (safe) file name."""
        data, _ = self.get(filing.archive_url)
        return data, safe_file_name(filing.primary_document)


def malformed(url: str, what: str) -> FetchError:
    """One line naming the host and what of its reply was malformed."""
    from urllib.parse import urlparse

    part = urlparse(url)
    return FetchError(f"{part.hostname or url} sent a malformed submissions file "
                      f"({part.path.rsplit('/', 1)[-1]}): {what}; is it EDGAR? Nothing was "
                      "ingested for this company.")


def _part(url: str, sub: dict, path: str) -> dict:
    """The object at dotted ``path`` of a submissions reply ("" : the reply itself)."""
    found: object = sub
    keys = [k for k in path.split(".") if k]
    for n, key in enumerate(keys, start=1):
        found = found.get(key, {}) if isinstance(found, dict) else None
        if not isinstance(found, dict):
            raise malformed(url, f"'{'.'.join(keys[:n])}' is not an object")
    return found


def _files(url: str, sub: dict) -> list[dict]:
    """``filings.files``: the files holding older filings, each with its ``name``."""
    files = _part(url, sub, "filings").get("files", [])
    if not isinstance(files, list):
        raise malformed(url, "'filings.files' is not a list")
    for n, extra in enumerate(files):
        name = extra.get("name") if isinstance(extra, dict) else None
        if not isinstance(name, str) or not name.strip() or "/" in name or ".." in name:
            raise malformed(url, f"filings.files[{n}] names no file of older filings "
                            f"(got {str(extra)[:60]!r})")
    return files


def _rows(page: dict) -> list[dict[str, str]]:
    """The column arrays of a submissions page as one dict per filing."""
    columns = {k: v for k, v in page.items() if isinstance(v, list)}
    n = min((len(v) for v in columns.values()), default=0)
    return [{k: str(v[i]) for k, v in columns.items()} for i in range(n)]


def parse_years(text: str | None) -> tuple[int, int] | None:
    """"2022-2024" -> (2022, 2024), "2023" -> (2023, 2023), None/"" -> None."""
    if not text or not text.strip():
        return None
    first, _, last = text.strip().partition("-")
    try:
        years = (int(first), int(last or first))
    except ValueError:
        raise FetchError(f"Years must read 2023 or 2022-2024 (got {text!r}).") from None
    if not (1993 <= years[0] <= years[1] <= 2100):
        raise FetchError(f"Years must be an increasing range from 1993 on (got {text!r}).")
    return years
