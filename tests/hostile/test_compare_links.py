"""A Compare link naming any two saved runs (issue 38 item 19): ``/compare?baseline=<deep
run A>&deep=<deep run B>`` for two questions gave a verdict, with a deep run labelled
"Baseline RAG". Now the page says why the pair cannot be judged and gives no verdict; a
true pair (a baseline and a deep run of one question) is judged as before."""

from __future__ import annotations

import itertools

import pytest
from streamlit.testing.v1 import AppTest

from core.app.compare_verdict import pair_problems
from core.app.runs import RunRecord, load_run, save_run
from core.foundation.config import Settings
from tests.test_app import APP, TIMEOUT, app_env, boot, finished_run, ok, texts  # noqa: F401

QUESTIONS = ["What was Acme's revenue in FY2024?", "Which had the higher operating margin, "
             "Adobe or Alphabet?", "How does Northwind describe its supply chain risks?"]


def _record(n: int, kind: str, question: str) -> RunRecord:
    return RunRecord(id=f"20261205-000000-0000000{n}", kind=kind, question=question,
                     status="done")


@pytest.mark.parametrize(("base_kind", "deep_kind", "q1", "q2"), itertools.product(
    ["baseline", "deep"], ["baseline", "deep"], range(3), range(3)))
def test_a_pair_is_judged_only_as_a_baseline_and_a_deep_run_of_one_question(
        base_kind, deep_kind, q1, q2):
    base = _record(1, base_kind, QUESTIONS[q1])
    deep = _record(2, deep_kind, QUESTIONS[q2].upper() if q1 == q2 else QUESTIONS[q2])
    problems = pair_problems(base, deep)
    assert (problems == []) == (base_kind == "baseline" and deep_kind == "deep" and q1 == q2)
    assert (base_kind != "baseline") == any("baseline side" in p for p in problems)
    assert (deep_kind != "deep") == any("deep side" in p for p in problems)
    assert (q1 != q2) == any("different questions" in p for p in problems)


@pytest.mark.usefixtures("app_env")
def test_a_link_naming_two_deep_runs_of_two_questions_gets_no_verdict(app_env):  # noqa: F811
    at = finished_run(boot())
    ok(at.button(key="res_compare").click().run())
    params = {k: (v[0] if isinstance(v, list) else v) for k, v in at.query_params.items()}
    settings = Settings(data_dir=app_env / "store", _env_file=None)
    deep = load_run(settings, params["deep"])
    other = deep.model_copy(update={"id": "20261205-000000-0000beef",
                                    "question": "What are Northwind's competition risks?"})
    save_run(other, settings)

    for baseline, shown in ((deep.id, other.id), (params["baseline"], other.id)):
        link = AppTest.from_file(APP, default_timeout=TIMEOUT)
        link.query_params.update({"baseline": baseline, "deep": shown})
        ok(link.switch_page("app_pages/compare.py").run())
        said = texts(link)
        assert "No verdict is given" in said and "different questions" in said
        assert ("a deep run: it is not" in said) == (baseline == deep.id)
        assert "Side by side" not in {s.value for s in link.subheader}

    fine = AppTest.from_file(APP, default_timeout=TIMEOUT)  # the true pair: judged
    fine.query_params.update(params)
    ok(fine.switch_page("app_pages/compare.py").run())
    assert "Side by side" in {s.value for s in fine.subheader}
    assert "No verdict is given" not in texts(fine)
