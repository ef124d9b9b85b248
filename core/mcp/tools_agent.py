"""The deep agent: the body of ``ask`` and the run resources.

``ask`` runs the research agent through ``core.app.research.ResearchService``, the service
the CLI's ``ask`` and the dashboard use: the run is checkpointed and its record saved where
the Runs page and ``python -m core runs`` list it. With ``approve_plan`` the plan runs as
proposed (a simple question takes the fast path, as on the dashboard by default); without,
the run pauses at plan review, to be approved on the dashboard or with ``python -m core ask
--resume RUN_ID``. The answer's ``[n]`` markers keep their numbers: the citations are the
run's own evidence, in order. The run's record and report are resources
(``core.mcp.resources``).
"""

from __future__ import annotations

from core.app.runs import RunRecord, load_run
from core.mcp.citations import RUN_MARKDOWN_URI, RUN_URI, Citer, dashboard_url
from core.mcp.figure_out import analysis_out, figure_out
from core.mcp.models import AskOut, PlanStepOut


def _detail(step) -> str:
    parts = []
    if step.metric:
        parts.append(f"metric {step.metric}" + (f" of {step.member}" if step.member else ""))
    if step.periods:
        parts.append(f"periods {', '.join(step.periods)}")
    if step.formula:
        parts.append(f"formula {step.formula}")
    if step.analysis is not None:
        parts.append(f"{step.analysis.kind} {step.analysis.name}")
    if step.section:
        parts.append(f"section {step.section}")
    if step.depends_on:
        parts.append("uses steps " + ", ".join(str(i + 1) for i in step.depends_on))
    return "; ".join(parts)


def ask_out(service, record: RunRecord) -> AskOut:
    """A run as the client receives it (see the module docstring)."""
    settings = service.settings
    answer = record.answer
    citer = Citer(service, evidence=answer.evidence if answer else record.evidence)
    docs = {d.doc_id: d for d in service.documents()}
    paused = record.status == "paused"
    if paused:
        url = dashboard_url(settings, "", thread=record.id)
        after = (f"The plan waits for review: approve or edit it on the dashboard "
                 f"({url}) or with `python -m core ask --resume {record.id}`; or call ask "
                 "again with approve_plan=true to run the plan as proposed.")
    else:
        url = dashboard_url(settings, "runs", run=record.id)
        after = ""
    return AskOut(
        run_id=record.id, status=record.status, answer=answer.text if answer else "",
        reading=answer.reading.summary() if answer and answer.reading and
        answer.reading.figures else "",
        figures=[figure_out(f, citer, docs) for f in (answer.figures if answer else [])],
        analyses=[analysis_out(a, citer, docs) for a in (answer.analyses if answer else [])],
        plan=[PlanStepOut(tool=s.tool, question=s.sub_question, detail=_detail(s))
              for s in record.plan] if paused else [],
        citations=citer.citations(), backend=record.backend, wall_s=record.wall_s,
        error=record.error, warnings=list(record.warnings), run_url=url,
        record=RUN_URI.format(run_id=record.id),
        markdown=RUN_MARKDOWN_URI.format(run_id=record.id), next=after)


def ask_of(service, question: str, approve_plan: bool = True) -> AskOut:
    """Run the deep agent on ``question`` (see the module docstring)."""
    from core.foundation.errors import require_question

    research = service.research
    text = require_question(question, offline=research.deps.llm is None)
    if approve_plan:
        record = research.ask(text, approve=True, review="auto")
    else:
        thread_id, _, _ = research.start(text, review="always")
        record = load_run(service.settings, thread_id)
    return ask_out(service, record)
