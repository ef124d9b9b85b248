"""Settings chosen in the app are kept in the data folder; keys and credentials never are."""

from __future__ import annotations

import json

from core.app import ui_settings


def test_non_secret_settings_round_trip_and_keys_are_never_written(settings):
    overrides = {"llm_base_url": "http://127.0.0.1:11434/v1", "llm_model": "qwen2.5",
                 "llm_api_key": "sk-SECRET-1", "tavily_api_key": "tvly-SECRET-2",
                 "max_steps": 4, "top_k": 30, "reranker": "none", "web_provider": "snapshot"}
    path = ui_settings.save(settings, overrides)
    assert path == settings.data_dir / "ui_settings.json"
    text = path.read_text()
    assert "SECRET" not in text and "api_key" not in text
    assert ui_settings.load(settings) == {
        "llm_base_url": "http://127.0.0.1:11434/v1", "llm_model": "qwen2.5", "max_steps": 4,
        "top_k": 30, "reranker": "none", "web_provider": "snapshot"}


def test_a_url_with_credentials_is_not_written(settings):
    ui_settings.save(settings, {"llm_base_url": "https://user:pw@llm.example/v1", "top_n": 3})
    assert ui_settings.load(settings) == {"top_n": 3}


def test_invalid_or_tampered_files_are_ignored_field_by_field(settings):
    path = ui_settings.settings_path(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"max_steps": -3, "top_k": 12, "llm_api_key": "sk-x",
                                "data_dir": "/etc"}))
    assert ui_settings.load(settings) == {"top_k": 12}
    path.write_text("{not json")
    assert ui_settings.load(settings) == {}
    ui_settings.clear(settings)
    assert not path.exists() and ui_settings.load(settings) == {}
