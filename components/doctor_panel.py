"""The Library's "Check the corpus" panel: ``core.app.doctor`` in the app.

A button runs the doctor's examination (registry, vectors, keyword index, originals, run
records, checkpoints and cache) and lists what it found; when something can be repaired a second
button carries out the repairs (the folder is examined again at that moment, so a stale list
never repairs what is no longer there) and the list shows what was done, then a fresh check.
The panel only renders; the doctor computes.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from components.text import md_escape
from core.foundation.config import Settings

REPORT = "lib_doctor_report"  # the last report shown: (lines, repairable, checked, repaired)
CHECK = "lib_doctor_check"
REPAIR = "lib_doctor_repair"


def _summary(report, repaired: bool = False) -> dict:
    return {"lines": [(f.repaired, f.line()) for f in report.findings],
            "repairable": sum(1 for f in report.findings if f._fix is not None
                              and not f.repaired),
            "checked": list(report.checked), "repaired": repaired}


def _run(settings: Settings, open_store: Callable[[], object], fix: bool) -> None:
    from core.app.doctor import examine, repair_until_sound

    try:
        report = repair_until_sound(settings, open_store) if fix else \
            examine(settings, open_store)
    except Exception as exc:  # noqa: BLE001 - shown in the panel, never a traceback
        st.session_state[REPORT] = {"error": f"{type(exc).__name__}: {exc}"}
        return
    st.session_state[REPORT] = _summary(report, repaired=fix)


def render_doctor_panel(settings: Settings, open_store: Callable[[], object]) -> None:
    """The panel; ``open_store()`` returns the corpus's store (called when the registry
    can be read)."""
    shown = st.session_state.get(REPORT)
    with st.expander("Check the corpus", expanded=shown is not None):
        st.caption("Compares the registry, the vectors, the keyword index, the kept originals "
                   "and the run records, and checks the checkpoints and cache files "
                   "(`python -m core doctor`). Checking changes nothing.")
        if st.button("Check the corpus", key=CHECK):
            _run(settings, open_store, fix=False)
            shown = st.session_state[REPORT]
        if shown is None:
            return
        if "error" in shown:
            st.error(f"The check could not finish: {md_escape(shown['error'])}")
            return
        if not shown["lines"]:
            st.success(f"Nothing wrong ({', '.join(shown['checked'])} checked).")
            return
        for repaired, line in shown["lines"]:
            (st.success if repaired else st.warning)(md_escape(line))
        if shown["repaired"]:
            left = [line for repaired, line in shown["lines"] if not repaired]
            st.info(f"{len(shown['lines']) - len(left)} problem(s) repaired"
                    + (f"; {len(left)} cannot be repaired here." if left else ".")
                    + " Check again to confirm.")
        elif shown["repairable"] and st.button(
                f"Repair {shown['repairable']} problem(s)", type="primary", key=REPAIR,
                help="Re-embeds lost vectors from the stored chunk texts (no filing is parsed "
                     "again), builds the keyword index again from them, reads lost or "
                     "out-of-date facts again from the kept originals, moves unreadable run "
                     "records to runs/quarantine/, deletes "
                     "originals no document owns, moves corrupt checkpoint/cache files "
                     "aside."):
            _run(settings, open_store, fix=True)
            st.rerun()
