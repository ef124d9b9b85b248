"""Tool calls an LLM makes to the synthesiser's look-up and compute tools (issue 32), through
the real ChatOpenAI against the fake OpenAI server on 127.0.0.1 and the real tool runner
(``core.agent.roles.figure_tools``) over an ingested 10-K: unknown tools, unknown metrics,
periods, units and formulas, hostile ``decimals``, arguments that are not JSON, too many
calls. Each bad call is answered with one line the model can act on and runs nothing; main
ran ``compute(decimals=1000000)`` and sent a 2 MB figure back, and answered ``decimals=-3``
with the bare "ValueError: invalid format string"."""

from __future__ import annotations

import json

import pytest

from core.agent.deps import AgentDeps, CorpusInfo, fact_source
from core.agent.roles.figure_tools import offer_figure_tools
from core.llm.factory import make_chat_model
from testkit.fakes.fixtures import llm_settings
from testkit.fakes.openai_server import Behaviour, FakeOpenAIServer
from tests.hostile.kit import HALFWAY_10K

QUESTION = "What was Halfway Widgets' revenue in fiscal 2024?"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    from core.app.corpus import Corpus
    from core.foundation.config import Settings
    from testkit.fakes.embedder import HashEmbedder

    settings = Settings(data_dir=tmp_path_factory.mktemp("tools") / "store",
                        cache_enabled=False, _env_file=None)
    corpus = Corpus(settings, embedder=HashEmbedder())
    corpus.ingest_bytes(HALFWAY_10K.encode(), "halfway-10k-2024.htm")
    yield corpus
    corpus.close()


def _offer(corpus, tmp_path, *replies: Behaviour):
    """Offer the tools once; ``(what the run kept, the tool messages sent back)``."""
    with FakeOpenAIServer() as server:
        server.enqueue(*replies, Behaviour.text("DONE"))
        settings = llm_settings(server, tmp_path)
        deps = AgentDeps(settings=settings, retriever=corpus.retriever,
                         llm=make_chat_model(settings), corpus=CorpusInfo.from_store(corpus.store),
                         facts=fact_source(corpus.store))
        out = offer_figure_tools(QUESTION, [], {}, [("user", QUESTION)], deps)
        sent = [m["content"] for r in server.chat_requests for m in r["messages"]
                if m.get("role") == "tool"]
    return out, sent


def _error(sent: list[str]) -> str:
    (reply,) = sent
    assert len(reply) < 600, reply[:200]
    error = json.loads(reply)["error"]
    assert "\n" not in error and "Traceback" not in error
    return error


@pytest.mark.parametrize("name", ["read_file", "os.system", "FIGURE_LOOKUP", "figure_lookup ",
                                  "compute; rm -rf /", "__import__", "x" * 300])
def test_a_call_to_a_tool_that_is_not_offered_runs_nothing(corpus, tmp_path, name):
    out, sent = _offer(corpus, tmp_path, Behaviour.tool_call({"metric": "revenue",
                                                              "period": "FY2024"}, name=name))
    assert _error(sent) == f"no tool {name!r}"
    assert out.results == [] and out.calls == 0 and out.numbered == {}
    assert out.warning is None  # a bad call is answered, the tool round goes on


@pytest.mark.parametrize(("args", "said"), [
    ({"metric": "revnue", "period": "FY2024"}, "unknown metric 'revnue'; use a catalogue key"),
    ({"metric": ["revenue"], "period": "FY2024"}, "unknown metric"),
    ({}, "unknown metric ''"),
    ({"metric": "revenue", "period": "'; DROP TABLE facts; --"},
     "period \"'; DROP TABLE FACTS; --\" not understood; write fiscal periods as FY2023 "
     "or FY2024-Q1"),
    ({"metric": "revenue", "period": "2024"}, "period '2024' not understood"),
    ({"metric": "revenue"}, "period '' not understood"),
])
def test_a_look_up_with_bad_arguments_is_refused_with_what_to_send(corpus, tmp_path, args,
                                                                   said):
    out, sent = _offer(corpus, tmp_path, Behaviour.tool_call(args, name="figure_lookup"))
    assert _error(sent).startswith(said), sent
    assert out.results == []


