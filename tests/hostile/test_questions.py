"""Question text as anyone types it (issue 32): offline, a question the English rules cannot
read ("英伟达2023财年的收入是多少？") is refused with what to do, never "[answered]" with
unrelated lines; any other text is asked or refused with one line, never a traceback."""

from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from core.cli.agent import ask
from core.foundation.errors import AppError, latin_share, require_question
from testkit.agent_fakes import make_service

CHINESE = "英伟达2023财年的收入是多少？"
OFFLINE_ONLY = "The offline engine reads questions written in English"


@pytest.mark.parametrize("question", [CHINESE, "エヌビディアの2023年度の売上高は？",
                                      "Какова выручка NVIDIA за 2023 год?",
                                      "ما هي إيرادات إنفيديا لعام 2023؟", "엔비디아의 매출은?"])
def test_offline_a_question_not_in_a_latin_script_is_refused_with_what_to_do(
        settings, question):
    service = make_service(settings)
    out = io.StringIO()
    with pytest.raises(AppError) as err:
        ask(question, settings=settings, approve=True, service=service, out=out)
    assert str(err.value).startswith(OFFLINE_ONLY) and "DTR_LLM_BASE_URL" in str(err.value)
    assert "[answered]" not in out.getvalue()
    assert not settings.runs_dir.exists() or not list(settings.runs_dir.glob("*.json"))


def test_the_cli_says_it_in_one_line(settings, monkeypatch, capsys):
    from core.cli import agent as cli_agent
    from core.cli.main import main

    monkeypatch.setenv("DTR_DATA_DIR", str(settings.data_dir))
    monkeypatch.setattr(cli_agent, "build_service",
                        lambda s, offline=False: (make_service(s), None))
    assert main(["ask", CHINESE, "--approve"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {OFFLINE_ONLY}")


@pytest.mark.parametrize("question", ["What was NVIDIA's FY2023 revenue?",
                                      "Quel était le chiffre d'affaires de Nestlé en 2023?",
                                      "2023?", "NVIDIA 英伟达 revenue in fiscal 2023 and 2022"])
def test_latin_script_questions_are_asked(settings, question):
    record = make_service(settings).ask(question)
    assert record.status == "done" and record.answer is not None


def test_the_baseline_refuses_it_too(settings, hash_embedder):
    from core.baseline.rag import run_baseline

    with pytest.raises(AppError, match=OFFLINE_ONLY):
        run_baseline(CHINESE, settings=settings, store=None, embedder=hash_embedder)


LATIN = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x24F), min_size=1,
                max_size=200)
CJK = st.text(alphabet=st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF), min_size=1,
              max_size=60)


@given(LATIN)
def test_latin_text_is_never_refused_for_its_script(text):
    try:
        assert require_question(text, offline=True) == text.strip()
    except AppError as exc:
        assert str(exc).startswith("The question is empty") and not text.strip()


@given(CJK, st.text(alphabet="abcdefghij ", max_size=20))
def test_mostly_cjk_text_is_refused_offline_and_asked_with_an_llm(cjk, latin):
    if len(latin.replace(" ", "")) >= len(cjk):
        return
    with pytest.raises(AppError, match=OFFLINE_ONLY):
        require_question(cjk + latin, offline=True)
    assert require_question(cjk + latin) == (cjk + latin).strip()


@given(st.text(max_size=300))
@hsettings(max_examples=200)
def test_any_text_is_a_question_or_one_line_of_why_not(text):
    try:
        require_question(text, offline=True)
    except AppError as exc:
        assert "\n" not in str(exc)
    share = latin_share(text)
    assert 0.0 <= share <= 1.0
