# The app image for team mode (compose.yaml). Untested here: these machines have no Docker.
FROM python:3.11-slim
WORKDIR /app
ENV HF_HUB_OFFLINE=1 OMP_WAIT_POLICY=PASSIVE LANGSMITH_TRACING=false \
    TOKENIZERS_PARALLELISM=false PYTHONUNBUFFERED=1
COPY requirements.txt .
# torch's CPU build (the default PyPI wheel pulls CUDA); everything else from PyPI.
RUN pip install --no-cache-dir --index-url https://download.pytorch.org/whl/cpu torch==2.13.0 \
 && pip install --no-cache-dir -r requirements.txt
COPY . .
EXPOSE 8501
CMD ["streamlit", "run", "serve.py", "--server.address", "0.0.0.0", \
     "--server.port", "8501", "--server.headless", "true"]
