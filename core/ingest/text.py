"""Byte decoding, whitespace normalisation and the plain text / markdown loader."""

from __future__ import annotations

import codecs
import re

from core.foundation.types import ParsedDocument

_CHARSET_RE = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_\-:.]+)""", re.I)
_XML_DECL_RE = re.compile(rb"""^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9_\-.]+)["']""", re.I)
_LATIN1_ALIASES = {"iso-8859-1", "iso8859-1", "latin-1", "latin1", "l1", "iso_8859-1", "cp819"}
_ASCII_ALIASES = {"ascii", "us-ascii", "646", "iso646-us"}


def _cp1252_lenient(err: UnicodeDecodeError) -> tuple[str, int]:
    """Map the five bytes windows-1252 leaves undefined to their Latin-1 code points."""
    bad = err.object[err.start : err.end]
    return bad.decode("latin-1"), err.end


codecs.register_error("cp1252_lenient", _cp1252_lenient)


def declared_charset(data: bytes) -> str | None:
    """Charset named by an XML declaration or a ``<meta>`` tag in the first 4 KB, lower-cased."""
    head = data[:4096]
    for pattern in (_XML_DECL_RE, _CHARSET_RE):
        found = pattern.search(head)
        if found:
            return found.group(1).decode("ascii", "ignore").lower()
    return None


def decode_bytes(data: bytes, declared: str | None = None) -> str:
    """Decode bytes without a wrong guess: BOM, then strict UTF-8, then the declared charset,
    then windows-1252.

    Bytes that are valid UTF-8 are read as UTF-8 whatever the declaration says (windows-1252
    text with accents or curly quotes is practically never valid UTF-8). Latin-1 and ASCII
    declarations are read as windows-1252, as browsers do; undefined windows-1252 bytes never
    become U+FFFD.
    """
    if data.startswith(codecs.BOM_UTF8):
        return data[3:].decode("utf-8", "cp1252_lenient")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16", "replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    enc = (declared or "").strip().lower()
    if enc and enc not in _LATIN1_ALIASES | _ASCII_ALIASES and "utf" not in enc:
        try:
            codecs.lookup(enc)
            return data.decode(enc)
        except (LookupError, UnicodeDecodeError):
            pass
    return data.decode("cp1252", "cp1252_lenient")


# Some filings reach EDGAR already mangled: the typed character was replaced by U+FFFD before
# filing (NVIDIA's FY2023 10-K holds 514 of them). The character is lost; these rules put back
# the likeliest one from its neighbours (apply them before computing offsets).
_FFFD_RULES = (
    (re.compile(r"(?<=\w)\ufffd(?=\w)"), "\u2019"),  # gamer's
    (re.compile(r"(?<=s)\ufffd(?= [a-z])"), "\u2019"),  # partners' supply
    (re.compile(r"^\ufffd(?= \d{4}\b)", re.M), "\u00a9"),  # (c) 2023 NVIDIA Corporation
    (re.compile(r"^\ufffd[ \t]*", re.M), "\u2022 "),  # a bullet opening a line
    (re.compile(r"(?<=[\s(])\ufffd(?=\d{3}\.\d)"), "\u00a7"),  # (section 232.405
    (re.compile(r"(?<=[\s(\[/])\ufffd(?=[A-Za-z])"), "\u201c"),  # "Item 1A
    (re.compile(r"(?<=[\w.,!?)])\ufffd"), "\u201d"),  # Factors",
    (re.compile(r"\ufffd"), "\u2014"),  # a lone mark, e.g. a table's nil dash
)


def repair_replacement_chars(text: str) -> str:
    """Replace U+FFFD found in the source by the likeliest punctuation or bullet."""
    if "\ufffd" not in text:
        return text
    for pattern, repl in _FFFD_RULES:
        text = pattern.sub(repl, text)
    return text


# C1 control characters that really are windows-1252 punctuation (from &#146; references or
# latin-1 mis-decoding): map them to what the author typed.
_C1_TO_CP1252 = {
    i: (ch if ord(ch) >= 0xA0 else "")
    for i in range(0x80, 0xA0)
    for ch in [bytes([i]).decode("cp1252", "cp1252_lenient")]
}
_CONTROLS = {chr(i): "" for i in (*range(0, 9), 0x0B, *range(0x0E, 0x20), 0x7F)}
_SPACES = str.maketrans(
    {
        **_CONTROLS,
        **_C1_TO_CP1252,
        **dict.fromkeys("\xa0\t\r\f\v\u2002\u2003\u2009\u202f", " "),
        **dict.fromkeys("\u200b\ufeff\xad", ""),
    }
)
_CONTROL_MAP = str.maketrans({**_CONTROLS, **_C1_TO_CP1252, "\f": "\n", "\r": ""})
_MULTI_SPACE = re.compile(r" {2,}")
_SPACE_AROUND_NL = re.compile(r" *\n *")
_MANY_NL = re.compile(r"\n{3,}")


_PAGE_NO = re.compile(
    r"^(?:page\s*)?[-–—]?\s*(?:\d{1,3}|[ivxlc]{1,6}|[a-z]-\d{1,3})\s*[-–—]?$", re.I
)
_NAV_LINK = re.compile(
    r"^(?:table of contents|index|index to financial statements|back to contents|"
    r"return to (?:top|table of contents))$",
    re.I,
)


def is_furniture(line: str) -> bool:
    """True for page furniture: a bare page number or a "Table of Contents" link line."""
    line = line.strip()
    return len(line) <= 40 and bool(_PAGE_NO.match(line) or _NAV_LINK.match(line))


def clean_controls(text: str) -> str:
    """Drop control characters (NUL and friends) and map C1 codes to windows-1252 marks."""
    return text.translate(_CONTROL_MAP)


def clean_inline(text: str) -> str:
    """Collapse all whitespace (NBSP, tabs, newlines) of one block into single spaces."""
    return " ".join(text.translate(_SPACES).split())


def clean_lines(text: str) -> str:
    """Normalise spaces within lines, keep single line breaks and at most one blank line."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").translate(_SPACES)
    text = _MULTI_SPACE.sub(" ", text)
    text = _SPACE_AROUND_NL.sub("\n", text)
    return _MANY_NL.sub("\n\n", text).strip()


def looks_textual(data: bytes, sample: int = 65536) -> bool:
    """True when the bytes decode and are mostly printable characters (no NULs)."""
    head = data[:sample]
    if b"\x00" in head and not head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return False
    text = decode_bytes(head[: len(head) - 4] if len(data) > sample else head)
    if not text:
        return False
    printable = sum(1 for ch in text if ch.isprintable() or ch in "\n\r\t\f")
    return printable / len(text) >= 0.97


def load_text(data: bytes) -> ParsedDocument:
    """Load plain text or markdown: decode, normalise whitespace, keep paragraphs."""
    text = repair_replacement_chars(clean_lines(decode_bytes(data)))
    first = next((line.strip("# ").strip() for line in text.splitlines() if line.strip()), None)
    return ParsedDocument(text=text, title=first[:200] if first else None)
