/**
 * The files of the demo's fictional repository (`/srv/ingest`, an upload worker), which the simulated agent reads.
 *
 * Source code and prose documentation are most of a real session's tokens and little of its floor: `full` finds
 * almost nothing irreducible in a file listing, so these files carry the session's length while the planted state
 * carries its floor.
 */

/** The repository's root, as the agent's tool calls name it. */
export const ROOT = '/srv/ingest'

const WORKER = `"""Upload worker: pulls batches off the queue, writes their chunks and commits them."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

from .config import settings
from .metrics import observe_latency, count_failure
from .queue import BatchQueue, Batch
from .retry import with_backoff
from .storage import commit_chunk, write_staging
from .validate import UploadRequest

log = logging.getLogger(__name__)


@dataclass
class WorkerState:
    """What one worker process remembers between batches."""

    processed: int = 0
    failed: int = 0
    last_batch: str | None = None
    timings: list[float] = field(default_factory=list)


class Worker:
    """Processes one batch at a time; a failed chunk fails its whole batch."""

    def __init__(self, queue: BatchQueue, state: WorkerState | None = None) -> None:
        self.queue = queue
        self.state = state or WorkerState()

    def run_once(self) -> bool:
        batch = self.queue.pop(timeout=settings.poll_timeout)
        if batch is None:
            return False
        started = time.monotonic()
        try:
            self.process(batch)
        except Exception:
            self.state.failed += 1
            count_failure(batch.source)
            log.exception("batch %s aborted", batch.name)
            self.queue.requeue(batch)
            return True
        finally:
            elapsed = time.monotonic() - started
            self.state.timings.append(elapsed)
            observe_latency("batch", elapsed)
        self.state.processed += 1
        self.state.last_batch = batch.name
        return True

    def process(self, batch: Batch) -> None:
        request = UploadRequest(path=batch.target, size=batch.size, source=batch.source)
        for chunk in batch.chunks():
            staged = write_staging(request, chunk)
            with_backoff(lambda: commit_chunk(staged, request.path))

    def run_forever(self) -> None:
        while True:
            if not self.run_once():
                time.sleep(settings.idle_sleep)


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="ingest.worker")
    parser.add_argument("--once", action="store_true", help="process one batch and exit")
    parser.add_argument("--path", help="process the batch whose target is this path")
    args = parser.parse_args(argv)
    queue = BatchQueue.from_settings(settings)
    if args.path:
        queue = queue.only(args.path)
    worker = Worker(queue)
    if args.once:
        worker.run_once()
        return 1 if worker.state.failed else 0
    worker.run_forever()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
`

const STORAGE = `"""Staging and commit of upload chunks.

A chunk is written to the staging directory first and moved into the uploads
directory only once it is complete, so readers never see half a chunk.
"""

from __future__ import annotations

import os
from pathlib import Path

from .config import settings
from .validate import UploadRequest


def staging_path(request: UploadRequest, index: int) -> Path:
    """Where chunk number index of a request is staged."""
    return Path(settings.staging_dir) / f"{Path(request.path).stem}.{index:04d}.part"


def write_staging(request: UploadRequest, chunk) -> Path:
    """Write one chunk to staging and flush it to disk."""
    target = staging_path(request, chunk.index)
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "wb") as fh:
        fh.write(chunk.data)
        fh.flush()
        os.fsync(fh.fileno())
    return target


def commit_chunk(staged: Path, destination: str) -> Path:
    """Move a staged chunk into place.

    The move must be atomic for readers of the uploads directory.
    """
    final = Path(destination)
    final.parent.mkdir(parents=True, exist_ok=True)
    os.rename(staged, final)
    return final


def discard(staged: Path) -> None:
    """Remove a staged chunk after a failed batch; a missing file is fine."""
    try:
        staged.unlink()
    except FileNotFoundError:
        pass
`

