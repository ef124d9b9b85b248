"""``python -m core policy fit|show``: fit the learned policy from stored runs, or show it."""

from __future__ import annotations

import sys

from core.foundation.config import Settings


def cmd_policy(args, settings: Settings) -> int:
    from core.agent import learned_policy as lp

    if args.action == "fit":
        try:
            model = lp.fit_and_save(settings)
        except ValueError as exc:
            print(str(exc), file=sys.stderr)
            return 1
        print(f"fitted on {model.examples} decision(s) from {model.runs} run(s); "
              f"saved to {lp.model_path(settings)}")
    model = lp.load(settings)
    if model is None:
        print("No learned policy: the rule decides. Fit one with `python -m core policy fit` "
              "once runs are stored (and evaluated).")
        return 0
    print(describe(model))
    return 0


def describe(model) -> str:
    """A readable summary: held-out accuracies, verdict and the weights per label."""
    from core.agent.policy_data import FEATURES

    lines = [model.verdict,
             f"runs {model.runs}, decisions {model.examples}, held-out {model.held_out}, "
             f"rule accuracy {model.rule_accuracy}, learned accuracy {model.learned_accuracy}, "
             f"fitted {model.fitted_at}", "weights (standardised features):"]
    for label, row, b in zip(model.labels, model.weights, model.bias, strict=True):
        top = sorted(zip(FEATURES, row, strict=True), key=lambda kv: -abs(kv[1]))[:4]
        lines.append(f"  {label:<8} bias {b:+.2f}; " + ", ".join(f"{f} {w:+.2f}" for f, w in top))
    return "\n".join(lines)


def add_policy_parser(sub) -> None:
    s = sub.add_parser("policy", help="learned policy: fit it from stored runs, or show it")
    s.add_argument("action", choices=["fit", "show"])
    s.set_defaults(func=cmd_policy)
