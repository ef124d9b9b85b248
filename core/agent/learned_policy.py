"""A learned policy: multinomial logistic regression over step features (``policy_data``)
that predicts CONTINUE / REVISE / FINISH, used only when it beats the rule on held-out runs.

Model: softmax regression ``p(y | x) = softmax(W · z + b)`` on standardised features ``z``,
fitted by full-batch gradient descent on the mean cross-entropy plus an L2 penalty
(``L2`` on W, not b); class weights balance the labels. A few dozen examples and 14 features
need nothing more (numpy only; scikit-learn's LogisticRegression would give the same model at
the cost of a direct dependency).

Evaluation: grouped k-fold by **run** (``FOLDS``; every decision of a run falls in the same
fold, so a run is never both trained on and scored), comparing the accuracy of the model and of
the rule's own decision against the outcome-corrected labels on the held-out folds. With a few
dozen decisions one split is noisy (on the same 44 decisions, two fold assignments gave 0.64
and 0.75 against the rule's 0.73), so the split is repeated ``REPEATS`` times with seeded
shuffles of the runs: the reported learned accuracy is the mean, and the model counts as
better only when that mean is at least ``MIN_GAIN`` above the rule's and it beats the rule in
at least ``WIN_SHARE`` of the repeats. The model
file (``settings.data_dir/policy/learned_policy.json``) records both and ``better``: the model
is consulted only when ``better`` is true, it had at least ``MIN_RUNS`` runs and
``MIN_EXAMPLES`` decisions, and then only to choose between REVISE and moving on. Bounds (wall
time, tokens, ``max_steps``), the end of the plan and the revision budget stay the rule's.
"""

from __future__ import annotations

import json
import threading
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from core.agent.policy_data import FEATURES, LABELS, Example, collect, live_features
from core.foundation.config import Settings

FOLDS = 5
REPEATS = 10
WIN_SHARE = 0.8
MIN_GAIN = 0.03
MIN_RUNS = 5
MIN_EXAMPLES = 20
L2 = 0.1
STEPS = 400
RATE = 0.5


@dataclass
class PolicyModel:
    """Weights, standardisation and the held-out comparison with the rule."""

    weights: list[list[float]]
    bias: list[float]
    mean: list[float]
    std: list[float]
    features: list[str] = field(default_factory=lambda: list(FEATURES))
    labels: list[str] = field(default_factory=lambda: list(LABELS))
    runs: int = 0
    examples: int = 0
    rule_accuracy: float | None = None
    learned_accuracy: float | None = None
    held_out: int = 0
    better: bool = False
    verdict: str = ""
    fitted_at: str = ""

    def probabilities(self, x: list[float]) -> np.ndarray:
        z = (np.asarray(x, dtype=float) - np.asarray(self.mean)) / np.asarray(self.std)
        return _softmax(np.asarray(self.weights) @ z + np.asarray(self.bias))

    def predict(self, x: list[float]) -> tuple[str, float]:
        p = self.probabilities(x)
        i = int(np.argmax(p))
        return self.labels[i], float(p[i])


def _softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def train(x: np.ndarray, y: np.ndarray) -> PolicyModel:
    """Fit the softmax regression on features ``x`` (n, d) and label indices ``y`` (n,)."""
    mean, std = x.mean(axis=0), x.std(axis=0)
    std[std == 0] = 1.0
    z = (x - mean) / std
    k = len(LABELS)
    onehot = np.eye(k)[y]
    counts = onehot.sum(axis=0)
    class_w = np.where(counts > 0, len(y) / (k * np.maximum(counts, 1)), 0.0)
    sample_w = class_w[y][:, None]
    w, b = np.zeros((k, x.shape[1])), np.zeros(k)
    for _ in range(STEPS):
        grad = sample_w * (_softmax(z @ w.T + b) - onehot) / len(y)
        w -= RATE * (grad.T @ z + L2 * w)
        b -= RATE * grad.sum(axis=0)
    return PolicyModel(weights=w.tolist(), bias=b.tolist(), mean=mean.tolist(),
                       std=std.tolist())


def _arrays(examples: list[Example]) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray([e.features for e in examples], dtype=float)
    y = np.asarray([LABELS.index(e.label) for e in examples], dtype=int)
    return x, y