const VALIDATE = `"""Request models for the upload API and the worker."""

from __future__ import annotations

import re

from pydantic import BaseModel, validator

from .config import settings


class UploadRequest(BaseModel):
    """One upload as the API accepted it."""

    path: str
    size: int
    source: str = "api"

    class Config:
        allow_mutation = False
        anystr_strip_whitespace = True

    @validator("path")
    def path_is_allowed(cls, value: str) -> str:
        if not re.fullmatch(settings.upload_path_pattern, value):
            raise ValueError(f"upload path not allowed: {value}")
        return value

    @validator("size")
    def size_is_positive(cls, value: int) -> int:
        if value <= 0:
            raise ValueError("size must be positive")
        if value > settings.max_upload_bytes:
            raise ValueError("upload too large")
        return value


class BatchManifest(BaseModel):
    """The manifest a partner sends with a batch."""

    name: str
    files: list[UploadRequest]
    checksum: str | None = None

    @validator("files")
    def not_empty(cls, value):
        if not value:
            raise ValueError("a batch needs at least one file")
        return value
`

const CONFIG = `"""Settings, read from the environment (prefix INGEST_)."""

from __future__ import annotations

from pydantic import BaseSettings


class Settings(BaseSettings):
    queue_url: str = "redis://localhost/0"
    staging_dir: str = "/srv/ingest/staging"
    uploads_dir: str = "/var/tmp/uploads"
    upload_path_pattern: str = r".*"
    max_upload_bytes: int = 1 << 30
    poll_timeout: float = 5.0
    idle_sleep: float = 1.0
    retry_attempts: int = 3
    retry_base_delay: float = 0.2

    class Config:
        env_prefix = "INGEST_"


settings = Settings()
`

const RETRY = `"""Retry with exponential backoff and jitter."""

from __future__ import annotations

import logging
import random
import time
from typing import Callable, TypeVar

from .config import settings

T = TypeVar("T")
log = logging.getLogger(__name__)

RETRYABLE = (TimeoutError, ConnectionError)


def delay_for(attempt: int) -> float:
    """The wait before retry number attempt (1-based), with full jitter."""
    ceiling = settings.retry_base_delay * (2 ** (attempt - 1))
    return random.uniform(0, ceiling)


def with_backoff(operation: Callable[[], T], attempts: int | None = None) -> T:
    """Run operation, retrying retryable errors; the last error propagates."""
    limit = attempts or settings.retry_attempts
    for attempt in range(1, limit + 1):
        try:
            return operation()
        except RETRYABLE as error:
            if attempt == limit:
                raise
            wait = delay_for(attempt)
            log.warning("attempt %d failed (%s); retrying in %.2fs", attempt, error, wait)
            time.sleep(wait)
    raise AssertionError("unreachable")
`

const METRICS = `"""Prometheus metrics of the worker."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

LATENCY = Histogram(
    "ingest_latency_seconds",
    "Time spent per stage",
    ["stage"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)
FAILURES = Counter("ingest_failures_total", "Batches that failed", ["source"])


def observe_latency(stage: str, seconds: float) -> None:
    LATENCY.labels(stage=stage).observe(seconds)


def count_failure(source: str) -> None:
    FAILURES.labels(source=source).inc()
`

const TEST_STORAGE = `import os
from pathlib import Path

import pytest

from ingest import storage
from ingest.validate import UploadRequest


@pytest.fixture
def dirs(tmp_path, monkeypatch):
    staging = tmp_path / "staging"
    uploads = tmp_path / "uploads"
    monkeypatch.setattr(storage.settings, "staging_dir", str(staging))
    monkeypatch.setattr(storage.settings, "uploads_dir", str(uploads))
    return staging, uploads


class Chunk:
    def __init__(self, index, data):
        self.index = index
        self.data = data


def test_write_staging_flushes(dirs):
    staging, _ = dirs
    request = UploadRequest.construct(path="batch.bin", size=3, source="test")
    staged = storage.write_staging(request, Chunk(0, b"abc"))
    assert staged.parent == staging
    assert staged.read_bytes() == b"abc"


def test_commit_moves_into_place(dirs):
    staging, uploads = dirs
    staging.mkdir()
    staged = staging / "batch.0000.part"
    staged.write_bytes(b"abc")
    final = storage.commit_chunk(staged, str(uploads / "batch.bin"))
    assert final.read_bytes() == b"abc"
    assert not staged.exists()


def test_commit_across_devices(dirs, monkeypatch):
    staging, uploads = dirs
    staging.mkdir()
    staged = staging / "batch.0000.part"
    staged.write_bytes(b"abc")

    def cross_device(src, dst):
        raise OSError(18, "Invalid cross-device link")

    monkeypatch.setattr(os, "rename", cross_device)
    final = storage.commit_chunk(staged, str(uploads / "batch.bin"))
    assert final.read_bytes() == b"abc"


def test_discard_missing_is_fine(tmp_path):
    storage.discard(tmp_path / "nothing.part")
`

