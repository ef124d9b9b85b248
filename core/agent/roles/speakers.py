"""Who says a quoted line: the company whose filing it is, or the web source that published it.

The offline brief quotes filings, and a filing says "we": a quote is only readable with its
speaker in front ("NVIDIA: “We expect competition ...”"). A company is named as the question
names it ("AMD"), else by its registry name as an analyst writes it ("Advanced Micro
Devices"). A web result from the keyless demo snapshot (articles written for the project's
demos) is labelled "demo web snapshot, not live", so it is never read as news.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.agent.deps import CorpusInfo
from core.agent.state import Evidence
from core.foundation.safety import clean_meta

DEMO_LABEL = "demo web snapshot, not live"
_PROVIDERS = frozenset({"snapshot", "tavily", "web", "saved"})
_PARENS = re.compile(r"\(([^()]*)\)\s*$")


@dataclass(frozen=True)
class Speaker:
    """The speaker of a quote: its name; web sources say so, demo ones are flagged."""

    name: str
    web: bool = False
    demo: bool = False
    date: str | None = None

    @property
    def tag(self) -> str:
        """How a quote is introduced: "NVIDIA", "Reuters (2024-01-30)", "Reuters, 2024-01-30
        (demo web snapshot, not live)"."""
        if not self.web:
            return self.name
        if self.demo:
            return f"{self.name}{f', {self.date}' if self.date else ''} ({DEMO_LABEL})"
        return f"{self.name} ({self.date})" if self.date else self.name


def is_demo(ev: Evidence) -> bool:
    """A web result from the bundled demo snapshot (its publisher reads "... demo article")."""
    return ev.kind == "web" and "demo article" in (ev.label or "").lower()


def _web_speaker(ev: Evidence) -> Speaker:
    inner = _PARENS.search(ev.label or "")
    who = inner.group(1).rpartition(", ")[0] if inner and ", " in inner.group(1) else ""
    who = re.sub(r"\s*·?\s*demo article\s*", "", who, flags=re.IGNORECASE).strip(" ·")
    who = clean_meta(who, fallback="")
    if who.lower() in _PROVIDERS:
        who = ""  # the search provider's name, not the publisher's
    if not who and ev.url:
        who = clean_meta(re.sub(r"^https?://(www\.)?", "", ev.url).split("/")[0], fallback="")
    return Speaker(who or "a web article", web=True, demo=is_demo(ev), date=ev.date)


def company_names(question: str, corpus: CorpusInfo | None) -> dict[str, str]:
    """{doc id: the company's name as the question names it, else its short registry name}."""
    from core.analysis.subjects import short_name
    from core.retrieval.scope import match_companies

    docs = list(corpus.documents) if corpus is not None else []
    names = {}
    for d in docs:  # a name is shown: one that reads like instructions is not (clean_meta)
        company = clean_meta(d.company)
        if company != "unknown":
            names[d.doc_id] = short_name(company)
    try:
        named = match_companies(question, docs).items() if docs and question else []
    except Exception:  # noqa: BLE001 - a name is a courtesy: the registry's stands
        named = []
    for raw, (_, ids) in named:
        for doc_id in ids:
            if doc_id in names:
                names[doc_id] = raw
    return names


def speaker(ev: Evidence, names: dict[str, str]) -> Speaker:
    """The speaker of evidence ``ev`` (``names``: ``company_names``); a filing of no known
    company is named by its citation label's filing part."""
    if ev.kind == "web":
        return _web_speaker(ev)
    if ev.doc_id and ev.doc_id in names:
        return Speaker(names[ev.doc_id])
    filing = (ev.label or "").split(" — ")[0].strip()
    return Speaker(filing or "The filing")
