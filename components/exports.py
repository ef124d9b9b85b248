"""Export buttons for a run record (Markdown, JSON and a self-contained HTML note; keys are
scrubbed by core.app.runs)."""

from __future__ import annotations

from core.app.report_html import export_html
from core.app.runs import RunRecord, export_json, export_markdown


def render_export_buttons(md_col, json_col, record: RunRecord, settings, key_prefix: str,
                          names: dict[str, str] | None = None, html_col=None) -> None:
    """Download buttons in the given columns; ``key_prefix`` keeps widget keys unique;
    ``names`` (document id -> filing name) names the filings in the report. The HTML note
    goes in ``html_col`` (under the Markdown button when none is given)."""
    md_col.download_button("Export Markdown", export_markdown(record, settings, names),
                           file_name=f"run-{record.id}.md", mime="text/markdown",
                           key=f"{key_prefix}_export_md")
    json_col.download_button("Export JSON", export_json(record, settings),
                             file_name=f"run-{record.id}.json", mime="application/json",
                             key=f"{key_prefix}_export_json")
    (html_col or md_col).download_button(
        "Export HTML", export_html(record, settings, names), file_name=f"run-{record.id}.html",
        mime="text/html", key=f"{key_prefix}_export_html",
        help="A self-contained research note (question, answer with numbered sources, "
             "figures, plan, each step's evidence): open it in a browser, print it to PDF.")
