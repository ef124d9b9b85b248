"""Bring a keyed element into view once: ``scroll_to("lib_focus_box", nonce)`` scrolls the
element Streamlit gives the class ``st-key-lib_focus_box`` to the middle of the screen.

A tiny ``st.components.v2`` component: its JavaScript only looks the element up by a class
built from a key this app chose (never from document or model text) and calls
``scrollIntoView``; it retries for a moment because the page draws in pieces, and does it
once per ``nonce`` so the analyst's own scrolling afterwards is left alone.
"""

from __future__ import annotations

import re

import streamlit as st

JS = """
export default function(component) {
  const { data } = component;
  const target = data && data.target;
  if (!target) return;
  const done = (window.__dfScrolled = window.__dfScrolled || {});
  const id = target + ':' + data.nonce;
  if (done[id]) return;
  done[id] = true;
  let tries = 0;
  const go = () => {
    const el = document.querySelector('.st-key-' + target);
    if (el) {
      el.scrollIntoView({ block: 'center', behavior: 'instant' });
      if (tries < 6) { tries += 1; setTimeout(go, 400); }  /* the page above may still grow */
    } else if (tries++ < 60) {
      setTimeout(go, 100);
    }
  };
  go();
}
"""

_component = st.components.v2.component("deep_filings_scroll_to", js=JS)
_SAFE = re.compile(r"^[A-Za-z0-9_-]+$")


def scroll_to(target: str, nonce: str, *, key: str = "scroll_to") -> None:
    """Scroll the element keyed ``target`` into view (once per ``nonce``)."""
    if not _SAFE.match(target):
        raise ValueError(f"not a safe element key: {target!r}")
    _component(data={"target": target, "nonce": str(nonce)}, key=key)
