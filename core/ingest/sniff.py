"""Tell a file's type by its content, never by its extension."""

from __future__ import annotations

import codecs
import re
from typing import Literal

from core.foundation.errors import IngestError
from core.ingest.text import looks_textual

Kind = Literal["pdf", "html", "text"]

_HTML_MARKERS = re.compile(rb"<(?:html|!doctype\s+html|\?xml|body|head|document>)", re.I)
_LEADING_JUNK = re.compile(rb"^(?:\s|<!--.*?-->)*", re.S)


def _head_bytes(head: bytes) -> bytes:
    """The first bytes without a byte-order mark; UTF-16 (marked by its BOM) re-encoded as
    UTF-8 so that markup is recognised whatever the encoding."""
    if head.startswith(codecs.BOM_UTF8):
        return head[len(codecs.BOM_UTF8) :]
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return head[: len(head) // 2 * 2].decode("utf-16", "ignore").encode("utf-8")
    return head


def sniff(data: bytes, file_name: str = "") -> Kind:
    """Return "pdf", "html" or "text" from the bytes, or raise IngestError.

    PDF: ``%PDF`` in the first KB. HTML: the content starts with markup and names
    ``<html``, ``<!DOCTYPE html``, ``<?xml`` or ``<body`` early (in UTF-8, or UTF-16 with a
    byte-order mark). Text: decodes and is
    mostly printable. Anything else (images, archives, a binary renamed .htm) is refused.
    """
    if b"%PDF-" in data[:1024]:
        return "pdf"
    head = _head_bytes(data[:8192])
    stripped = head[_LEADING_JUNK.match(head).end() :]
    if stripped.startswith(b"<") and _HTML_MARKERS.search(head) and b"\x00" not in head:
        return "html"
    if looks_textual(data):
        return "text"
    name = f"'{file_name}' " if file_name else ""
    raise IngestError(
        f"The file {name}is not a supported type: its content is neither PDF, HTML nor text "
        "(whatever its extension says). Upload a 10-K/10-Q as EDGAR HTML, PDF or plain text."
    )
