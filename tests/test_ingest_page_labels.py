"""Printed page labels (issue 9, fault 5): read from footers, trusted when neighbours agree."""

from __future__ import annotations

from core.ingest.page_labels import accept_labels, label_in_line


def test_label_in_line_reads_bare_numbers_and_running_footers():
    assert label_in_line("23") == "23"
    assert label_in_line("Page 23") == "23"
    assert label_in_line("- 23 -") == "23"
    assert label_in_line("F - 7") == "F-7"
    assert label_in_line("ii") == "ii"
    assert label_in_line("Apple Inc. | 2024 Form 10-K | 5") == "5"
    assert label_in_line("Apple Inc.   Q3 2022 Form 10-Q   19") == "19"
    assert label_in_line("Financial Statements | Notes to Financial Statements | 9") == "9"
    assert label_in_line("Consolidated Balance Sheets F-3") == "F-3"
    for line in ("Fiscal 2023", "COVID-19", "Form 10-K", "Total revenue | 26,974", "iv.",
                 "The company sold widgets in 2023 and expects to sell more. " * 3 + "5"):
        assert label_in_line(line) is None, line


def test_labels_need_a_confirming_neighbour_and_runs_are_counted_on():
    # a TOC line ending in "40" on physical page 2 is not a label; 1, (2), 3 and F-1, F-2 are
    assert accept_labels([None, "40", "1", None, "3", "4", "F-1", "F-2"]) == [
        None, None, "1", "2", "3", "4", "F-1", "F-2"
    ]
    # a numbering that restarts (an exhibit's own pages) is read as printed
    assert accept_labels(["1", "2", "3", "1", "2"]) == ["1", "2", "3", "1", "2"]
    assert accept_labels(["7", None, None, "31"]) == [None] * 4
    assert accept_labels(["i", "ii", "iii", "1"]) == ["i", "ii", "iii", None]
    assert accept_labels([]) == []
