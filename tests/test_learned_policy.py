"""The learned policy: examples from real stored runs (offline engine, fake retriever/web),
outcome-corrected labels, the softmax regression, the held-out comparison with the rule, the
hook in the policy node, and ``python -m core policy``."""

from __future__ import annotations

import numpy as np
import pytest

from core.agent import learned_policy as lp
from core.agent.policy_data import (
    FEATURES,
    LABELS,
    Example,
    collect,
    examples_from_record,
    feature_vector,
)
from core.app.runs import list_runs
from core.cli.main import main
from testkit.agent_fakes import QUESTION, QUESTIONS, FakeRetriever, make_service


def _runs(settings, retriever_factory=FakeRetriever) -> None:
    for q in QUESTIONS:
        make_service(settings, retriever=retriever_factory()).ask(q)


def _synthetic(n_runs: int, seed: int = 0) -> list[Example]:
    """Decisions whose right answer is a function of the features (REVISE when nothing was
    covered and revisions are left, FINISH on the last step, else CONTINUE)."""
    rng = np.random.default_rng(seed)
    out = []
    for r in range(n_runs):
        plan_len = int(rng.integers(2, 5))
        for step in range(plan_len):
            cov = rng.choice(["answered", "partial", "none"])
            left = int(rng.integers(0, 3))
            scores = list(rng.random(int(rng.integers(0, 5))))
            x = feature_vector(
                coverage=cov, scores=scores, step=step, plan_len=plan_len,
                revisions_left=left, attempt=0, web=False)
            last = step + 1 == plan_len
            label = "REVISE" if cov == "none" and left else ("FINISH" if last else "CONTINUE")
            rule = "REVISE" if cov != "answered" and left else ("FINISH" if last else "CONTINUE")
            out.append(Example(f"run{r}", x, rule, label))
    return out


def test_examples_come_from_stored_runs_with_the_rules_decisions(settings):
    _runs(settings)
    records = [r for r in list_runs(settings) if r.kind == "deep"]
    examples = collect(settings)
    assert {e.run_id for e in examples} == {r.id for r in records}
    decided = sum(1 for r in records for e in r.events if e.type == "policy_decided")
    assert len(examples) == decided and all(len(e.features) == len(FEATURES) for e in examples)
    assert {e.rule for e in examples} <= set(LABELS) and {e.label for e in examples} <= set(LABELS)


def test_a_revision_that_brought_nothing_is_labelled_as_wasted(settings):
    make_service(settings, retriever=FakeRetriever(always_empty=True)).ask(QUESTIONS[1])
    record = list_runs(settings)[0]
    examples = examples_from_record(record, None, settings.max_revisions)
    revised = [e for e in examples if e.rule == "REVISE"]
    assert revised, "an empty retriever makes the rule revise"
    assert all(e.label in ("CONTINUE", "FINISH") for e in revised)
    # A good evaluation outcome never turns a decision to move on into a REVISE.
    good = examples_from_record(record, 1.0, settings.max_revisions)
    assert all(e.label != "REVISE" for e in good if e.rule != "REVISE")


def test_softmax_regression_learns_a_rule_it_was_not_told(settings):
    examples = _synthetic(40)
    model = lp.fit(examples)
    assert model.learned_accuracy > model.rule_accuracy and model.better
    assert "learned policy used" in model.verdict
    x, y = lp._arrays(examples)
    assert np.mean([model.predict(list(row))[0] == LABELS[i] for row, i in zip(x, y,
                                                                              strict=True)]) > 0.9


def test_too_few_runs_keep_the_rule(settings):
    with pytest.raises(ValueError, match="the rule stays"):
        lp.fit(_synthetic(2))


def test_fit_on_stored_runs_saves_a_model_that_says_which_policy_decides(settings):
    _runs(settings)
    try:
        model = lp.fit_and_save(settings)
    except ValueError as exc:  # too few decisions in these runs: said, and the rule stays
        assert "the rule stays" in str(exc)
        return
    loaded = lp.load(settings)
    assert loaded is not None and loaded.better == (loaded.learned_accuracy >
                                                    loaded.rule_accuracy)
    assert loaded.held_out == model.examples


def _always(label: str, settings) -> None:
    """Save a model marked better that predicts ``label`` whatever the features."""
    k, d = len(LABELS), len(FEATURES)
    bias = [10.0 if name == label else 0.0 for name in LABELS]
    model = lp.PolicyModel(weights=np.zeros((k, d)).tolist(), bias=bias, mean=[0.0] * d,
                           std=[1.0] * d, runs=9, examples=40, rule_accuracy=0.5,
                           learned_accuracy=0.8, held_out=40, better=True, verdict="test")
    lp.save(model, settings)


def test_the_policy_node_consults_a_better_model_within_the_bounds(settings):
    _always("REVISE", settings)
    record = make_service(settings).ask(QUESTIONS[1])
    decisions = [e for e in record.events if e.type == "policy_decided"]
    learned = [e for e in decisions if e.reason.startswith("learned policy")]
    assert learned and learned[0].decision == "REVISE"
    # The revision budget stays the rule's: never more revisions than max_revisions.
    assert len(record.revisions) <= settings.max_revisions
    assert record.status == "done" and record.answer is not None


def test_a_model_that_does_not_beat_the_rule_is_not_used(settings):
    _always("REVISE", settings)
    model = lp.load(settings)
    model.better = False
    lp.save(model, settings)
    record = make_service(settings).ask(QUESTIONS[1])
    assert not any(e.reason.startswith("learned policy") for e in record.events
                   if e.type == "policy_decided")


def test_cli_policy_show_and_fit(settings, monkeypatch, capsys):
    monkeypatch.setenv("DTR_DATA_DIR", str(settings.data_dir))
    assert main(["policy", "show"]) == 0
    assert "the rule decides" in capsys.readouterr().out
    assert main(["policy", "fit"]) == 1
    assert "the rule stays" in capsys.readouterr().err


def test_live_features_equal_the_ones_learned_from_the_record(settings, monkeypatch):
    _always("CONTINUE", settings)  # consulted at every decision
    seen = []
    original = lp.live_features

    def spy(state, s):
        seen.append(original(state, s))
        return seen[-1]

    monkeypatch.setattr(lp, "live_features", spy)
    settings = settings.model_copy(update={"parallel_steps": 1})  # decisions in plan order
    make_service(settings, retriever=FakeRetriever(empty_sections=("Item 1A. Risk Factors",))
                 ).ask(QUESTION)
    record = list_runs(settings)[0]
    learned = [e.features for e in examples_from_record(record, None, settings.max_revisions)]
    assert seen and len(learned) == len(seen)
    assert np.allclose(np.asarray(learned), np.asarray(seen))