const TEST_VALIDATE = `import pytest
from pydantic import ValidationError

from ingest.validate import BatchManifest, UploadRequest


def test_accepts_a_plain_batch_name():
    request = UploadRequest(path="/var/tmp/uploads/batch_0007.bin", size=10)
    assert request.source == "api"


@pytest.mark.parametrize(
    "path",
    [
        "/var/tmp/uploads/../etc/passwd",
        "/var/tmp/uploads/Batch_0007.bin",
        "/var/tmp/uploads/batch 7.bin",
        "/var/tmp/uploads/sub/batch.bin",
        "/var/tmp/other/batch.bin",
    ],
)
def test_rejects_paths_outside_the_scheme(path):
    with pytest.raises(ValidationError):
        UploadRequest(path=path, size=10)


def test_rejects_empty_size():
    with pytest.raises(ValidationError):
        UploadRequest(path="/var/tmp/uploads/a.bin", size=0)


def test_manifest_needs_files():
    with pytest.raises(ValidationError):
        BatchManifest(name="empty", files=[])
`

const OPERATIONS = `# Operating the upload worker

The worker runs as a systemd service on each ingest host. It pulls batches from
the queue, writes every chunk to the staging directory and then moves the chunk
into the uploads directory, where the downstream indexer picks it up.

## Directories

The staging directory lives on the local disk of the host, because staging
writes are frequent and small. The uploads directory is shared with the
indexer and is mounted from the storage cluster on most hosts. Keep that in
mind when changing how chunks are committed: a move between the two is a move
between two filesystems on those hosts.

## When a batch fails

A failed batch is put back on the queue and retried by whichever worker pops it
next. The failure counter in the dashboard goes up by one per failed batch, not
per chunk. If the same batch keeps failing, look at the worker's journal for the
traceback of its first failure; later attempts usually fail the same way.

## Deploys

Deploy with the usual pipeline. The worker drains its current batch before it
stops, so a deploy never leaves a half-committed chunk behind. After a deploy,
watch the latency panel for a few minutes: the first batches warm the caches and
are slower than the rest.

## Partners

Partners name their batches themselves. The naming scheme is agreed per partner
and checked by the API before a batch is accepted, and again by the worker
before anything is written. Do not relax the check to let a single batch
through; ask the partner to resend instead.
`

const REQUIREMENTS = `prometheus-client==0.20.0
pydantic==2.7.4
redis==5.0.4
pytest==8.2.1
`