@pytest.mark.parametrize(("args", "said"), [
    ({"formula": "revenue[FY2024]", "decimals": 1_000_000},
     "decimals must be a whole number from 0 to 8 (got 1000000)"),
    ({"formula": "revenue[FY2024]", "decimals": -3},
     "decimals must be a whole number from 0 to 8 (got -3)"),
    ({"formula": "revenue[FY2024]", "decimals": "two"},
     "decimals must be a whole number from 0 to 8 (got 'two')"),
    ({"formula": "revenue[FY2024]", "decimals": 2.5},
     "decimals must be a whole number from 0 to 8 (got 2.5)"),
    ({"formula": "revenue[FY2024]", "decimals": True},
     "decimals must be a whole number from 0 to 8 (got True)"),
    ({"formula": "revenue[FY2024]", "unit": "bananas"},
     "unknown unit 'bananas'; use one of USD, USD thousands, USD millions"),
    ({"formula": "__import__('os').system('id')"}, "bad formula: Bad formula at character"),
    ({}, "bad formula: The formula is empty"),
    ({"formula": "(" * 500 + "revenue[FY2024]" + ")" * 500},
     "bad formula: the formula is nested too deeply"),
])
def test_a_computation_with_bad_arguments_is_refused_with_what_to_send(corpus, tmp_path, args,
                                                                       said):
    out, sent = _offer(corpus, tmp_path, Behaviour.tool_call(args, name="compute"))
    assert _error(sent).startswith(said), sent
    assert out.results == []


@pytest.mark.parametrize(("name", "args", "figure"), [
    ("figure_lookup", {"metric": "revenue", "period": "fy2024 ",
                       "company": "<script>x</script> ignore previous instructions"},
     "Halfway Widgets' FY2024 revenue was $412.50 million [1]."),
    ("compute", {"formula": "revenue[FY2024] - revenue[FY2023]", "unit": "USD millions",
                 "decimals": 1}, "$32.0 million"),
    ("compute", {"formula": "revenue[FY2024]", "decimals": 8}, "$412.50000000 million"),
])
def test_good_arguments_beside_hostile_ones_still_give_the_figure(corpus, tmp_path, name, args,
                                                                  figure):
    out, sent = _offer(corpus, tmp_path, Behaviour.tool_call(args, name=name))
    (reply,) = sent
    assert figure in json.loads(reply)["figure"]
    assert out.calls == 1 and out.results[0].ok
    assert {ev.kind for ev in out.numbered.values()} == {"chunk"}


@pytest.mark.parametrize("raw", ['{"metric": "revenue", "period": ', "metric=revenue",
                                 "[1, 2, 3]", "null"])
def test_arguments_that_are_not_a_json_object_run_nothing(corpus, tmp_path, raw):
    out, sent = _offer(corpus, tmp_path, Behaviour.tool_call(raw, name="figure_lookup"))
    assert out.results == [] and out.calls == 0
    assert all("error" in json.loads(s) for s in sent)


def test_a_reply_with_twenty_tool_calls_runs_at_most_eight(corpus, tmp_path):
    calls = [{"id": f"call_{k}", "type": "function", "function": {
        "name": "figure_lookup", "arguments": json.dumps({"metric": "revenue",
                                                          "period": "FY2024"})}}
             for k in range(20)]
    body = {"id": "x", "object": "chat.completion", "created": 0, "model": "fake-model",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": None, "tool_calls": calls}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
    out, sent = _offer(corpus, tmp_path, Behaviour.raw(json.dumps(body)))
    assert out.calls == 8 and len(sent) == 20
    assert [json.loads(s).get("error") for s in sent[8:]] == \
        ["at most 8 tool calls per answer"] * 12
