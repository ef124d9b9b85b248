"""Bring a keyed element into view once: ``scroll_to("lib_focus_box", nonce)`` scrolls the
element Streamlit gives the class ``st-key-lib_focus_box`` to the middle of the screen.

A tiny ``st.components.v2`` component: its JavaScript only looks the element up by a class
built from a key this app chose (never from document or model text) and calls
``scrollIntoView``; it scrolls again while the element moves (the page draws in pieces, slowly
on a busy machine) until its place has held for two seconds, and does it once per ``nonce``;
the analyst's own scrolling (wheel, touch, keys) stops it.
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
  let tries = 0, stable = 0, last = null, moved = false;
  const mine = () => { moved = true; };  /* the analyst scrolls: leave the page alone */
  ['wheel', 'touchstart', 'keydown'].forEach(
    (ev) => window.addEventListener(ev, mine, { once: true, passive: true }));
  const go = () => {
    if (moved) return;
    const el = document.querySelector('.st-key-' + target);
    if (el) {
      const top = el.getBoundingClientRect().top;
      const seen = top >= 0 && top < window.innerHeight - 40;
      if (!seen || last === null || Math.abs(top - last) > 1) {
        el.scrollIntoView({ block: 'center', behavior: 'instant' });
        stable = 0;
      } else {
        stable += 1;
      }
      last = el.getBoundingClientRect().top;
      /* the page above may still grow (slowly on a busy machine): until its place has held
         for two seconds, at most half a minute */
      if (stable < 5 && tries++ < 75) setTimeout(go, 400);
    } else if (tries++ < 150) {
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