const QUEUE = `"""The batch queue: a Redis list of batch names plus one hash per batch."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Iterator

import redis

from .config import Settings

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Chunk:
    """One piece of a batch, as the partner sent it."""

    index: int
    data: bytes


@dataclass
class Batch:
    """A batch popped from the queue: where it goes and how to read its chunks."""

    name: str
    target: str
    size: int
    source: str
    chunk_keys: list[str]
    client: redis.Redis
    attempts: int = 0

    def chunks(self) -> Iterator[Chunk]:
        for index, key in enumerate(self.chunk_keys):
            data = self.client.get(key)
            if data is None:
                raise LookupError(f"chunk {key} of batch {self.name} expired")
            yield Chunk(index=index, data=data)


class BatchQueue:
    """Pops batches in arrival order; a requeued batch goes to the back."""

    def __init__(self, client: redis.Redis, key: str = "ingest:batches", only: str | None = None) -> None:
        self.client = client
        self.key = key
        self._only = only

    @classmethod
    def from_settings(cls, settings: Settings) -> "BatchQueue":
        return cls(redis.Redis.from_url(settings.queue_url))

    def only(self, target: str) -> "BatchQueue":
        """A view of the queue that yields just the batch writing to target."""
        return BatchQueue(self.client, self.key, only=target)

    def pop(self, timeout: float) -> Batch | None:
        popped = self.client.blpop([self.key], timeout=timeout)
        if popped is None:
            return None
        _, name = popped
        record = self.client.hgetall(f"ingest:batch:{name.decode()}")
        if not record:
            log.warning("batch %s has no record; dropping it", name)
            return None
        batch = self._decode(name.decode(), record)
        if self._only and batch.target != self._only:
            self.requeue(batch)
            return None
        return batch

    def requeue(self, batch: Batch) -> None:
        batch.attempts += 1
        self.client.hset(f"ingest:batch:{batch.name}", "attempts", batch.attempts)
        self.client.rpush(self.key, batch.name)

    def _decode(self, name: str, record: dict[bytes, bytes]) -> Batch:
        fields = {key.decode(): value.decode() for key, value in record.items()}
        return Batch(
            name=name,
            target=fields["target"],
            size=int(fields["size"]),
            source=fields.get("source", "api"),
            chunk_keys=json.loads(fields["chunks"]),
            client=self.client,
            attempts=int(fields.get("attempts", "0")),
        )
`

const API = `"""The upload API: partners create a batch, send its chunks, then close it."""

from __future__ import annotations

import hashlib
import json
import logging

from fastapi import APIRouter, Depends, HTTPException, Request
from pydantic import ValidationError

from .auth import partner_from_token
from .queue import BatchQueue
from .validate import BatchManifest, UploadRequest

log = logging.getLogger(__name__)
router = APIRouter(prefix="/v1/batches")


def get_queue(request: Request) -> BatchQueue:
    return request.app.state.queue


@router.post("")
async def create_batch(manifest: BatchManifest, partner=Depends(partner_from_token), queue=Depends(get_queue)):
    """Register a batch; its chunks are sent separately and it is queued on close."""
    record = {
        "target": manifest.files[0].path,
        "size": sum(item.size for item in manifest.files),
        "source": partner.name,
        "chunks": json.dumps([]),
        "state": "open",
    }
    queue.client.hset(f"ingest:batch:{manifest.name}", mapping=record)
    log.info("partner %s opened batch %s", partner.name, manifest.name)
    return {"name": manifest.name, "state": "open"}


@router.put("/{name}/chunks/{index}")
async def put_chunk(name: str, index: int, request: Request, partner=Depends(partner_from_token), queue=Depends(get_queue)):
    """Store one chunk; chunks may arrive in any order and are ordered on close."""
    record = queue.client.hgetall(f"ingest:batch:{name}")
    if not record:
        raise HTTPException(status_code=404, detail="no such batch")
    if record.get(b"state") != b"open":
        raise HTTPException(status_code=409, detail="batch is closed")
    body = await request.body()
    key = f"ingest:chunk:{name}:{index}"
    queue.client.set(key, body, ex=86400)
    chunks = json.loads(record[b"chunks"])
    if key not in chunks:
        chunks.append(key)
    queue.client.hset(f"ingest:batch:{name}", "chunks", json.dumps(sorted(chunks)))
    return {"name": name, "index": index, "sha256": hashlib.sha256(body).hexdigest()}


@router.post("/{name}/close")
async def close_batch(name: str, partner=Depends(partner_from_token), queue=Depends(get_queue)):
    """Validate the batch once more and hand it to the workers."""
    record = queue.client.hgetall(f"ingest:batch:{name}")
    if not record:
        raise HTTPException(status_code=404, detail="no such batch")
    try:
        UploadRequest(path=record[b"target"].decode(), size=int(record[b"size"]), source=partner.name)
    except ValidationError as error:
        queue.client.hset(f"ingest:batch:{name}", "state", "rejected")
        raise HTTPException(status_code=422, detail=error.errors()) from error
    queue.client.hset(f"ingest:batch:{name}", "state", "queued")
    queue.client.rpush(queue.key, name)
    return {"name": name, "state": "queued"}
`

