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
