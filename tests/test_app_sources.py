"""Issue 11, items 9 and 10 through the entry file (AppTest, offline engine, temp corpus):
demo web articles labelled in citations and the Library, the analyst's own saved pages
added from the Library, and the Markdown export recording the analyst's plan edits."""

from __future__ import annotations

import pytest

from components import services
from core.app.runs import export_markdown, load_run
from tests.test_app import (  # noqa: F401 (app_env is a fixture, used by every test)
    answers,
    app_env,
    ask_walkthrough,
    boot,
    finished_run,
    load_sample,
    ok,
    texts,
    thread_of,
)

pytestmark = pytest.mark.usefixtures("app_env")
PAGE = ("<html><body><h1>Gadgetron ships</h1><p>"
        + "Gadgetron said its quantum widget line ships to hyperscalers in the spring. " * 5
        + "</p><img src='https://tracker.example/p.gif'></body></html>").encode()


def test_demo_articles_are_labelled_in_citations_and_the_library_takes_saved_pages():
    at = finished_run(boot())
    cites = answers(at)[0]["cites"]
    web = {n: c for n, c in cites.items() if "http" in c["where"]}
    assert web, cites  # the walk-through cites the bundled news snapshot
    for c in web.values():
        assert c["source"].endswith("(demo article)") and c["where"].endswith("(unverified)")
    ok(at.pills[0].set_value(int(next(iter(web)))).run())
    assert any("Demo article: written for this project" in w.value for w in at.warning)
    assert "demo article, URL unverified" in texts(at)  # the Sources list

    ok(at.switch_page("app_pages/library.py").run())
    table = next(d.value for d in at.dataframe if "Kind" in d.value.columns)
    assert set(table["Kind"]) == {"Demo article"}
    assert all(u.startswith("(unverified) https://") for u in table["URL"])
    at.file_uploader(key="lib_web_file").set_value(("gadgetron.html", PAGE, "text/html"))
    at.text_input(key="lib_web_url").set_value("https://news.example.com/gadgetron")
    at.text_input(key="lib_web_title").set_value("Gadgetron ships")
    ok(at.button(key="FormSubmitter:lib_web_page-Add the page").click().run())
    assert "Added 1 page(s) to the web snapshot" in texts(at), texts(at)
    table = next(d.value for d in at.dataframe if "Kind" in d.value.columns)
    mine = table[table["Kind"] == "Saved by you"]
    assert list(mine["URL"]) == ["https://news.example.com/gadgetron"]
    hits = services.web_search().search("Gadgetron quantum widget", k=1)
    assert hits[0].url == "https://news.example.com/gadgetron"  # web steps find it now


def test_bad_saved_pages_are_refused_with_a_reason():
    at = boot("app_pages/library.py")
    at.file_uploader(key="lib_web_file").set_value(("p.html", PAGE, "text/html"))
    at.text_input(key="lib_web_url").set_value("file:///etc/passwd")
    ok(at.button(key="FormSubmitter:lib_web_page-Add the page").click().run())
    assert any("must start with http:// or https://" in e.value.replace("\\", "")
               for e in at.error), [e.value for e in at.error]


def test_the_markdown_export_records_the_analysts_edits():
    at = ask_walkthrough(load_sample(boot()))
    thread = thread_of(at)
    first = next(t for t in at.text_area if t.label == "Sub-question")
    proposed = first.value
    ok(first.set_value("What does Northwind say about rivals' pricing?").run())
    ok(at.button(key="res_approve").click().run())
    assert any(b.label == "Export Markdown" for b in at.get("download_button"))
    md = export_markdown(load_run(services.session_settings(), thread),
                         services.session_settings())
    assert "The analyst edited the proposed plan before the run:" in md
    assert f"- step 1: edited: sub-question was “{proposed}”" in md
    assert "1. What does Northwind say about rivals' pricing?" in md
    assert "demo article written for this project; URL unverified" in md
    assert "<" not in md.split("## Answer", 1)[1].replace("&lt;", "")
