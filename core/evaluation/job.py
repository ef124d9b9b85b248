"""An evaluation as a background job (``core.app.jobs``, kind ``evaluate``).

``start`` runs ``run_eval`` in a job whose id is ``job_id(eval_id)``: its progress is the
runner's ``done`` of ``total`` with what just finished (one line each), its result the
``SavedEval``. Cancel stops before the next unit of work; the evaluation is then saved as
"stopped" and continues when run again under the same name.
"""

from __future__ import annotations

from typing import Any

from core.app import jobs
from core.evaluation.questions import QuestionSet
from core.evaluation.runner import EvalProgress, run_eval
from core.evaluation.storage import new_eval_id
from core.foundation.config import Settings


def job_id(eval_id: str) -> str:
    """The job id of evaluation ``eval_id`` (job ids are shared by every kind)."""
    return f"eval-{eval_id}"


def start(qset: QuestionSet, *, settings: Settings, corpus: Any, judge: Any,
          systems: list[str], strategies: list[str], eval_id: str | None = None,
          service: Any = None, llm: Any = None, web: Any = None) -> tuple[str, jobs.Job]:
    """Run ``qset`` in a background job; ``(eval id, job)``. Raises ``ValueError`` when that
    evaluation is already running here."""
    eval_id = eval_id or new_eval_id(qset.name)

    def work(job: jobs.Job):
        def progress(p: EvalProgress) -> None:
            job.report(("↺ " if p.reused else "· ") + p.message, p.done, p.total)
            job.check()  # a cancel stops the runner here; it saves the evaluation as stopped

        job.report(f"Starting {eval_id}…", 0, 1, line=False)
        return run_eval(qset, settings=settings, corpus=corpus, judge=judge, systems=systems,
                        strategies=strategies, eval_id=eval_id, service=service, llm=llm,
                        web=web, on_progress=progress)

    return eval_id, jobs.start(job_id(eval_id), "evaluate", work, label=f"evaluation {eval_id}")
