"""Settings as an operator sets them (``DTR_*``): a bad value is one line naming the variable
and what it expects, never a pydantic dump; any value at all is a Settings or that line."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from core.foundation.config import load_settings
from core.foundation.errors import AppError

BAD = [("DTR_CHUNK_SIZE", "ten"), ("DTR_CHUNK_SIZE", "50"), ("DTR_CHUNK_OVERLAP", "-1"),
       ("DTR_MAX_FILE_MB", "lots"), ("DTR_MAX_WALL_S", "soon"), ("DTR_TOP_K", "1.5"),
       ("DTR_SEC_MAX_REQUESTS_PER_S", "11"), ("DTR_SEC_MAX_REQUESTS_PER_S", "0"),
       ("DTR_CACHE_ENABLED", "maybe"), ("DTR_VECTOR_WEIGHT", "heavy"),
       ("DTR_LLM_TIMEOUT_S", "-3"), ("DTR_PARALLEL_STEPS", "many"),
       ("DTR_FETCH_TIMEOUT_S", "x"), ("DTR_LLM_MAX_RETRIES", "-2")]


@pytest.mark.parametrize(("name", "value"), BAD, ids=[f"{n}={v}" for n, v in BAD])
def test_a_bad_value_is_one_line_naming_the_variable(monkeypatch, tmp_path, name, value):
    monkeypatch.setenv("DTR_DATA_DIR", str(tmp_path / "store"))
    monkeypatch.setenv(name, value)
    with pytest.raises(AppError) as err:
        load_settings(_env_file=None)
    message = str(err.value)
    assert name in message and "\n" not in message and "pydantic" not in message, message


def test_a_data_dir_that_is_a_file_says_so(monkeypatch, tmp_path):
    path = tmp_path / "file"
    path.write_text("x")
    monkeypatch.setenv("DTR_DATA_DIR", str(path))
    with pytest.raises(AppError, match="is not a folder"):
        load_settings(_env_file=None)


NAMES = st.sampled_from(["DTR_CHUNK_SIZE", "DTR_CHUNK_OVERLAP", "DTR_MAX_FILE_MB",
                         "DTR_MAX_WALL_S", "DTR_TOP_K", "DTR_TOP_N", "DTR_CACHE_ENABLED",
                         "DTR_VECTOR_WEIGHT", "DTR_PARALLEL_STEPS", "DTR_RERANKER",
                         "DTR_EMBEDDING_BACKEND", "DTR_LLM_STRUCTURED_METHOD",
                         "DTR_LLM_MAX_TOKENS", "DTR_ALLOWED_FETCH_HOSTS", "DTR_PDF_TEXT"])
VALUES = st.one_of(st.integers(-10**6, 10**6).map(str), st.floats(allow_nan=True).map(str),
                   st.text(max_size=20), st.sampled_from(["true", "false", "{}", '{"x": 1}',
                                                          "[]", "", " ", "auto", "none"]))


@given(st.dictionaries(NAMES, VALUES, max_size=4))
@hsettings(max_examples=150, deadline=None,
           suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_any_values_are_settings_or_one_line_per_variable(monkeypatch, tmp_path, env):
    with monkeypatch.context() as m:
        m.setenv("DTR_DATA_DIR", str(tmp_path / "store"))
        for name, value in env.items():
            m.setenv(name, value.replace("\x00", ""))
        try:
            settings = load_settings(_env_file=None)
        except AppError as exc:
            message = str(exc)
            assert "\n" not in message and any(n in message for n in env), message
        else:
            assert settings.chunk_overlap < settings.chunk_size
