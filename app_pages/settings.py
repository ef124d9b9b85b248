"""Settings: LLM endpoint, web provider, ranking, limits. Non-secret settings are saved in the
data folder (``core.app.ui_settings``); keys stay in this browser session only."""

from __future__ import annotations

import streamlit as st
from pydantic import ValidationError

from components import keys, services
from components.sidebar import reranker_words
from components.text import md_escape
from core.app import ui_settings
from core.foundation.strategies import RERANKERS

base = services.base_settings()
stored_at = ui_settings.settings_path(base)

st.title("Settings")
st.caption(
    f"Settings are saved in {stored_at} and apply to every session of this data folder, after "
    "a restart too. API keys are never written there (nor to run records, logs or exports): "
    "they stay in this browser session, or in the environment variables the server was started "
    "with. Defaults come from DTR_* environment variables."
)

current = services.session_settings()
overrides: dict = dict(st.session_state[keys.APP_OVERRIDES])

with st.form("settings_form"):
    st.subheader("Language model")
    st.caption(
        "Any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, LM Studio, llama.cpp). Leave the "
        "base URL and key empty to use the offline engine: deterministic rules for every role."
    )
    c1, c2 = st.columns(2)
    base_url = c1.text_input(
        "Base URL", value=current.llm_base_url or "", placeholder="http://127.0.0.1:11434/v1",
        help="Ends with /v1 for most servers. Empty: api.openai.com when a key is set.",
    )
    model = c2.text_input("Model", value=current.llm_model,
                          help="Model name as the endpoint knows it, e.g. gpt-4o-mini, qwen2.5.")
    c3, c4 = st.columns(2)
    api_key = c3.text_input(
        "API key", value="", type="password",
        placeholder="set" if current.llm_api_key else "not set",
        help="Kept in this session only. Leave empty to keep the current key.",
    )
    methods = ["json_schema", "function_calling", "json_mode", "prompt"]
    method = c4.selectbox(
        "Structured output method", methods, index=methods.index(current.llm_structured_method),
        help="json_schema suits OpenAI and vLLM; older llama.cpp servers need json_mode; "
        "prompt works with any chat endpoint. 'Test connection' picks one that works.",
    )
    clear_key = st.checkbox("Forget the API key for this session", value=False)

    st.subheader("Web search")
    st.caption("Web steps search Tavily when a key is set, otherwise the local snapshot of dated "
               "articles bundled with the project (replayable offline).")
    providers = ["auto", "tavily", "snapshot", "none"]
    w1, w2 = st.columns(2)
    provider = w1.selectbox(
        "Provider", providers, index=providers.index(current.web_provider),
        help="auto: Tavily when a key is set, else the local web snapshot (data/web_snapshot/).",
    )
    tavily_key = w2.text_input(
        "Tavily key", value="", type="password",
        placeholder="set" if current.tavily_api_key else "not set",
        help="Kept in this session only. Leave empty to keep the current key.",
    )

    st.subheader("Ranking")
    choices = list(RERANKERS)
    reranker = st.selectbox(
        "Re-ranking of search results", choices, index=choices.index(current.reranker),
        format_func=lambda c: RERANKERS[c].label,
        help="; ".join(f"{r.label}: {r.help}" for r in RERANKERS.values()),
    )
    active = services.current().reranker.info
    st.caption(md_escape(f"{RERANKERS[current.reranker].label}: {RERANKERS[current.reranker].help}."
                         f" Active now: {active.name}, {reranker_words(active.kind)}. "
                         f"{active.reason}"))

    st.subheader("Limits")
    st.caption("Bounds of every run: when one is reached the agent stops researching and answers "
               "with the evidence it has, saying why it stopped.")
    l1, l2, l3, l4 = st.columns(4)
    max_steps = l1.number_input("Max steps", 1, 20, current.max_steps,
                                help="Plan steps the agent may research in one run.")
    max_revisions = l2.number_input("Max revisions", 0, 10, current.max_revisions,
                                    help="Times the policy may revise a step and retry it.")
    top_k = l3.number_input("Top-k", 1, 200, current.top_k,
                            help="Candidates fetched per retriever before reranking.")
    top_n = l4.number_input("Top-n", 1, 50, current.top_n,
                            help="Chunks kept after reranking, given to the distiller.")
    l5, l6, _, _ = st.columns(4)
    max_wall = l5.number_input("Max seconds", 10.0, 3600.0, float(current.max_wall_s), step=10.0,
                               format="%.0f",
                               help="Wall-time bound of a run; it then answers with what it has.")
    max_tokens = l6.number_input("Max tokens", 1000, 2_000_000, current.max_tokens, step=1000,
                                 help="LLM token budget of a run (prompt + completion).")

    saved = st.form_submit_button("Save settings", type="primary")