const TEST_WORKER = `from dataclasses import dataclass, field

import pytest

from ingest import worker as worker_module
from ingest.worker import Worker, WorkerState


@dataclass
class FakeBatch:
    name: str = "batch_0001"
    target: str = "/var/tmp/uploads/batch_0001.bin"
    size: int = 3
    source: str = "test"
    pieces: list = field(default_factory=lambda: [b"abc"])

    def chunks(self):
        for index, data in enumerate(self.pieces):
            yield type("Chunk", (), {"index": index, "data": data})()


class FakeQueue:
    def __init__(self, batches):
        self.batches = list(batches)
        self.requeued = []

    def pop(self, timeout):
        return self.batches.pop(0) if self.batches else None

    def requeue(self, batch):
        self.requeued.append(batch)


@pytest.fixture
def committed(monkeypatch):
    done = []
    monkeypatch.setattr(worker_module, "write_staging", lambda request, chunk: chunk.data)
    monkeypatch.setattr(worker_module, "commit_chunk", lambda staged, path: done.append((staged, path)))
    return done


def test_run_once_processes_a_batch(committed):
    worker = Worker(FakeQueue([FakeBatch()]))
    assert worker.run_once() is True
    assert worker.state.processed == 1
    assert committed == [(b"abc", "/var/tmp/uploads/batch_0001.bin")]


def test_run_once_with_an_empty_queue():
    worker = Worker(FakeQueue([]))
    assert worker.run_once() is False
    assert worker.state == WorkerState()


def test_a_failed_chunk_requeues_the_batch(monkeypatch):
    def fail(staged, path):
        raise TimeoutError("storage did not answer")

    monkeypatch.setattr(worker_module, "write_staging", lambda request, chunk: chunk.data)
    monkeypatch.setattr(worker_module, "commit_chunk", fail)
    monkeypatch.setattr(worker_module, "with_backoff", lambda operation: operation())
    queue = FakeQueue([FakeBatch()])
    worker = Worker(queue)
    assert worker.run_once() is True
    assert worker.state.failed == 1
    assert [batch.name for batch in queue.requeued] == ["batch_0001"]


def test_timings_are_recorded(committed):
    worker = Worker(FakeQueue([FakeBatch(), FakeBatch(name="batch_0002")]))
    worker.run_once()
    worker.run_once()
    assert len(worker.state.timings) == 2
`

const PARTNERS = `# Partner feeds

Partners deliver data in batches. A batch is a set of files that belong
together, such as one day of readings from one site. The partner opens a
batch, sends its chunks in any order, and closes it; closing hands the batch
to the workers.

## Naming

Every partner agrees a naming scheme for its batches when it is onboarded. The
scheme is part of the contract: the API rejects a batch whose name does not
follow it, and so does the worker, so a batch that slipped past an older API
version is still caught before anything is written to the uploads directory.
We never rename a partner's batch for them, because their own reconciliation
uses the names they chose.

## Sizes and timing

Chunks are kept for a day after they arrive. A batch that is not closed within
that day loses its chunks and has to be sent again. Most partners send small
batches every few minutes; a few send one large batch at night. The workers do
not care which, but the latency panel looks very different for the two, so
compare like with like when judging a change.

## Rejections

A rejected batch is reported to the partner in the next morning's report, with
the reason the API or the worker gave. The report groups rejections by reason,
so a partner who changes its naming by accident sees one line with a count
rather than hundreds of lines. Support answers questions about rejections but
never resubmits a batch on the partner's behalf.

## Onboarding a new sender

A new sender gets credentials, a naming scheme and a test window. During the
test window its batches go to a separate queue that only the staging workers
read, so mistakes never reach the indexer. At the end of the window we look at
the rejections together with the partner and switch the sender to the
production queue once a full day has passed without one.
`

