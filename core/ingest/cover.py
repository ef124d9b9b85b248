"""Who filed, read from the cover page: registrant name, CIK, trading symbols, former names.

Covers come in many shapes. The registrant's name usually sits above "(Exact name of
registrant as specified in its charter)", but some covers print no such line (3M's 10-K,
Microsoft's 10-Q: the name follows the Commission file number), print the name as an image
(Coca-Cola: only the signature block names it, "THE COCA-COLA COMPANY (Registrant)"), put
the label above the name (text extraction order), or set the name in small capitals whose
large initials come out as separate letters ("M GM R ESORTS I NTERNATIONAL", or "MGM
RESORTS I" / "NTERNATIONAL" on two lines). Each shape has a reader below; the first name
that looks like one wins. Cell separators (" | ") are read as spaces.
"""

from __future__ import annotations

import re

COVER_CHARS = 8000
_EXACT = re.compile(r"exact\s+name\s+of\s+(?:the\s+)?registrant", re.I)
_FILE_NO = re.compile(r"commission\s+file\s+(?:number|no\.?)", re.I)
_REGISTRANT = re.compile(r"^\s*(.{2,90}?)\s*\n?[ \t]*\(\s*registrant\s*\)", re.I | re.M)
_NOT_NAME = re.compile(
    r"commission\s+file|exact\s+name|securities|exchange\s+act|washington|form\s+10-|"
    r"annual\s+report|quarterly\s+report|transition\s+report|i\.?r\.?s\.?|state\s+or\s+other|"
    r"incorporation|employer|address|telephone|zip\s+code|former\s+name|fiscal\s+year|"
    r"^\(|^n/?a$|^none$|^not\s+applicable|united\s+states|^\d{2}|^\W+$|^by:|/s/|^date|"
    r"\b\d{2}-\d{7}\b|"  # an I.R.S. employer number
    r"^item\s+\d+[a-z]?\b|^part\s+[ivx]+\b|risk\s+factors|table\s+of\s+contents|"  # headings
    r"management.s\s+discussion|^(?:business|properties|legal\s+proceedings)\.?$",
    re.I,
)
_STATES = frozenset(
    "alabama alaska arizona arkansas california colorado connecticut delaware florida georgia "
    "hawaii idaho illinois indiana iowa kansas kentucky louisiana maine maryland massachusetts "
    "michigan minnesota mississippi missouri montana nebraska nevada new hampshire new jersey "
    "new mexico new york north carolina north dakota ohio oklahoma oregon pennsylvania "
    "rhode island south carolina south dakota tennessee texas utah vermont virginia washington "
    "west virginia wisconsin wyoming bermuda cayman islands ireland netherlands".split()
)
_DROP_CAP = re.compile(r"\b([A-Z]) (?=[A-Z]{2,}\b)")
_ENDS_WITH_INITIAL = re.compile(r"(?:^|\s)[A-Z]$")
_FORMER_LABEL = re.compile(r"\(\s*former\s+name", re.I)
_FORMERLY = re.compile(r"\(?\s*formerly(?:\s+known\s+as)?:?\s+([^()\n]{2,80}?)\s*\)?\s*$", re.I)
_SYMBOL_HEAD = re.compile(r"trading\s+symbol", re.I)
_EXCHANGES = (
    r"(?:The\s+)?(?:Nasdaq|NASDAQ|New\s+York\s+Stock\s+Exchange|NYSE|Chicago\s+Stock|Cboe|CBOE|"
    r"Boston\s+Stock|Pacific\s+(?:Stock\s+)?Exchange|London\s+Stock|Euronext|Toronto\s+Stock)"
)
_SYMBOL = re.compile(rf"(?<![\w$.,/-])([A-Z]{{1,5}}(?:\.[A-Z])?)\s+{_EXCHANGES}")
_SYMBOLS_END = re.compile(r"^\s*(?:indicate\s+by|securities\s+registered\s+pursuant\s+to\s+"
                          r"section\s+12\(g\))", re.I)
MAX_TICKERS = 6
CORPORATE_WORDS = frozenset("""inc incorporated corp corporation company co cos ltd limited plc
    llc lp llp holdings holding group sa nv ag se the of and""".split())
"""Words a company name may end with that do not tell companies apart ("NVIDIA CORP" is
"NVIDIA CORPORATION")."""
_CIK = re.compile(r"\b(?:central\s+index\s+key|CIK)(?:\s+(?:number|no\.?|#))?\s*[:#]?\s*"
                  r"(\d{1,10})\b", re.I)


