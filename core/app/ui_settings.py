"""Non-secret settings chosen in the app, kept in a file of the data folder across restarts.

Only the fields in ``PERSISTED`` are ever written (LLM endpoint and model without
credentials, structured-output method, web provider, reranker, limits); API keys are
not among them and stay in the session or the server's environment. A base URL that
carries credentials (``https://user:pass@host``) is not written either.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import ValidationError

from core.foundation.config import Settings

log = logging.getLogger(__name__)

FILE_NAME = "ui_settings.json"
PERSISTED = ("llm_base_url", "llm_model", "llm_structured_method", "web_provider", "reranker",
             "max_steps", "max_revisions", "top_k", "top_n", "max_wall_s", "max_tokens")
SECRET = ("llm_api_key", "tavily_api_key")


def settings_path(settings: Settings) -> Path:
    """Where the app's settings are stored for this data folder."""
    return settings.data_dir / FILE_NAME


def _has_credentials(url: Any) -> bool:
    if not isinstance(url, str) or not url:
        return False
    try:
        parts = urlsplit(url)
    except ValueError:
        return True
    return bool(parts.username or parts.password or "key=" in parts.query.lower())


def persistable(overrides: dict[str, Any]) -> dict[str, Any]:
    """The part of ``overrides`` that may be written: allowed fields, no credentials."""
    out = {k: overrides[k] for k in PERSISTED if k in overrides}
    if _has_credentials(out.get("llm_base_url")):
        out.pop("llm_base_url")
    return out


def save(settings: Settings, overrides: dict[str, Any]) -> Path:
    """Write the non-secret part of ``overrides`` (atomically); returns the file's path."""
    path = settings_path(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(FILE_NAME + ".tmp")
    tmp.write_text(json.dumps(persistable(overrides), indent=2, sort_keys=True), "utf-8")
    tmp.replace(path)
    return path


def load(settings: Settings) -> dict[str, Any]:
    """The saved overrides that still validate against ``settings`` ({} when none)."""
    path = settings_path(settings)
    try:
        data = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        log.warning("ignoring unreadable %s", path)
        return {}
    if not isinstance(data, dict):
        return {}
    kept = persistable(data)
    merged = settings.model_dump()
    good = {}
    for key, value in kept.items():
        try:
            Settings.model_validate({**merged, key: value})
        except ValidationError:
            log.warning("ignoring saved setting %s=%r (no longer valid)", key, value)
            continue
        good[key] = value
    return good


def clear(settings: Settings) -> None:
    """Forget the saved settings (back to the server's defaults)."""
    settings_path(settings).unlink(missing_ok=True)


ENDPOINT_FIELDS = ("llm_base_url", "llm_model", "llm_api_key")


def endpoint_changed(before: Settings, after: Settings) -> bool:
    """Whether a save changed the LLM endpoint (URL, model or key) to a configured one: the
    Settings page then checks that it answers (``core.llm.reach``) before saying saved."""
    from core.llm.factory import llm_configured

    return llm_configured(after) and any(getattr(before, f) != getattr(after, f)
                                         for f in ENDPOINT_FIELDS)


def reach_flash(outcome: Any) -> tuple[str, str]:
    """(level, words) of the save's endpoint check (a ``core.llm.reach.Reach``): a warning
    when it failed (saved all the same), info when it answered, never silence."""
    if not outcome.checked:
        return "info", f"The LLM endpoint was not checked: {outcome.message}"
    if not outcome.ok:
        return "warning", (f"Saved, but the LLM endpoint did not answer as an OpenAI-compatible "
                           f"API: {outcome.message}")
    return "info", (f"LLM endpoint checked: {outcome.message} Chat replies are tested by "
                    "'Test connection' below.")