const INDEXER = `"""Client of the indexer service, which the worker notifies after each committed batch."""

from __future__ import annotations

import json
import logging
import socket
import urllib.error
import urllib.request
from dataclasses import dataclass

from .config import settings
from .retry import with_backoff

log = logging.getLogger(__name__)


class IndexerUnavailable(ConnectionError):
    """The indexer did not answer; the notification is retried later."""


class IndexerRejected(RuntimeError):
    """The indexer answered and refused the batch; retrying will not help."""


@dataclass(frozen=True)
class Notification:
    """What the indexer needs to pick up a committed batch."""

    batch: str
    path: str
    size: int
    source: str

    def to_json(self) -> bytes:
        return json.dumps(
            {"batch": self.batch, "path": self.path, "size": self.size, "source": self.source},
            sort_keys=True,
        ).encode()


class IndexerClient:
    """Posts notifications to the indexer; connection problems are retried with backoff."""

    def __init__(self, base_url: str | None = None, timeout: float | None = None) -> None:
        self.base_url = (base_url or settings.indexer_url).rstrip("/")
        self.timeout = timeout or settings.indexer_timeout

    def notify(self, notification: Notification) -> None:
        with_backoff(lambda: self._post("/notifications", notification.to_json()))
        log.info("indexer notified of batch %s", notification.batch)

    def health(self) -> bool:
        try:
            self._get("/health")
        except (IndexerUnavailable, IndexerRejected):
            return False
        return True

    def _post(self, path: str, body: bytes) -> dict:
        request = urllib.request.Request(
            self.base_url + path,
            data=body,
            headers={"content-type": "application/json"},
            method="POST",
        )
        return self._send(request)

    def _get(self, path: str) -> dict:
        return self._send(urllib.request.Request(self.base_url + path, method="GET"))

    def _send(self, request: urllib.request.Request) -> dict:
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                payload = response.read()
        except urllib.error.HTTPError as error:
            if error.code >= 500:
                raise IndexerUnavailable(f"indexer answered {error.code}") from error
            raise IndexerRejected(error.read().decode(errors="replace")) from error
        except (urllib.error.URLError, socket.timeout) as error:
            raise IndexerUnavailable(str(error)) from error
        return json.loads(payload) if payload else {}
`

const TEST_API = `import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from ingest import api


class FakeRedis:
    def __init__(self):
        self.hashes = {}
        self.values = {}
        self.lists = {}

    def hset(self, key, field=None, value=None, mapping=None):
        entry = self.hashes.setdefault(key, {})
        if mapping:
            entry.update({k.encode(): str(v).encode() for k, v in mapping.items()})
        else:
            entry[field.encode()] = str(value).encode()

    def hgetall(self, key):
        return dict(self.hashes.get(key, {}))

    def set(self, key, value, ex=None):
        self.values[key] = value

    def rpush(self, key, value):
        self.lists.setdefault(key, []).append(value)


class FakeQueue:
    key = "ingest:batches"

    def __init__(self):
        self.client = FakeRedis()


class Partner:
    name = "acme"


@pytest.fixture
def client():
    app = FastAPI()
    app.include_router(api.router)
    app.state.queue = FakeQueue()
    app.dependency_overrides[api.partner_from_token] = lambda: Partner()
    return TestClient(app)


def manifest(path="/var/tmp/uploads/batch_0001.bin"):
    return {"name": "batch_0001", "files": [{"path": path, "size": 3}]}


def test_open_send_close(client):
    assert client.post("/v1/batches", json=manifest()).json()["state"] == "open"
    assert client.put("/v1/batches/batch_0001/chunks/0", content=b"abc").status_code == 200
    assert client.post("/v1/batches/batch_0001/close").json()["state"] == "queued"


def test_chunk_for_unknown_batch(client):
    assert client.put("/v1/batches/nothing/chunks/0", content=b"abc").status_code == 404


def test_chunk_after_close_is_refused(client):
    client.post("/v1/batches", json=manifest())
    client.post("/v1/batches/batch_0001/close")
    assert client.put("/v1/batches/batch_0001/chunks/1", content=b"def").status_code == 409


def test_close_rejects_a_path_outside_the_scheme(client):
    response = client.post("/v1/batches", json=manifest(path="/var/tmp/uploads/Batch 1.bin"))
    assert response.status_code == 422
`

