"""``components.services.current()``: the one typed composition root a page works with."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.test_app import TIMEOUT, app_env  # noqa: F401 (app_env is a fixture)


@pytest.mark.usefixtures("app_env")
def test_the_composition_root_applies_the_session_overrides_and_shares_the_pieces():
    def app():
        import streamlit as st

        from components import keys, services
        from core.app.corpus import Corpus
        from core.app.research import ResearchService

        st.session_state[keys.APP_OVERRIDES] = {"top_k": 7}
        one, two = services.current(), services.current()
        st.text(f"top_k={one.settings.top_k} base={services.base_settings().top_k}")
        st.text(f"corpus={isinstance(one.corpus, Corpus)} shared={one.corpus is two.corpus}")
        st.text(f"research={isinstance(one.research, ResearchService)} "
                f"same={one.research is two.research}")
        st.text(f"offline={one.offline} llm={one.describe_llm()} web={one.web.name}")

    at = AppTest.from_function(app, default_timeout=TIMEOUT).run()
    assert not at.exception, [e.value for e in at.exception]
    lines = [t.value for t in at.text]
    assert lines[0].startswith("top_k=7 base=") and lines[0] != "top_k=7 base=7"
    assert lines[1] == "corpus=True shared=True"
    assert lines[2] == "research=True same=True"  # cached per process for these settings
    assert lines[3].startswith("offline=True llm=offline engine web=")
