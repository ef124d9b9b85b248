"""The Research screen's own saved choice, kept in the data folder across questions, tabs and
restarts: "Always review the plan" (a fast-path question is planned and paused for review
too). One small JSON file beside the app's saved settings (``core.app.ui_settings``)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from core.foundation.config import Settings

log = logging.getLogger(__name__)

FILE_NAME = "research_prefs.json"


def prefs_path(settings: Settings) -> Path:
    return settings.data_dir / FILE_NAME


def always_review(settings: Settings) -> bool:
    """The saved "Always review the plan" (False when never saved or unreadable)."""
    try:
        data = json.loads(prefs_path(settings).read_text("utf-8"))
    except FileNotFoundError:
        return False
    except (OSError, ValueError):
        log.warning("ignoring unreadable %s", prefs_path(settings))
        return False
    return bool(data.get("always_review")) if isinstance(data, dict) else False


def save_always_review(settings: Settings, value: bool) -> None:
    """Keep "Always review the plan" (atomically)."""
    path = prefs_path(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(FILE_NAME + ".tmp")
    tmp.write_text(json.dumps({"always_review": bool(value)}), "utf-8")
    tmp.replace(path)
