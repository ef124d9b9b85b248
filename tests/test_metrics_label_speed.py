"""The fast label matcher (one normalisation per label, patterns joined per metric,
results cached) gives exactly what matching every pattern of every metric in order gives."""

import re

from core.metrics import allowed, catalog, metrics_for_label, normalise_label

STATEMENTS = (None, "income", "balance", "cash_flow", "equity")
UNITS = (None, "USD", "shares", "USD/share", "EUR")


def reference(label: str) -> list[tuple[int, int, object]]:
    """``(rank, catalogue order, metric)`` of every metric whose patterns match ``label``,
    the slow obvious way (each pattern of each metric, in order)."""
    forms = [normalise_label(label)]
    if ":" in label:
        forms.append(normalise_label(label.rsplit(":", 1)[1]))
    found = []
    for i, metric in enumerate(catalog().metrics.values()):
        for rank, pattern in enumerate(metric.line_items):
            if any(re.search(pattern, f) for f in forms if f):
                found.append((rank, i, metric))
                break
    return sorted(found, key=lambda x: (x[0], x[1]))


def labels() -> list[str]:
    """Printed-looking labels from the catalogue's own names, with the usual decorations."""
    out = []
    for metric in catalog().metrics.values():
        for name in metric.names:
            out += [name, f"Total {name.title()} (loss)", f"Operating expenses: {name}",
                    f"{name} \u2014 net (1)"]
    # Printed lines that several patterns of one metric match (the best rank must win).
    several = ["Accounts receivable, net", "Additions to property, plant and equipment",
               "Net cash provided by (used in) operating activities", "Cash from operations",
               "Dividends paid to shareholders", "Earnings (loss) per share: Diluted",
               "Earnings before income taxes", "Marketable securities",
               "Provision (benefit) for income taxes", "Repurchases of common stock",
               "Weighted-average common shares outstanding: Diluted", "Short-term debt"]
    return out + several + ["", ":", "Total", "Income (loss) before income taxes"]


def test_fast_matching_equals_the_reference_for_every_statement_and_unit():
    checked = 0
    for label in labels():
        matches = reference(label)
        assert [catalog().label_rank(m.key, label) for _, _, m in matches] == \
            [rank for rank, _, _ in matches], label
        for statement in STATEMENTS:
            for unit in UNITS:
                expected = [m.key for _, _, m in matches if allowed(m, statement, unit)]
                assert metrics_for_label(label, statement, unit=unit) == expected, \
                    (label, statement, unit)
                checked += 1
    assert checked > 10000


def test_the_best_ranked_pattern_wins():
    cat = catalog()
    assert cat.label_rank("operating_cash_flow", "Net cash provided by (used in) operating "
                          "activities", "cash_flow", "USD") == 0
    assert cat.label_rank("eps_diluted", "Earnings per common share: Diluted", "income",
                          "USD/share") == 1


def test_cached_results_are_not_shared_lists():
    first = metrics_for_label("Total net sales", "income", unit="USD")
    first.append("mutated")
    assert metrics_for_label("Total net sales", "income", unit="USD") == ["revenue"]