if saved:
    new = dict(overrides)
    new.update(
        llm_base_url=base_url.strip() or None,
        llm_model=model.strip() or base.llm_model,
        llm_structured_method=method,
        web_provider=provider,
        reranker=reranker,
        max_steps=int(max_steps),
        max_revisions=int(max_revisions),
        top_k=int(top_k),
        top_n=int(top_n),
        max_wall_s=float(max_wall),
        max_tokens=int(max_tokens),
    )
    if api_key.strip():
        new["llm_api_key"] = api_key.strip()
    if clear_key:
        new["llm_api_key"] = None
    if tavily_key.strip():
        new["tavily_api_key"] = tavily_key.strip()
    if new["top_n"] > new["top_k"]:
        st.error("Top-n must not exceed top-k: the reranker keeps n of the k candidates.")
    else:
        try:
            after = services.apply_overrides(base, new)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}"
                                 for e in exc.errors())
            st.error(f"Not saved: {md_escape(problems)}")
        else:
            st.session_state[keys.APP_OVERRIDES] = new
            flash = st.session_state[keys.APP_FLASH]
            try:
                path = ui_settings.save(base, new)
            except OSError as exc:
                flash.append(("warning", f"Applied to this session, but not saved to "
                                         f"{stored_at}: {exc}"))
            else:
                kept = " Keys stay in this session only." if any(
                    new.get(k) for k in ui_settings.SECRET) else ""
                flash.append(("success", f"Settings saved to {path}.{kept}"))
            if ui_settings.endpoint_changed(current, after):
                from core.llm.reach import reach

                with st.spinner("Checking that the LLM endpoint answers…"):
                    level, words = ui_settings.reach_flash(reach(after))
                flash.append((level, md_escape(words)))
            st.rerun()

st.subheader("Test the connection")
st.caption(f"Active LLM: {md_escape(services.describe_llm(current))}")
st.caption("Sends one plain request, then a tiny structured one with the chosen method; if that "
           "method fails it tries json_schema, json_mode, function_calling and prompt in turn "
           "and saves the first that works.")
if st.button("Test connection", key="settings_test"):
    from core.llm.probe import check_connection

    with st.spinner("Sending a few tiny requests…"):
        check = check_connection(current)
    (st.success if check.ok else st.error)(md_escape(check.message))
    if check.ok and check.method and check.method != current.llm_structured_method:
        new = {**overrides, "llm_structured_method": check.method}
        st.session_state[keys.APP_OVERRIDES] = new
        flash = st.session_state[keys.APP_FLASH]
        flash.append(("success", md_escape(check.message)))
        try:
            ui_settings.save(base, new)
        except OSError as exc:
            flash.append(("warning", md_escape(f"Using {check.method} in this session; not "
                                               f"saved to {stored_at}: {exc}")))
        else:
            flash.append(("info", md_escape(f"Structured output method set to {check.method} "
                                            f"and saved to {stored_at}.")))
        st.rerun()  # the form shows the method now in use

if (overrides or stored_at.exists()) and st.button("Reset to the server defaults",
                                                   key="settings_reset"):
    ui_settings.clear(base)
    st.session_state[keys.APP_OVERRIDES] = {}
    st.rerun()
