# The README's two commands: `make run` and `make test`. Both (re)create the
# local virtualenv idempotently from the pinned requirements.txt.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.requirements.stamp
PORT ?= 8501
export HF_HUB_OFFLINE := 1
export OMP_WAIT_POLICY := PASSIVE
export LANGSMITH_TRACING := false
export TOKENIZERS_PARALLELISM := false

.PHONY: setup run test lint bench

setup: $(STAMP)

$(STAMP): requirements.txt
	@command -v uv >/dev/null 2>&1 || python3 -m pip install -q uv==0.13.8
	@[ -x $(PY) ] || uv venv $(VENV) -p python3.11
	UV_FIND_LINKS=/opt/wheels uv pip install -q --compile-bytecode -p $(PY) -r requirements.txt
	@touch $(STAMP)

run: setup
	$(VENV)/bin/streamlit run serve.py --server.address 127.0.0.1 --server.port $(PORT) --server.headless true

test: setup
	@bash scripts/ensure_chromium.sh
	@bash scripts/ensure_postgres.sh
	$(PY) -m ruff check .
	$(PY) -m pytest

lint: setup
	$(PY) -m ruff check .