def held_out(examples: list[Example], seed: int = 0) -> tuple[float, float, int]:
    """``(rule accuracy, learned accuracy, n scored)`` over one grouped k-fold by run."""
    runs = sorted({e.run_id for e in examples})
    order = np.random.default_rng(seed).permutation(len(runs))
    fold_of = {runs[j]: i % FOLDS for i, j in enumerate(order)}
    rule_hits = learned_hits = n = 0
    for fold in range(min(FOLDS, len(runs))):
        train_set = [e for e in examples if fold_of[e.run_id] != fold]
        test_set = [e for e in examples if fold_of[e.run_id] == fold]
        if not train_set or not test_set:
            continue
        model = train(*_arrays(train_set))
        for e in test_set:
            learned_hits += model.predict(e.features)[0] == e.label
            rule_hits += e.rule == e.label
            n += 1
    return (rule_hits / n if n else 0.0), (learned_hits / n if n else 0.0), n


def fit(examples: list[Example]) -> PolicyModel:
    """Compare on held-out runs, then fit on everything; ``better`` says which one to use."""
    runs = len({e.run_id for e in examples})
    if runs < MIN_RUNS or len(examples) < MIN_EXAMPLES:
        raise ValueError(f"not enough runs to learn from: {runs} run(s), {len(examples)} "
                         f"decision(s) (need {MIN_RUNS} and {MIN_EXAMPLES}); the rule stays")
    splits = [held_out(examples, seed) for seed in range(REPEATS)]
    rule_acc, n = splits[0][0], splits[0][2]
    learned_acc = float(np.mean([s[1] for s in splits]))
    wins = sum(s[1] > s[0] for s in splits)
    model = train(*_arrays(examples))
    model.runs, model.examples, model.held_out = runs, len(examples), n
    model.rule_accuracy, model.learned_accuracy = round(rule_acc, 4), round(learned_acc, 4)
    model.better = wins >= WIN_SHARE * REPEATS and learned_acc - rule_acc >= MIN_GAIN
    said = (f"held-out accuracy {learned_acc:.2f} (mean of {REPEATS} splits) vs rule "
            f"{rule_acc:.2f} on {n} decisions; learned ahead in {wins} of {REPEATS} splits")
    model.verdict = (f"learned policy used: {said}" if model.better
                     else f"the rule stays: {said}")
    model.fitted_at = datetime.now(UTC).isoformat(timespec="seconds")
    return model


def model_path(settings: Settings) -> Path:
    return settings.data_dir / "policy" / "learned_policy.json"


def save(model: PolicyModel, settings: Settings) -> Path:
    path = model_path(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(model), indent=1), encoding="utf-8")
    tmp.replace(path)
    return path


_LOADED: dict[str, tuple[float, PolicyModel | None]] = {}
_LOCK = threading.Lock()


def load(settings: Settings) -> PolicyModel | None:
    """The saved model (re-read when the file changes), or None."""
    path = model_path(settings)
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return None
    with _LOCK:
        seen = _LOADED.get(str(path))
        if seen and seen[0] == mtime:
            return seen[1]
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            model = PolicyModel(**data)
            if model.features != list(FEATURES) or model.labels != list(LABELS):
                model = None  # fitted on other features: refit
        except (OSError, ValueError, TypeError):
            model = None
        _LOADED[str(path)] = (mtime, model)
        return model


def fit_and_save(settings: Settings) -> PolicyModel:
    """Collect examples from stored runs and evaluations, fit, save (``python -m core policy
    fit``); raises ValueError when there is too little to learn from."""
    model = fit(collect(settings))
    save(model, settings)
    return model


def consult(out: Any, state: Any, deps: Any) -> Any:
    """The rule's ``PolicyDecision`` ``out``, or the learned one when a better model exists.

    Only REVISE versus moving on is the model's to change: a bound the rule hit, the
    revision budget and the end of the plan stay as the rule says."""
    model = load(deps.settings)
    if model is None or not model.better:
        return out
    if out.limit is not None and out.limit.code in ("max_wall_s", "max_tokens", "max_steps"):
        return out
    x = live_features(state, deps.settings)
    predicted, p = model.predict(x)
    last = state.get("step_index", 0) + 1 >= len(state["plan"])
    left = x[FEATURES.index("revisions_left")] > 0
    if predicted == "REVISE" and not left:
        return out
    choice = "REVISE" if predicted == "REVISE" else ("FINISH" if last else "CONTINUE")
    if choice == out.decision:
        return out
    why = (f"learned policy ({model.learned_accuracy:.2f} vs rule {model.rule_accuracy:.2f} "
           f"held-out): {predicted} with p={p:.2f}; the rule said {out.decision}: {out.reason}")
    return out.model_copy(update={"decision": choice, "reason": why})
