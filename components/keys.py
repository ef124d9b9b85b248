"""Session-state keys, one constant per key, prefixed by the page that owns them.

Shared keys (``app_*``) are initialised with ``setdefault`` in ``streamlit_app.py``.
"""

from __future__ import annotations

# --- shared ------------------------------------------------------------------
APP_OVERRIDES = "app_settings_overrides"  # dict of Settings field -> value (session only)
APP_FLASH = "app_flash"  # list of (level, message) shown once on the next run

# --- library -----------------------------------------------------------------
LIB_UPLOAD_NONCE = "lib_upload_nonce"  # bumped to clear the uploader after an ingest
LIB_LAST_REPORT = "lib_last_report"  # list of per-file outcomes of the last ingest
LIB_BROWSE_DOC = "lib_browse_doc"
LIB_BROWSE_SECTION = "lib_browse_section"
LIB_CONFIRM_DELETE = "lib_confirm_delete"
LIB_FOCUS_CHUNK = "lib_focus_chunk"  # chunk to highlight (opened from a citation)

# --- research ----------------------------------------------------------------
RES_THREAD = "res_thread_id"  # thread id of the run on screen (mirrored in ?thread=)
RES_QUESTION = "res_question"  # the question box
RES_QUESTION_SHOWN = "res_question_shown"  # the question of the run on screen
RES_PROPOSAL = "res_proposal"  # the PlanProposed event under review
RES_APPROVED = "res_approved_plan"  # PlanSteps approved, handed to resume()
RES_SCOPE = "res_scope_docs"
RES_PLAN_DF = "res_plan_df"  # DataFrame under edit (source of the data_editor)
RES_PLAN_EDITOR = "res_plan_editor"  # data_editor widget key
RES_PLAN_VERSION = "res_plan_version"  # bumped to reset the editor to a new plan
RES_EVENTS = "res_events"  # events of the run on screen, as they arrived
RES_PHASE = "res_phase"  # "idle" | "review" | "running" | "done" | "error"
RES_ERROR = "res_error"
RES_CITATION = "res_citation"  # selected citation number
RES_TIMINGS = "res_timings"  # {"plan_s": ..., "answer_s": ...}

# --- compare -----------------------------------------------------------------
CMP_RESULT = "cmp_result"
CMP_QUESTION = "cmp_question"
CMP_DEEP_RUN = "cmp_deep_run_id"  # a deep run to compare against (from Research)
CMP_SCORES = "cmp_scores"  # reference-free scores of the two runs on screen

# --- runs --------------------------------------------------------------------
RUNS_OPEN = "runs_open_id"
RUNS_CONFIRM_DELETE = "runs_confirm_delete"

SHARED_DEFAULTS: dict[str, object] = {
    APP_OVERRIDES: {},
    APP_FLASH: [],
    LIB_UPLOAD_NONCE: 0,
    LIB_LAST_REPORT: [],
    RES_EVENTS: [],
    RES_PHASE: "idle",
    RES_PLAN_VERSION: 0,
}