const RUNBOOK = `# Runbook: upload worker

## Symptoms and first checks

Batches failing on one host only usually mean something about that host: its
mounts, its disk, or its clock. Compare the host's mounts with a healthy
worker's before anything else, then read the first traceback of a failing batch
in the journal. Later attempts of the same batch tend to fail in the same way
and add nothing.

Batches failing on every host at once usually mean a dependency: the queue, the
storage cluster or the indexer. Check the dependency panels first; the worker
itself rarely changes behaviour without a deploy.

## Restarting a worker

Restart the service rather than killing the process. The worker finishes the
batch it holds before it stops, and a batch it could not finish goes back on
the queue for another worker. Never delete files from the staging directory by
hand while a worker runs: the worker may be about to commit them.

## Requeueing by hand

A batch that failed for a reason that has since been fixed can be requeued
from the admin console. Requeue it once and watch it; if it fails again, the
fix did not cover it. Requeueing the same batch many times only fills the
failure counter and hides the real error.

## Escalation

Page the storage on-call for anything that looks like the storage cluster:
slow commits on every host, mount errors, or stale file handles. Page the
ingest on-call for everything else. Include the batch name and the first
traceback in the page; a screenshot of the dashboard alone is rarely enough.
`

/** A file of the fictional repository. */
export interface ProjectFile {
  /** Path relative to {@link ROOT}. */
  readonly path: string
  readonly text: string
}

/** The repository's files the agent reads, by path. */
export const PROJECT_FILES: readonly ProjectFile[] = [
  { path: 'ingest/worker.py', text: WORKER },
  { path: 'ingest/storage.py', text: STORAGE },
  { path: 'ingest/validate.py', text: VALIDATE },
  { path: 'ingest/config.py', text: CONFIG },
  { path: 'ingest/retry.py', text: RETRY },
  { path: 'ingest/metrics.py', text: METRICS },
  { path: 'ingest/queue.py', text: QUEUE },
  { path: 'ingest/api.py', text: API },
  { path: 'tests/test_worker.py', text: TEST_WORKER },
  { path: 'docs/partners.md', text: PARTNERS },
  { path: 'ingest/indexer.py', text: INDEXER },
  { path: 'tests/test_api.py', text: TEST_API },
  { path: 'docs/runbook.md', text: RUNBOOK },
  { path: 'tests/test_storage.py', text: TEST_STORAGE },
  { path: 'tests/test_validate.py', text: TEST_VALIDATE },
  { path: 'docs/operations.md', text: OPERATIONS },
  { path: 'requirements.txt', text: REQUIREMENTS },
]

/** listing(file, from, count) = lines from..from+count-1 (1-based) as the Read tool prints them (`cat -n`). */
export function listing(file: ProjectFile, from = 1, count = Number.POSITIVE_INFINITY): string {
  const lines = file.text.replace(/\n$/, '').split('\n')
  const end = Math.min(lines.length, from - 1 + count)
  const out: string[] = []
  for (let index = from - 1; index < end; index++) out.push(`${String(index + 1).padStart(6)}\t${lines[index]}`)
  return out.join('\n')
}

/** fileNamed(path) = the project file at `path` (relative to the root); throws for a path the project lacks. */
export function fileNamed(path: string): ProjectFile {
  const file = PROJECT_FILES.find((candidate) => candidate.path === path)
  if (!file) throw new RangeError(`no project file ${path}`)
  return file
}
