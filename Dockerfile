# The production image: the same code as `make run`, services external (see compose.yaml).
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1
WORKDIR /app
# CPU-only torch first, from PyTorch's CPU index: the default wheel pulls CUDA builds.
RUN pip install --no-cache-dir torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu
COPY pyproject.toml README.md ./
# Every package pyproject.toml installs (tests/ctx/test_dockerfile.py keeps the two lists equal).
COPY ctx ctx
COPY retrieval retrieval
COPY dream dream
COPY secrets secrets
COPY frontend frontend
COPY rls rls
COPY migrations migrations
COPY memory memory
COPY profiles profiles
COPY ingest ingest
COPY briefing briefing
COPY refindex refindex
COPY blobs blobs
COPY manage.py ./
RUN pip install --no-cache-dir .
# Static files collected into the image (content-hashed, gzip and brotli variants): WhiteNoise
# serves them from the web process. Kept out of the data directory, so a volume mounted there
# cannot hide them; the throw-away key only stops settings from writing one into the image.
ENV CTX_STATIC_ROOT=/app/static
RUN CTX_SECRET_KEY=collectstatic-only DJANGO_SETTINGS_MODULE=ctx.settings \
    python -m django collectstatic --noinput -v 0
EXPOSE 8000
CMD ["uvicorn", "ctx.asgi:app", "--host", "0.0.0.0", "--port", "8000", "--workers", "2",
     "--http", "ctx.runtime.http:NoDelayH11Protocol"]
