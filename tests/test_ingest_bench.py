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


def test_vs_recipe_times_the_plain_recipe_on_the_same_file(settings, monkeypatch, capsys):
    """`bench ingest --vs-recipe` runs the recipe (its own text, 1000/150 pieces, its own
    model) after ours on each file and prints both rows and their ratio."""
    import core.bench.recipe

    monkeypatch.setattr(core.foundation.models, "get_embedder", lambda _settings: HashEmbedder())
    recipe_model = HashEmbedder()
    monkeypatch.setattr(core.bench.recipe, "recipe_embedder", lambda _ref: recipe_model)
    html = FIXTURES / "synthetic_10k.htm"
    args = argparse.Namespace(files=[str(html)], keep=False, vs_recipe=True, rounds=2)
    assert bench_ingest(args, settings) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("  recipe")]
    assert len(rows) == 2  # one per round
    expected = core.bench.recipe.run_recipe(html, recipe_model).n_chunks
    assert expected > 1 and all(int(row.split()[-1]) == expected for row in rows)
    assert "(recipe first)" in out  # the second round puts the recipe first
    assert out.count("ours / recipe: ") == 2
    assert "ours / recipe over all files and rounds:" in out


def test_recipe_reads_html_as_plain_text_and_splits_at_1000(tmp_path):
    from core.bench.recipe import recipe_text, run_recipe

    page = "<html><body><p>" + "Revenue grew strongly in the year. " * 120 + "</p>" \
        "<table><tr><td>Total revenue</td><td>26,974</td></tr></table></body></html>"
    path = tmp_path / "f.htm"
    path.write_text(page)
    text = recipe_text(path.read_bytes(), path.name)
    assert "<" not in text and "Total revenue26,974" in text  # get_text: no separator
    run = run_recipe(path, HashEmbedder())
    assert run.n_chunks == 5 and set(run.timings) == {"parse", "split", "embed", "index"}
