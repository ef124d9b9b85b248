"""The bundled sentence-transformers model under ONNX Runtime, exported here from its weights.

No model hub: the first use exports the model's transformer (``torch.onnx.export`` of the
local weights, eager attention so the padding mask is honoured) into the model cache folder,
and for ``int8`` quantises its weights per channel with ONNX Runtime's ``quantize_dynamic``
(per tensor, cosine to float32 falls to ~0.92 on filing chunks; per channel ~0.99). The files are
keyed by a hash of the weights, written to a temporary name and renamed, so processes that
export at once never read half a file. Tokenisation is the model's own ``tokenizer.json``
(the ``tokenizers`` library sentence-transformers uses too); pooling (mean over the attention
mask) and L2 normalisation follow the model's sentence-transformers configuration.

Texts are encoded in batches of similar length (sorted by token count), so a batch is padded
to its own longest text, not to the longest of the whole call. The session runs each batch on
one thread, and a call of several batches runs them on ``threads`` Python threads at once (ONNX
Runtime's ``run`` is thread-safe and releases the GIL): on two cores that is ~1.15x the speed and
less CPU than one run spread over two intra-op threads, which meet at a barrier after every
operator of a small model. The helper threads take the calling thread's nice value, so a
background ingest stays in the background.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path

import numpy as np

from core.foundation.errors import AppError

OPSET = 17
_EXPORT_LOCK = threading.Lock()


def _nice() -> int | None:
    try:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    except (AttributeError, OSError):
        return None


def _side_by_side(run, n: int) -> None:
    """``run(0)`` on this thread and ``run(1..n-1)`` on helper threads with this thread's nice
    value; the first error of any of them is raised here once all have ended."""
    if n <= 1:
        run(0)
        return
    nice, errors = _nice(), []

    def helper(k: int) -> None:
        if nice and nice > 0:  # a background caller: its helpers too (no privilege needed)
            try:
                os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), nice)
            except OSError:
                pass
        try:
            run(k)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller
            errors.append(exc)

    helpers = [threading.Thread(target=helper, args=(k,), name=f"onnx-encode-{k}", daemon=True)
               for k in range(1, n)]
    for t in helpers:
        t.start()
    try:
        run(0)
    finally:
        for t in helpers:
            t.join()
    if errors:
        raise errors[0]


class OnnxUnavailable(AppError):
    """ONNX Runtime (or the model's export) cannot be used here; the caller falls back."""


def _weights_digest(model_dir: Path) -> str:
    h = hashlib.sha256()
    for name in ("model.safetensors", "pytorch_model.bin", "config.json"):
        path = model_dir / name
        if path.exists():
            h.update(name.encode())
            with path.open("rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    h.update(block)
    return h.hexdigest()[:16]


def _export_fp32(model_dir: Path, out: Path) -> None:
    import torch
    from transformers import AutoModel

    bert = AutoModel.from_pretrained(str(model_dir), attn_implementation="eager",
                                     local_files_only=True).eval()  # the bundled folder only

    class Hidden(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    names = ["input_ids", "attention_mask", "token_type_ids"]
    dummy = tuple(torch.ones(2, 8, dtype=torch.long) for _ in names)
    axes = {n: {0: "batch", 1: "tokens"} for n in [*names, "last_hidden_state"]}
    tmp = out.with_name(f"{out.name}.{os.getpid()}.tmp")
    with torch.no_grad():
        torch.onnx.export(Hidden(bert), dummy, str(tmp), input_names=names,
                          output_names=["last_hidden_state"], dynamic_axes=axes,
                          opset_version=OPSET, dynamo=False)
    os.replace(tmp, out)


def _quantise(src: Path, out: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    tmp = out.with_name(f"{out.name}.{os.getpid()}.tmp")
    quantize_dynamic(str(src), str(tmp), weight_type=QuantType.QInt8, per_channel=True)
    os.replace(tmp, out)


def onnx_file(model_dir: Path, cache_dir: Path, precision: str) -> Path:
    """The model's ONNX file for ``precision`` ("fp32" or "int8"), exported on first use."""
    folder = cache_dir / f"{model_dir.name}-{_weights_digest(model_dir)}"
    fp32, int8 = folder / "model-fp32.onnx", folder / "model-int8.onnx"
    with _EXPORT_LOCK:
        folder.mkdir(parents=True, exist_ok=True)
        if not fp32.exists():
            _export_fp32(model_dir, fp32)
        if precision == "int8" and not int8.exists():
            _quantise(fp32, int8)
    return int8 if precision == "int8" else fp32


def _st_config(model_dir: Path) -> tuple[int, bool]:
    """(max_seq_length, normalise) from the sentence-transformers files; refuses a pooling
    other than mean over tokens, which is all this encoder implements."""
    max_len = 512
    cfg = model_dir / "sentence_bert_config.json"
    if cfg.exists():
        max_len = int(json.loads(cfg.read_text()).get("max_seq_length") or max_len)
    pooling = model_dir / "1_Pooling" / "config.json"
    if pooling.exists():
        modes = {k: v for k, v in json.loads(pooling.read_text()).items()
                 if k.startswith("pooling_mode") and v}
        if set(modes) != {"pooling_mode_mean_tokens"}:
            raise OnnxUnavailable(f"the ONNX encoder does mean pooling only, not {sorted(modes)}")
    modules = model_dir / "modules.json"
    normalise = not modules.exists() or "Normalize" in modules.read_text()
    return max_len, normalise


class OnnxEmbedder:
    """A sentence-transformers model (mean pooling) run by ONNX Runtime on the CPU."""

    def __init__(self, model_dir: Path, cache_dir: Path, *, name: str, precision: str = "fp32",
                 batch_size: int = 32, threads: int | None = None, max_tokens: int = 0):
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise OnnxUnavailable(f"onnxruntime is not installed ({exc})") from exc
        self.name, self.precision, self.batch_size = name, precision, batch_size
        max_len, self._normalise = _st_config(model_dir)
        self._tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tok.no_padding()
        self._tok.enable_truncation(min(max_len, max_tokens) if max_tokens else max_len)
        opts = ort.SessionOptions()
        self.threads = max(1, threads or min(os.cpu_count() or 1, 4))
        opts.intra_op_num_threads = 1  # one thread a batch; batches run side by side (encode)
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # no busy-waiting between ops (as OMP_WAIT_POLICY=PASSIVE for torch): on two shared
        # cores a spinning pool burns the CPU the other stages need
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        path = onnx_file(model_dir, cache_dir, precision)
        self._session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}
        self.dim = int(self._session.get_outputs()[0].shape[-1])
        self._lock = threading.Lock()

    def encode(self, texts: list[str]) -> np.ndarray:
        unique = list(dict.fromkeys(texts))
        if len(unique) < len(texts):  # identical texts (repeated headers, tables) once
            vecs = self.encode(unique)
            row = {text: i for i, text in enumerate(unique)}
            return vecs[[row[t] for t in texts]]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encs = self._tok.encode_batch(list(texts))
        order = np.argsort([len(e.ids) for e in encs], kind="stable")
        batches = [order[start:start + self.batch_size]
                   for start in range(0, len(order), self.batch_size)]

        def run(first: int) -> None:  # every threads-th batch (they are sorted by length)
            for idx in batches[first::self.threads]:
                out[idx] = self._batch([encs[i] for i in idx])

        with self._lock:
            _side_by_side(run, min(self.threads, len(batches)))
        return out

    def _batch(self, encs) -> np.ndarray:
        width = max(len(e.ids) for e in encs)
        ids = np.zeros((len(encs), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for row, enc in enumerate(encs):
            n = len(enc.ids)
            ids[row, :n], mask[row, :n], types[row, :n] = enc.ids, 1, enc.type_ids
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        hidden = self._session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0]
        weights = mask[..., None].astype(np.float32)
        vecs = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        if self._normalise:
            norms = np.linalg.norm(vecs, axis=1, keepdims=True)
            norms[norms == 0] = 1.0
            vecs = vecs / norms
        return vecs.astype(np.float32)
