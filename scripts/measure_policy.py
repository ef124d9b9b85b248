"""Fit the learned policy on 18 offline runs and print rule vs learned held-out accuracy.

    PYTHONPATH=. HF_HUB_OFFLINE=1 .venv/bin/python scripts/measure_policy.py

The runs use the tests' fake retriever and web search (six questions, each with the normal
retriever, an empty one, and one whose Item 1A is empty), so the rule both continues and
revises; a fresh temporary data folder holds them.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path

from core.agent import learned_policy as lp
from core.agent.policy_data import collect
from core.cli.policy import describe
from core.foundation.config import Settings
from testkit.agent_fakes import QUESTIONS, FakeRetriever, make_service


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        s = Settings(_env_file=None, data_dir=Path(tmp) / "store", cache_enabled=False)
        for q in QUESTIONS:
            for retriever in (FakeRetriever(), FakeRetriever(always_empty=True),
                              FakeRetriever(empty_sections=("Item 1A. Risk Factors",))):
                make_service(s, retriever=retriever).ask(q)
        examples = collect(s)
        print(len(examples), "examples", len({e.run_id for e in examples}), "runs")
        print("rule", dict(Counter(e.rule for e in examples)),
              "label", dict(Counter(e.label for e in examples)))
        print(describe(lp.fit_and_save(s)))


if __name__ == "__main__":
    main()
