"""Tool errors a model can act on: what was not understood and what the corpus holds.

A client's model reads the message and tries again: an unknown company comes back with the
nearest names loaded, an unknown metric with close catalogue names, a period with the
periods that hold figures. Nothing is guessed in its place (a near name is offered, never
taken). ``guarded`` wraps every tool body: the product's own errors (``AppError``, whose
messages are written for users) pass through as they are; anything else is logged on the
server with its traceback and the client gets one line saying so, never the traceback.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from rapidfuzz import fuzz, process, utils

from core.foundation.errors import AppError

log = logging.getLogger(__name__)
F = TypeVar("F", bound=Callable[..., Any])


class InputError(ToolError):
    """An argument the corpus or the catalogue cannot answer, said with what they hold."""


def nearest(words: str, choices: Iterable[str], *, limit: int = 3, cutoff: float = 60.0
            ) -> list[str]:
    """The choices closest to ``words`` (rapidfuzz WRatio, case and punctuation folded),
    best first, each once."""
    pool = list(dict.fromkeys(c for c in choices if c))
    found = process.extract(words, pool, scorer=fuzz.WRatio, processor=utils.default_process,
                            limit=limit * 3, score_cutoff=cutoff)
    return list(dict.fromkeys(hit[0] for hit in found))[:limit]


def _listed(items: list[str], limit: int = 12) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def unknown_company(words: str, near: list[str], loaded: list[str]) -> InputError:
    if not loaded:
        return InputError(f"No company {words!r}: the corpus is empty. Add filings with "
                          "`python -m core ingest FILE` or `python -m core fetch TICKER`.")
    close = f" Nearest names loaded: {_listed(near)}." if near else ""
    return InputError(f"No company {words!r} is loaded.{close} Companies loaded: "
                      f"{_listed(loaded)}. Call list_filings for their tickers and CIKs, "
                      "or add the company's filings.")


def unknown_metric(words: str, near: list[str]) -> InputError:
    close = f" Close catalogue names: {_listed(near)}." if near else ""
    return InputError(f"No metric {words!r} in the catalogue.{close} Call metrics for every "
                      "name, synonym and formula; a formula written in a question goes to "
                      "analyze.")


def bad_period(text: str) -> InputError:
    return InputError(f"{text!r} is not a period: write a fiscal year (FY2024) or a fiscal "
                      "quarter (FY2024-Q1).")


def unknown_period(period: str, whose: str, periods: list[str]) -> InputError:
    have = f"periods with figures: {_listed(periods)}" if periods else \
        "no period with figures (its filings hold no facts)"
    return InputError(f"{whose} has no figures for {period} in the filings loaded ({have}). "
                      "Ask for one of those, or add the filing that reports it.")


def unknown_filing_period(period: str, whose: str, periods: list[str]) -> InputError:
    return InputError(f"No filing of {whose} is for {period}; periods of the filings loaded: "
                      f"{_listed(periods) or 'none'}.")


def unknown_form(form: str, forms: list[str]) -> InputError:
    return InputError(f"No {form} filing is loaded; forms loaded: {_listed(forms) or 'none'}.")


def unknown_section(section: str, sections: list[str]) -> InputError:
    return InputError(f"No section {section!r} in the filings searched; their sections: "
                      f"{_listed(sections, 20)}.")


def unknown_document(doc_id: str, near: list[str]) -> InputError:
    close = f" Nearest ids: {_listed(near)}." if near else ""
    return InputError(f"No document {doc_id!r} is loaded.{close} Call list_filings for the "
                      "doc ids.")


def read_only(tool: str) -> ToolError:
    return ToolError(f"{tool} changes the corpus, and this server is read-only: it runs "
                     "without --allow-writes. Restart it with `python -m core mcp "
                     "--allow-writes` to ingest, fetch or delete filings (or use the "
                     "dashboard's Library).")


def guarded(fn: F) -> F:
    """``fn`` whose failures reach the client as one line (see the module docstring)."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (ToolError, ResourceError):
            raise
        except AppError as exc:
            raise ToolError(str(exc)) from None
        except Exception as exc:  # noqa: BLE001 - logged here; the client gets one line
            log.exception("MCP tool %s failed", fn.__name__)
            raise ToolError(f"{fn.__name__} failed unexpectedly ({type(exc).__name__}); the "
                            "server's log has the details. Try again, or with other "
                            "arguments.") from None

    return run  # type: ignore[return-value]