def squash(text: str) -> str:
    """Lower-case letters and digits only: the form company names are compared in."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


def name_words(name: str) -> list[str]:
    """Words of a company name without corporate suffixes ("JPMorgan Chase & Co." ->
    ["jpmorgan", "chase"]); "&" counts as "and"."""
    words = [w.lower() for w in re.findall(r"[A-Za-z0-9]+", name.replace("&", " and "))]
    while words and words[-1] in CORPORATE_WORDS:
        words.pop()
    while words and words[0] == "the":
        words.pop(0)
    return words


def name_key(name: str) -> str:
    """One key for every spelling of a company's name ("NVIDIA CORP", "NVIDIA Corporation"
    -> "nvidia"); "" for no name."""
    if not name or name.strip().lower() == "unknown":
        return ""
    return "".join(name_words(name))


def normal_cik(value: str | int | None) -> str:
    """A CIK as EDGAR writes it in file names: 10 digits, zero-padded ("" if not a CIK)."""
    digits = str(value or "").strip()
    if not digits.isdigit() or not 0 < len(digits) <= 10 or int(digits) == 0:
        return ""
    return digits.zfill(10)


def cover_cik(text: str) -> str:
    """A CIK the cover prints ("Central Index Key: 0001045810", "CIK 1045810"), or ""."""
    found = _CIK.search(text[:COVER_CHARS])
    return normal_cik(found.group(1)) if found else ""


def cover_lines(text: str) -> list[str]:
    """The cover's non-empty lines, cell separators read as spaces."""
    cover = text[:COVER_CHARS].replace(" | ", " ").replace("|", " ")
    return [" ".join(line.split()) for line in cover.split("\n") if line.strip()]


def looks_like_name(line: str) -> bool:
    """Plausibly a registrant's name: letters, no cover label, not a bare place name."""
    words = re.sub(r"[^a-z ]", " ", line.lower()).split()
    if words and all(w in _STATES for w in words):
        return False
    return 2 <= len(line) <= 100 and sum(c.isalpha() for c in line) >= 2 and \
        not _NOT_NAME.search(line)


def _undo_drop_caps(name: str) -> str:
    """"M GM R ESORTS I NTERNATIONAL" -> "MGM RESORTS INTERNATIONAL" (two splits or more:
    a single one, as in "W P CAREY", is left alone)."""
    return _DROP_CAP.sub(r"\1", name) if len(_DROP_CAP.findall(name)) >= 2 else name


def _name_above(lines: list[str], at: int) -> str | None:
    """The name ending on the line above ``at``, drop-cap fragments joined back."""
    k = at - 1
    while k >= 0 and _FORMERLY.match(lines[k]):  # "(formerly Square, Inc.)" under the name
        k -= 1
    if k < 0:
        return None
    name = lines[k]
    while k > 0 and _ENDS_WITH_INITIAL.search(lines[k - 1]) and len(lines[k - 1]) < 60:
        k -= 1
        name = lines[k] + name  # "MGM RESORTS I" + "NTERNATIONAL"
    name = _undo_drop_caps(name)
    return name if looks_like_name(name) else None


def _by_label(lines: list[str]) -> str | None:
    for i, line in enumerate(lines):
        if _EXACT.search(line):
            above = _name_above(lines, i)
            if above:
                return above
            below = lines[i + 1] if i + 1 < len(lines) else ""
            below = _undo_drop_caps(below)
            return below if looks_like_name(below) else None
    return None


def _after_file_number(lines: list[str]) -> str | None:
    for i, line in enumerate(lines[:-1]):
        if _FILE_NO.search(line):
            name = _undo_drop_caps(lines[i + 1])
            return name if looks_like_name(name) and not _EXACT.search(name) else None
    return None


def _from_signatures(text: str) -> str | None:
    for m in _REGISTRANT.finditer(text):
        name = _undo_drop_caps(" ".join(m.group(1).replace("|", " ").split()))
        if looks_like_name(name):
            return name
    return None


def registrant_name(text: str) -> str | None:
    """The registrant's name as printed on the cover (see module doc), or None."""
    lines = cover_lines(text)
    return _by_label(lines) or _after_file_number(lines) or _from_signatures(text)


def former_names(text: str) -> list[str]:
    """Former names the cover states ("formerly ...", the line above "(Former name...)")."""
    lines = cover_lines(text)
    found: list[str] = []
    for i, line in enumerate(lines):
        m = _FORMERLY.search(line)
        if m:
            found.append(m.group(1).strip(" ,;"))
        elif _FORMER_LABEL.search(line) and i and looks_like_name(lines[i - 1]):
            if not _EXACT.search(lines[i - 1]) and not re.search(r"\d{3}", lines[i - 1]):
                found.append(lines[i - 1])
    return list(dict.fromkeys(n for n in found if looks_like_name(n)))


def tickers(text: str) -> list[str]:
    """Trading symbols listed under the cover's "Trading Symbol(s)" heading."""
    lines = cover_lines(text)
    start = next((i for i, line in enumerate(lines) if _SYMBOL_HEAD.search(line)), None)
    if start is None:
        return []
    found: list[str] = []
    for line in lines[start : start + 20]:
        if found and _SYMBOLS_END.match(line):
            break
        found.extend(m.group(1) for m in _SYMBOL.finditer(line))
    return list(dict.fromkeys(found))[:MAX_TICKERS]
