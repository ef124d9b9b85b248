"""Layering rules that keep core/ headless."""

from pathlib import Path

from tests.source_trees import top_level_imports

ROOT = Path(__file__).resolve().parent.parent


def _imports(path: Path) -> set[str]:
    """The top-level packages ``path`` imports (each file read once a session)."""
    return set(top_level_imports(path))


def test_core_never_imports_streamlit():
    offenders = [p for p in (ROOT / "core").rglob("*.py") if "streamlit" in _imports(p)]
    assert offenders == []


def test_this_check_sees_imports(tmp_path):
    sample = tmp_path / "x.py"
    sample.write_text("import streamlit as st\nfrom streamlit.testing import v1\n")
    assert "streamlit" in _imports(sample)


def test_shipped_code_never_imports_the_tests():
    """Fakes live in tests/ (testkit/fakes), never in the shipped package."""
    shipped = [ROOT / "serve.py", ROOT / "streamlit_app.py", *(ROOT / "core").rglob("*.py"),
               *(ROOT / "app_pages").rglob("*.py"), *(ROOT / "components").rglob("*.py")]
    offenders = [p for p in shipped if "tests" in _imports(p)]
    assert offenders == []
    assert not (ROOT / "core" / "llm" / "fake.py").exists()


def test_scripts_and_testkit_never_import_the_tests():
    """Measuring scripts import shipped code only: what they share with tests is testkit/."""
    code = [*(ROOT / "scripts").rglob("*.py"), *(ROOT / "testkit").rglob("*.py")]
    assert code and [p for p in code if "tests" in _imports(p)] == []
