"""Session-state keys, one constant per key, prefixed by the page that owns them.

Shared keys (``app_*``) are initialised with ``setdefault`` in ``streamlit_app.py``.
"""

from __future__ import annotations

# --- shared ------------------------------------------------------------------
APP_OVERRIDES = "app_settings_overrides"  # dict of Settings field -> value (session only)
APP_FLASH = "app_flash"  # list of (level, message) shown once on the next run
APP_SETTINGS_LOADED = "app_settings_loaded"  # the saved settings file was read this session
APP_ACTIVITY = "app_activity_slot"  # (sidebar placeholder, lines function) of this run

# --- library -----------------------------------------------------------------
LIB_UPLOAD_NONCE = "lib_upload_nonce"  # bumped to clear the uploader after an ingest
LIB_LAST_REPORT = "lib_last_report"  # list of per-file outcomes of the last ingest
LIB_BROWSE_DOC = "lib_browse_doc"
LIB_BROWSE_SECTION = "lib_browse_section"
LIB_CONFIRM_DELETE = "lib_confirm_delete"
LIB_FOCUS_CHUNK = "lib_focus_chunk"  # chunk to highlight (opened from a citation)
LIB_FOCUS_SPAN = "lib_focus_span"  # (start, end) of the cited part of that chunk
LIB_LINK_SEEN = "lib_link_seen"  # the ?chunk= link already applied to the browser
LIB_JOB = "lib_ingest_job"  # id of the ingest job this session started

# --- research ----------------------------------------------------------------
RES_THREAD = "res_thread_id"  # thread id of the run on screen (mirrored in ?thread=)
RES_QUESTION = "res_question"  # the question box
RES_SCOPE = "res_scope_docs"
RES_ALWAYS_REVIEW = "res_always_review"  # review even a fast-path (simple) question's plan
RES_DRAFT = "res_plan_draft"  # {"thread": id, "steps": [StepDraft]} under edit
RES_PLAN_VERSION = "res_plan_version"  # bumped to reset the step forms to the draft
RES_READING = "res_reading"  # {thread: Reading} the analyst corrected at review
RES_ERROR = "res_error"  # a message shown once above the run
RES_ASKING = "res_asking_over"  # the run whose link stays while "New question" is asked
RES_TIMINGS = "res_timings"  # {thread: {"plan_s": ..., "answer_s": ...}}

# --- compare -----------------------------------------------------------------
CMP_RESULT = "cmp_result"
CMP_QUESTION = "cmp_question"
CMP_DEEP_RUN = "cmp_deep_run_id"  # a deep run to compare against (from Research)
CMP_SCORES = "cmp_scores"  # reference-free scores of the two runs on screen

# --- runs --------------------------------------------------------------------
RUNS_OPEN = "runs_open_id"  # mirrored in ?run=
RUNS_CONFIRM_DELETE = "runs_confirm_delete"
RUNS_SEARCH = "runs_search"
RUNS_COMPANIES = "runs_companies"
RUNS_STATUSES = "runs_statuses"
RUNS_BACKENDS = "runs_backends"
RUNS_TAGS = "runs_tags"
RUNS_DATES = "runs_dates"

SHARED_DEFAULTS: dict[str, object] = {
    APP_OVERRIDES: {},
    APP_FLASH: [],
    LIB_UPLOAD_NONCE: 0,
    LIB_LAST_REPORT: [],
    RES_PLAN_VERSION: 0,
    RES_TIMINGS: {},
}
