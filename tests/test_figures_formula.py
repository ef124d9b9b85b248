"""The formula grammar: parse, render (round trip), inputs, bind, evaluate, errors."""

import random

import pytest

from core.figures.definitions import expand
from core.figures.formula import (
    BinOp,
    Call,
    FormulaError,
    Neg,
    Num,
    Ref,
    bind,
    evaluate,
    inputs,
    parse,
    render,
)
from core.metrics import catalog


def test_parse_and_render():
    text = "revenue[FY2019] / avg(ppe_net[FY2018], ppe_net[FY2019])"
    node = parse(text)
    assert node == BinOp("/", Ref("revenue", "FY2019"),
                         Call("avg", (Ref("ppe_net", "FY2018"), Ref("ppe_net", "FY2019"))))
    assert render(node) == text
    assert [str(r) for r in inputs(node)] == ["revenue[FY2019]", "ppe_net[FY2018]",
                                              "ppe_net[FY2019]"]


@pytest.mark.parametrize("text", [
    "capex[FY2018]",
    "a[t] - (b[t] - c[t])",
    "a[t] - b[t] - c[t]",
    "a[t] / (b[t] * c[t])",
    "(a[t] + b[t]) * 2",
    "-(a[t] + b[t])",
    "-a[t] * b[t]",
    "(revenue[FY2022] / revenue[FY2020]) ^ (1 / 2) - 1",
    "2 ^ 3 ^ 2",
    "(2 ^ 3) ^ 2",
    "365 * avg(inventory[t-1], inventory[t]) / cogs[t]",
    "abs(capex[FY2024-Q1]) + 0.5",
    "revenue{Google Services}[FY2024] / revenue[FY2024]",
    "revenue{Europe, Middle East & Africa}[t] - revenue{Europe, Middle East & Africa}[t-1]",
])
def test_round_trip(text):
    assert render(parse(text)) == text
    assert parse(render(parse(text))) == parse(text)


def _random_tree(rng: random.Random, depth: int = 0):
    pick = rng.random()
    if depth > 3 or pick < 0.3:
        return Num(float(rng.randint(0, 9))) if rng.random() < 0.4 else \
            Ref(rng.choice(["revenue", "cogs", "capex"]), rng.choice(["t", "t-1", "FY2020"]))
    if pick < 0.4:
        return Neg(_random_tree(rng, depth + 1))
    if pick < 0.5:
        return Call(rng.choice(["avg", "sum"]),
                    tuple(_random_tree(rng, depth + 1) for _ in range(rng.randint(1, 3))))
    return BinOp(rng.choice("+-*/^"), _random_tree(rng, depth + 1), _random_tree(rng, depth + 1))


def test_render_round_trips_random_trees():
    rng = random.Random(18)
    for _ in range(500):
        tree = _random_tree(rng)
        assert parse(render(tree)) == tree, render(tree)


def test_evaluate_and_bind():
    node = bind(parse("revenue[t] / avg(ppe_net[t-1], ppe_net[t])"), "FY2019")
    assert render(node) == "revenue[FY2019] / avg(ppe_net[FY2018], ppe_net[FY2019])"
    values = {"revenue[FY2019]": 6489.0, "ppe_net[FY2018]": 282.0, "ppe_net[FY2019]": 253.0}
    assert evaluate(node, values) == pytest.approx(6489 / 267.5)
    assert evaluate(parse("(b[FY2022] / a[FY2020]) ^ (1 / 2) - 1"),
                    {"a[FY2020]": 100.0, "b[FY2022]": 121.0}) == pytest.approx(0.1)
    assert render(bind(parse("x[t-1]"), "FY2024-Q1")) == "x[FY2023-Q1]"


@pytest.mark.parametrize("text, message", [
    ("", "empty"),
    ("revenue", "needs a period"),
    ("revenue[2019]", "is not FY2019"),
    ("revenue[FY2019] +", "end"),
    ("avg(revenue[FY2019]", "expected '\\)'"),
    ("median(revenue[FY2019])", "unknown function"),
    ("revenue[FY2019] $ 2", "unexpected character"),
    ("abs(cogs[t], capex[t])", "takes 1 argument"),
    ("revenue{ }[FY2024]", "an empty member"),
    ("revenue{Digital Media}", "needs a period"),
    ("revnue[FY2019] / 2", "did you mean 'revenue'"),
])
def test_errors_say_what_and_where(text, message):
    with pytest.raises(FormulaError, match=message):
        parse(text, known=catalog().metrics)


def test_member_references_keep_their_member_through_bind_and_expansion():
    node = parse("revenue{Digital Media}[t] / revenue[t]")
    assert node == BinOp("/", Ref("revenue", "t", "Digital Media"), Ref("revenue", "t"))
    bound = bind(node, "FY2024")
    assert [str(r) for r in inputs(bound)] == ["revenue{Digital Media}[FY2024]",
                                               "revenue[FY2024]"]
    assert evaluate(bound, {"revenue{Digital Media}[FY2024]": 15864.0,
                            "revenue[FY2024]": 21505.0}) == pytest.approx(0.7377, abs=1e-4)
    # a segment's derived metric is computed from the segment's own figures
    margin = expand(parse("operating_margin{Graphics}[FY2023]", known=catalog().metrics), {})
    assert render(margin) == "operating_income{Graphics}[FY2023] / revenue{Graphics}[FY2023]"
    # spaces inside the braces are tidied
    assert parse("revenue{  Med   Tech }[FY2024]") == Ref("revenue", "FY2024", "Med Tech")


def test_evaluation_errors_name_the_problem():
    with pytest.raises(FormulaError, match="No value for capex"):
        evaluate(parse("capex[FY2018]"), {})
    with pytest.raises(FormulaError, match="Division by zero"):
        evaluate(parse("a[t] / b[t]"), {"a[t]": 1.0, "b[t]": 0.0})
    with pytest.raises(FormulaError, match="negative base"):
        evaluate(parse("a[t] ^ 0.5"), {"a[t]": -4.0})


def test_every_catalogue_formula_parses_and_expands_to_looked_up_metrics():
    cat = catalog()
    for metric in cat.metrics.values():
        for text in filter(None, (metric.formula, metric.fallback)):
            node = parse(text, known=cat.metrics)
            flat = expand(bind(node, "FY2020"), {})
            for ref in inputs(flat):
                assert not cat.get(ref.metric).derived, (metric.key, ref)
                assert ref.period in {"FY2020", "FY2019"}, (metric.key, ref)
