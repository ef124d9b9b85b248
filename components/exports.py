"""Export buttons for a run record (Markdown and JSON; keys are scrubbed by core.app.runs)."""

from __future__ import annotations

from core.app.runs import RunRecord, export_json, export_markdown


def render_export_buttons(md_col, json_col, record: RunRecord, settings, key_prefix: str,
                          names: dict[str, str] | None = None) -> None:
    """Two download buttons in the given columns; ``key_prefix`` keeps widget keys unique;
    ``names`` (document id -> filing name) names the filings in the report."""
    md_col.download_button("Export Markdown", export_markdown(record, settings, names),
                           file_name=f"run-{record.id}.md", mime="text/markdown",
                           key=f"{key_prefix}_export_md")
    json_col.download_button("Export JSON", export_json(record, settings),
                             file_name=f"run-{record.id}.json", mime="application/json",
                             key=f"{key_prefix}_export_json")
