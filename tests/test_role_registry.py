"""A role is declared once (``core.agent.stages``): registering a test role, a cross-check
that follows the reflection, is all it takes for the step subgraph to run it, the picture to
draw it, the run record to keep its events as their own type, the CLI and the step card to
show them, and each of its LLM requests to carry the reply bound it declared.

The role below is the whole of what a new role is: its event, its schema and prompt, its
offline rule and its node, then one ``register`` call. Nothing in core/, components/ or the
CLI knows its name.
"""

from __future__ import annotations

import json
from typing import Literal

import pytest
from pydantic import BaseModel
from streamlit.testing.v1 import AppTest

from core.agent.common import current_step, usage_update
from core.agent.deps import AgentDeps, ask_llm
from core.agent.events import Clock, EventBase, emit
from core.agent.graph import picture
from core.agent.stages import STAGES, Stage, parse_event, register, unregister
from core.app.runs import RunRecord
from core.cli.agent import format_event
from testkit.agent_fakes import QUESTION, make_service

# --- the role: event, schema, prompt, offline rule, node -------------------------------


class CrossChecked(EventBase):
    type: Literal["cross_checked"] = "cross_checked"
    supported: bool
    why: str
    source: Literal["llm", "offline"]

    def line(self) -> str:
        return f"  cross-check: {'supported' if self.supported else 'unsupported'} — {self.why}"


class Verdict(BaseModel):
    supported: bool
    why: str


PROMPT = "Cross-check: is the finding supported by the context? Reply as JSON."


def offline_verdict(finding: str, context: str) -> Verdict:
    shared = set(finding.lower().split()) & set(context.lower().split())
    return Verdict(supported=len(shared) >= 3, why=f"{len(shared)} words of the finding are "
                   "in the context")


def cross_check_node(state, deps: AgentDeps) -> dict:
    clock, index, work = Clock(), state.get("step_index", 0), state["work"]
    call = ask_llm(deps, "checker", Verdict, [
        ("system", PROMPT),
        ("human", f"Sub-question: {current_step(state).sub_question}\n"
                  f"Finding: {work.finding}\nContext: {work.context[:2000]}")])
    verdict = call.value or offline_verdict(work.finding, work.context)
    source = "llm" if call.value is not None else "offline"
    emit(CrossChecked(node="cross_check", step=index, elapsed_ms=clock.ms, usage=call.usage
                      if call.usage.calls else None, supported=verdict.supported,
                      why=verdict.why, source=source))
    extra = {**work.extra, "cross_check": verdict.model_dump()}
    return {"work": work.model_copy(update={"extra": extra}), **usage_update("checker", call)}


CROSS_CHECK = Stage("cross_check", cross_check_node, events=(CrossChecked,), role="checker",
                    max_tokens=321, text=True, follows="reflect")


@pytest.fixture
def cross_check():
    register(CROSS_CHECK)
    yield CROSS_CHECK
    unregister(CROSS_CHECK.name)


# --- what one registration gives ------------------------------------------------------------


def test_one_registration_puts_the_role_in_the_graph_the_record_and_the_cli(settings,
                                                                           cross_check):
    nodes, edges = picture()
    assert "research_step:cross_check" in nodes
    assert ("research_step:reflect", "research_step:cross_check", False) in edges
    assert ("research_step:cross_check", "research_step:policy", False) in edges
    assert ("research_step:reflect", "research_step:policy", False) not in edges

    record = make_service(settings).ask(QUESTION)
    checked = [e for e in record.events if e.type == "cross_checked"]
    text_steps = {e.step for e in record.events if e.type == "step_reflected"}
    assert {e.step for e in checked} == text_steps and checked
    for step in text_steps:  # in the step's order: reflect, cross-check, policy
        order = [e.type for e in record.events if e.step == step]
        assert order.index("step_reflected") < order.index("cross_checked") \
            < order.index("policy_decided")
    assert all(e.source == "offline" for e in checked)
    assert "cross_check" in record.timings_ms

    again = RunRecord.model_validate_json(record.model_dump_json())
    kept = [e for e in again.events if e.type == "cross_checked"]
    assert kept == checked and all(isinstance(e, CrossChecked) for e in kept)
    assert format_event(kept[0]).startswith("  cross-check: ")
    assert type(parse_event(json.loads(kept[0].model_dump_json()))) is CrossChecked


def test_without_the_registration_nothing_knows_the_role(settings):
    assert all(s.name != "cross_check" for s in STAGES)
    assert "research_step:cross_check" not in picture()[0]
    record = make_service(settings).ask(QUESTION)
    assert not [e for e in record.events if e.type == "cross_checked"]
    assert ("research_step:reflect", "research_step:policy", False) in picture()[1]
    with pytest.raises(ValueError, match="follows 'nowhere'"):
        register(Stage("lost", cross_check_node, follows="nowhere"))


def _card_app():
    import streamlit as st

    from components.run_view import RunView
    from core.foundation.config import Settings
    from testkit.agent_fakes import QUESTION, make_service
    from tests.test_role_registry import CROSS_CHECK, register, unregister

    register(CROSS_CHECK)
    try:
        settings = Settings(data_dir=st.session_state["data_dir"], _env_file=None)
        RunView(key="t").add_all(make_service(settings).ask(QUESTION).events)
    finally:
        unregister(CROSS_CHECK.name)


def test_the_step_card_shows_the_roles_event_as_it_reads(tmp_path):
    at = AppTest.from_function(_card_app, default_timeout=120)
    at.session_state["data_dir"] = str(tmp_path)
    at.run()
    assert not at.exception, at.exception
    shown = [m.value.replace("\\", "") for m in at.markdown if "cross" in m.value]
    assert len(shown) == 3 and all(line.startswith("cross-check: supported — ") for line in shown)
    assert "words of the finding are in the context" in shown[0]


@pytest.mark.slow
def test_its_llm_requests_carry_the_bound_it_declared(tmp_path, cross_check, hash_embedder):
    from core.store.corpus_store import CorpusStore
    from testkit.corpus import amd_10k, nvda_10k
    from testkit.fakes.fixtures import llm_settings
    from testkit.fakes.openai_server import Behaviour, FakeOpenAIServer
    from testkit.scenarios import service, two_step_plan

    def checker_bodies(where, **overrides):
        with FakeOpenAIServer(default=Behaviour.json({"supported": True,
                                                      "why": "the context says so"})) as srv:
            settings = llm_settings(srv, tmp_path / where, llm_breaker_threshold=50,
                                    **overrides)
            store = CorpusStore(settings, hash_embedder)
            for meta, chunks in (nvda_10k(), amd_10k()):
                store.add(meta, chunks)
            srv.enqueue(Behaviour.json(two_step_plan(store)))
            record = service(settings, store, hash_embedder).ask(QUESTION)
            store.close()
            bodies = [b for b in srv.chat_requests
                      if PROMPT in json.dumps(b.get("messages", []))]
        return record, bodies

    record, bodies = checker_bodies("declared")
    assert bodies and all(b["max_completion_tokens"] == 321 for b in bodies)
    checked = [e for e in record.events if e.type == "cross_checked"]
    assert checked and all(e.source == "llm" and e.supported for e in checked)
    assert record.usage["checker"].calls == len(bodies)

    _, bodies = checker_bodies("overridden", llm_max_tokens={"checker": 99})  # DTR_LLM_MAX_TOKENS
    assert bodies and all(b["max_completion_tokens"] == 99 for b in bodies)
