"""Issue 22, ``DTR_MAX_WALL_S`` bounds the whole command: the bound counts from when the
command started (its start-up included, not only from the graph's first node), and a run
continued in a new process keeps its budget (what it spent before the interruption counts,
the time it was stopped does not). No timed assertions: lower bounds given by the test."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.app import run_session
from core.cli.agent import ask
from core.store.corpus_store import CorpusStore
from testkit.agent_fakes import QUESTION as ACME_QUESTION
from testkit.agent_fakes import make_service
from testkit.corpus import amd_10k, nvda_10k
from testkit.fakes.fixtures import llm_settings
from testkit.fakes.openai_server import Behaviour, FakeOpenAIServer
from testkit.scenarios import QUESTION, service


@pytest.fixture
def store(tmp_path, hash_embedder):
    from core.foundation.config import Settings

    s = CorpusStore(Settings(data_dir=tmp_path / "store", _env_file=None), hash_embedder)
    for meta, chunks in (nvda_10k(), amd_10k()):
        s.add(meta, chunks)
    yield s
    s.close()


def test_the_wall_bound_counts_the_commands_start_up(tmp_path, store, hash_embedder):
    """The command started 5 s before the run (``started_at``: the CLI passes its process
    start): with an 8 s bound the planner's request may wait at most 8 - 1.6 (the offline
    reserve) - 5 = 1.4 s; main gave it the full 6.4 s from the graph's start, so a slow
    start-up pushed the process past the bound."""
    with FakeOpenAIServer(default=Behaviour.hang()) as server:
        settings = llm_settings(server, tmp_path, max_wall_s=8.0, llm_timeout_s=60.0)
        out = io.StringIO()
        record = ask(QUESTION, settings=settings, approve=True, out=out,
                     service=service(settings, store, hash_embedder),
                     started_at=time.time() - 5.0)
    assert record is not None and record.answer is not None
    assert record.startup_s >= 5.0
    assert record.wall_s >= record.startup_s + record.planning_s
    waits = [float(w) for w in re.findall(r"within ([\d.]+) s, the time left", out.getvalue())]
    assert waits and max(waits) <= 1.4, waits  # main: "within 6.4 s"
    assert record.backend.startswith("offline engine (the LLM did not answer")
    assert f"start-up {record.startup_s:.2f} s, planning" in out.getvalue()


def _interrupt_after_first_decision(settings, clock) -> str:
    """Start and approve a run whose clock is ``clock``, stop it after the first step's
    decision (the record is saved then), as a server stop would."""
    svc = make_service(settings, clock=clock)
    thread_id, plan, _ = svc.start(ACME_QUESTION)
    assert len(plan) >= 2
    stream = iter(svc.resume(thread_id))
    for ev in stream:
        if ev.type == "policy_decided":
            break
    stream.close()
    svc.close()
    return thread_id


def test_a_continued_run_keeps_its_budget_and_not_the_time_it_was_stopped(settings):
    """The first process's clock says the run started 30 s before its last checkpoint (it
    had spent 30 s of its 60 s); it is continued an hour later. Main counted the hour (the
    continued run stopped at once on the wall-time bound) and gave the LLM a fresh 60 s."""
    settings = settings.model_copy(update={"max_wall_s": 60.0})
    thread_id = _interrupt_after_first_decision(settings, clock=lambda: time.time() - 30.0)
    later = make_service(settings, clock=lambda: time.time() + 3600.0)
    assert run_session.open_run(later, settings, thread_id).phase == "interrupted"
    before = later.deps.clock()
    stream = later.continue_run(thread_id)
    events = list(stream)
    record = stream.record
    assert record.status == "done" and record.answer is not None
    assert record.stop_reason is None or record.stop_reason.code != "max_wall_s", \
        record.stop_reason  # main: 'max_wall_s' (the hour it was stopped counted)
    assert [e for e in events if e.type == "step_started"]  # the remaining steps ran
    guard = later.deps.guards.get(thread_id)
    assert guard.started_at is not None and guard.started_at <= before - 30.0  # spent counts
    assert guard.started_at >= before - 60.0
    assert re.search(r"3\d\.\d s of the run's 60 s limit \(DTR_MAX_WALL_S\) were spent "
                     "before the interruption", events[0].message), events[0].message
    assert record.wall_s >= 30.0


def test_a_continued_run_that_had_spent_its_budget_stops_at_the_bound(settings):
    """It had spent 70 s of its 60 s when it stopped: continued at once, it researches no
    further step and sends no LLM request (main's guard began a fresh 60 s)."""
    settings = settings.model_copy(update={"max_wall_s": 60.0})
    thread_id = _interrupt_after_first_decision(settings, clock=lambda: time.time() - 70.0)
    later = make_service(settings)
    stream = later.continue_run(thread_id)
    events = list(stream)
    assert stream.record.stop_reason is not None
    assert stream.record.stop_reason.code == "max_wall_s"
    assert not [e for e in events if e.type == "step_started"]
    assert later.deps.guards.get(thread_id).remaining() < 0  # no LLM request either


ROOT = Path(__file__).resolve().parent.parent


def _python(code: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # buffered output
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)


def test_ask_ends_its_process_without_the_teardown_but_flushed_and_with_its_code():
    """``python -m core ask`` ends once its work is done (the interpreter's teardown took
    1.5-5 s after the answer): the exit handlers ran, buffered output is all there, the
    exit code is the command's."""
    done = _python("import atexit, sys\n"
                   "from core.cli.main import QUICK_EXIT, end_process\n"
                   "assert 'ask' in QUICK_EXIT\n"
                   "atexit.register(lambda: print('exit handler ran'))\n"
                   "sys.stdout.write('the answer\\n')\n"
                   "end_process(3)\n"
                   "print('not reached')\n")
    assert done.returncode == 3, done.stderr
    assert done.stdout == "the answer\nexit handler ran\n"


def test_a_process_with_work_still_running_in_a_thread_exits_normally():
    done = _python("import threading, time\n"
                   "from core.cli.main import end_process\n"
                   "threading.Thread(target=lambda: (time.sleep(0.3), print('thread done'))"
                   ").start()\n"
                   "end_process(0)\n")
    assert done.returncode == 0 and done.stdout == "thread done\n", done.stderr


def test_commands_that_call_no_llm_do_not_import_the_openai_client():
    """``openai`` took 1.1 s of every command's start-up (``ask --offline``, ``docs``,
    ``search``, ``doctor``) through ``core.llm.failures``; it is imported when an LLM is."""
    done = _python("import sys\n"
                   "import core.cli.agent, core.llm.factory, core.llm.failures, core.app.runs\n"
                   "from core.llm.failures import redact\n"
                   "redact('sk-secret-0123456789')\n"
                   "print('openai' in sys.modules)\n")
    assert done.returncode == 0 and done.stdout == "False\n", done.stderr


def test_a_paused_run_resumed_by_a_new_command_counts_that_commands_start_up(settings):
    """``ask --resume`` in a new process: its start-up (5 s, given) counts in the run's clock
    as the first command's did, the wait for review does not. Main began the research
    deadline at review from the planning time alone."""
    first = make_service(settings)
    thread_id, _, _ = first.start(ACME_QUESTION)
    planning = first.graph.get_state(first._config(thread_id)).values["planning_s"]
    first.close()
    later = make_service(settings)
    resumed = time.time()
    stream = later.resume(thread_id, started_at=resumed - 5.0)
    stream.run()
    guard = later.deps.guards.get(thread_id)
    assert guard.started_at is not None
    assert guard.started_at <= resumed - 4.0 - planning  # main: about resumed - planning
    assert stream.record.status == "done" and stream.record.wall_s >= 5.0 + planning
