"""`bench ingest` reports a file that fails and goes on with the batch (issue 9, fault 2)."""

from __future__ import annotations

import argparse
from pathlib import Path

import core.foundation.models
from core.bench.run import bench_ingest
from testkit.fakes.embedder import HashEmbedder

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"


def test_a_failing_file_is_reported_and_the_batch_goes_on(settings, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(core.foundation.models, "get_embedder", lambda _settings: HashEmbedder())
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 20)
    good = FIXTURES / "synthetic_10q.txt"
    args = argparse.Namespace(files=[str(broken), str(good)], keep=False)
    assert bench_ingest(args, settings) == 1
    out = capsys.readouterr().out
    assert "broken.pdf" in out and "FAILED" in out and "corrupted" in out
    row = next(line for line in out.splitlines() if line.startswith("synthetic_10q.txt"))
    assert "FAILED" not in row and int(row.split()[-3]) > 0  # its chunks were counted
    assert "1 of 2 files failed: broken.pdf" in out


def test_vs_recipe_times_the_recipe_on_the_same_file(settings, monkeypatch, capsys):
    """`bench ingest --vs-recipe` runs the recipe (its own text, 1000/150 pieces, its own
    model) after ours on each file, once per loader asked for, and prints every row and
    each ratio."""
    import core.bench.recipe

    monkeypatch.setattr(core.foundation.models, "get_embedder", lambda _settings: HashEmbedder())
    recipe_model = HashEmbedder()
    monkeypatch.setattr(core.bench.recipe, "recipe_embedder", lambda _ref: recipe_model)
    html = FIXTURES / "synthetic_10k.htm"
    args = argparse.Namespace(files=[str(html)], keep=False, vs_recipe=True, rounds=2,
                              recipe="walkthrough,text")
    assert bench_ingest(args, settings) == 0
    out = capsys.readouterr().out
    for loader, label in core.bench.recipe.LABELS.items():
        rows = [line for line in out.splitlines() if line.startswith(f"  recipe, {label}")]
        assert len(rows) == 2, out  # one per round
        expected = core.bench.recipe.run_recipe(html, recipe_model, loader).n_chunks
        assert expected > 1 and all(int(row.split()[-1]) == expected for row in rows)
        assert out.count(f"ours / recipe, {label}: ") == 2
        assert f"ours / recipe, {label}, over all files and rounds:" in out
    assert "(recipe first)" in out  # the second round puts the recipe first


def test_vs_recipe_refuses_an_unknown_loader(settings, monkeypatch):
    monkeypatch.setattr(core.foundation.models, "get_embedder", lambda _settings: HashEmbedder())
    args = argparse.Namespace(files=[str(FIXTURES / "synthetic_10k.htm")], keep=False,
                              vs_recipe=True, recipe="walkthrough,pdfplumber")
    import pytest

    from core.foundation.errors import AppError

    with pytest.raises(AppError, match="pdfplumber"):
        bench_ingest(args, settings)


PAGE = ("<html><body><div><p>" + "Revenue grew strongly in the year. " * 60 + "</p>"
        "<span>Nested once.</span></div>"
        "<table><tr><td>Total revenue</td><td>26,974</td></tr></table></body></html>")


def test_the_text_loader_reads_html_once_with_its_tables(tmp_path):
    from core.bench.recipe import recipe_text, run_recipe

    path = tmp_path / "f.htm"
    path.write_text(PAGE)
    text = recipe_text(path.read_bytes(), path.name, "text")
    assert "<" not in text and "Total revenue26,974" in text  # get_text: no separator
    assert text.count("Nested once.") == 1
    run = run_recipe(path, HashEmbedder(), "text")
    assert run.n_chunks == 3 and set(run.timings) == {"parse", "split", "embed", "index"}


def test_the_walkthrough_loader_deletes_tables_and_reads_nested_text_again(tmp_path):
    """The walk-through's own loader: every p, div and span in turn, so the div's words come
    again under each of its children, and its tables are gone."""
    from core.bench.recipe import recipe_text, run_recipe

    path = tmp_path / "f.htm"
    path.write_text(PAGE)
    text = recipe_text(path.read_bytes(), path.name)  # the default loader
    assert "26,974" not in text and "Total revenue" not in text
    assert text.count("Nested once.") == 2  # in the div, then in the span
    assert text.count("Revenue grew strongly") == 120  # in the div, then in the p
    assert "\n" not in text and "  " not in text
    assert run_recipe(path, HashEmbedder()).n_chunks > run_recipe(path, HashEmbedder(),
                                                                  "text").n_chunks
