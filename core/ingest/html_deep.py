"""Parse HTML nested deeper than libxml2 allows, with Python's own HTML tokenizer.

libxml2 stops building the tree at depth 256 (2048 with ``huge_tree``) and silently drops
everything below. Python's ``html.parser`` has no depth limit; its events are fed to an lxml
``TreeBuilder`` (HTML element classes, iterative, so any depth works) and the loader walks the
result as usual. Slower than libxml2, so it only runs when libxml2 reports that limit.
"""

from __future__ import annotations

from html.parser import HTMLParser

from lxml import etree
from lxml import html as lxml_html

VOID_TAGS = frozenset(
    "area base br col embed hr img input keygen link meta param source track wbr".split()
)


class _TreeFeeder(HTMLParser):
    """html.parser events -> lxml TreeBuilder; unmatched end tags are ignored, open
    elements are closed at the end, void elements never wait for an end tag."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.builder = etree.TreeBuilder(parser=lxml_html.HTMLParser())
        self.open: list[str] = []
        self.builder.start("html", {})
        self.open.append("html")

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag == "html":
            return
        self.builder.start(tag, {k: v or "" for k, v in attrs if _valid_name(k)})
        if tag in VOID_TAGS:
            self.builder.end(tag)
        else:
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs) -> None:
        if tag == "html":
            return
        self.builder.start(tag, {k: v or "" for k, v in attrs if _valid_name(k)})
        self.builder.end(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == "html" or tag not in self.open:
            return
        while self.open:
            name = self.open.pop()
            self.builder.end(name)
            if name == tag:
                break

    def handle_data(self, data: str) -> None:
        self.builder.data(data)

    def handle_comment(self, data: str) -> None:
        self.builder.comment(data)

    def finish(self):
        self.close()
        while self.open:
            self.builder.end(self.open.pop())
        return self.builder.close()


def _valid_name(name: str) -> bool:
    try:
        etree.QName(name)
    except ValueError:
        return False
    return True


def parse_deep(text: str):
    """An lxml HTML tree of ``text`` built without a nesting limit."""
    feeder = _TreeFeeder()
    feeder.feed(text)
    return feeder.finish()
