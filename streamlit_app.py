"""Entry point: page config, session defaults, cached services, navigation, shared sidebar.

``make run`` starts it through ``serve.py`` (``streamlit run serve.py``: this script behind
``st.App``, so a page opened by its URL logs no 404s); ``streamlit run streamlit_app.py``
still works, with those 404s. Pages live in ``app_pages/`` (declared in
``components.navigation``) and are routed by ``st.navigation``, never by directory
auto-discovery; they stay thin and draw with the renderers in ``components/``.
"""

# ruff: noqa: E402 - the imports wait for the server's warm-up (components.warmup) first
from __future__ import annotations

from components import warmup

warmup.wait()  # a fresh server's warm-up (serve.py): what it imported and opened, ready

import streamlit as st

from components import keys, navigation, services
from components.ingest_view import batch_line
from components.jobs import progress_line
from components.sidebar import ActiveStack, render_activity, render_sidebar
from core.foundation.errors import AppError
from core.llm.breaker import latest_account
from core.llm.reach import last_reach
from core.store.storage import describe as describe_storage

st.set_page_config(
    page_title="Deep Filings — research agent",
    layout="wide",
    initial_sidebar_state="expanded",
)

try:
    services.base_settings()
except AppError as _exc:  # a bad DTR_* value: say which, instead of a traceback
    st.error(f"{_exc}\n\nFix the environment or `.env`, then restart the app.")
    st.stop()

for _key, _default in keys.SHARED_DEFAULTS.items():
    st.session_state.setdefault(_key, _default.copy() if hasattr(_default, "copy") else _default)
if not st.session_state.get(keys.APP_SETTINGS_LOADED):  # a new session starts from saved settings
    st.session_state[keys.APP_OVERRIDES] = {**services.saved_overrides(),
                                            **st.session_state[keys.APP_OVERRIDES]}
    st.session_state[keys.APP_SETTINGS_LOADED] = True

page = st.navigation(navigation.pages())


def _activity() -> list[str]:
    """Background work of this server, one line each (ingest progress, research runs,
    comparisons, evaluations)."""
    from core.app import jobs

    lines = []
    for job in jobs.active("ingest"):
        if job.progress is not None:
            lines.append(f"Ingesting: {batch_line(job.progress)} ({job.seconds:.0f} s)")
    for job in jobs.active("baseline"):  # Compare's pieces, built right after an ingest
        what = job.progress.line() if job.progress is not None \
            else "Compare's baseline pieces: starting"
        lines.append(f"{what} ({job.seconds:.0f} s)")
    for job in jobs.active("research"):
        lines.append(f"Run {job.id}: {progress_line(job.events, job.seconds, 0)}")
    for job in jobs.active("compare") + jobs.active("evaluate"):
        what = job.progress.line() if job.progress is not None else "starting"
        lines.append(f"{job.kind.capitalize()}: {what} ({job.seconds:.0f} s)")
    return lines


def _active_stack() -> ActiveStack:
    app = services.current()
    settings, corpus = app.settings, app.corpus
    docs = corpus.documents()
    info = app.reranker.info
    try:
        web_name = app.web.name
    except Exception as exc:  # noqa: BLE001 - a broken provider must not hide the app
        web_name = f"unavailable ({exc})"
    return ActiveStack(
        documents=len(docs),
        chunks=sum(d.n_chunks for d in docs),
        llm=app.describe_llm(),
        llm_offline=app.offline,
        reranker=info.name,
        reranker_kind=info.kind,
        reranker_reason=info.reason,
        web=web_name,
        data_dir=describe_storage(settings),
        llm_model=settings.llm_model,
        llm_last_run=latest_account(),
        llm_reach=last_reach(settings),
    )


with st.sidebar:
    st.caption("Deep Filings · research agent over SEC filings")
render_sidebar(_active_stack())
render_activity(_activity)

for level, message in st.session_state[keys.APP_FLASH]:
    getattr(st, level, st.info)(message)
st.session_state[keys.APP_FLASH] = []

page.run()
