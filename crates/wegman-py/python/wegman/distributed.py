"""Tag and check a data set on a Dask cluster under one key.

``tag(client, key_path, paths)`` returns the manifest ``wegman tag -k KEY
PATHS...`` would print -- one line per file, in the order given, then the
seal -- with the files read on the cluster's workers; ``check(client,
key_path, manifest)`` verifies one as ``wegman check`` does, each file read
once on a worker. Paths are local paths (each worker must see the same
file at that path) or fsspec URLs (``s3://``, ``gs://``, ``memory://`` ...,
where the workers have the filesystem package).

Nonces: the key's nonce store stays with the caller (the driver). Each task
*execution* takes a lease -- nonces reserved durably in the store, disjoint
from every other lease and every nonce the store hands out -- from a queue
on the scheduler, which hands each lease out once. A task that Dask runs
again (its worker died, or was thought dead) takes a new lease: a lease is
never used by two executions, and the unused nonces of a lost one are
skipped, never handed out again. A file that cannot be read, or a batch
that keeps failing, raises ``DistributedError`` and returns no manifest.

The key travels to the workers (scattered straight from the driver, never
through the scheduler, and dropped at the end of the run) unless
``key_on_workers`` names a key file each worker reads itself. Use Dask's TLS
(``distributed.security.Security``) so that it does not travel in clear.
docs/distributed.md has the design and a runnable example.

Needs the ``dask`` extra: ``pip install "wegman[dask]"``.

>>> import wegman.distributed
>>> wegman.distributed.__all__
['DistributedError', 'check', 'tag']
"""

from __future__ import annotations

import os
import uuid
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from wegman._wegman import ManifestCheck, NonceStore, _CheckRun, _WorkerKey

__all__ = ["DistributedError", "check", "tag"]

_Path = Union[str, "os.PathLike[str]"]

#: Seconds a task waits for its lease before it fails (and is retried).
LEASE_WAIT = 120.0


class DistributedError(Exception):
    """A distributed run that could not finish; no manifest came of it.

    >>> import wegman.distributed
    >>> issubclass(wegman.distributed.DistributedError, Exception)
    True
    """


class _Secret:
    """A key file's bytes on their way to the workers: never shown."""

    __slots__ = ("_bytes",)

    def __init__(self, data: bytes) -> None:
        self._bytes = data

    def __repr__(self) -> str:
        return "<wegman key (hidden)>"

    __str__ = __repr__

    def __reduce__(self) -> Tuple[Any, Tuple[bytes]]:
        return (_Secret, (self._bytes,))


def _is_url(name: str) -> bool:
    return "://" in name


def _worker_key(source: Union[_Secret, str]) -> _WorkerKey:
    if isinstance(source, _Secret):
        return _WorkerKey(source._bytes)
    with open(source, "rb") as f:
        return _WorkerKey(f.read())


def _audit(path: str, nonce: bytes, name: str) -> None:
    # One write(2) per nonce, before the nonce is used: a process killed
    # after it has written every nonce it used (tests only).
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, f"{nonce.hex()} {os.getpid()} {name!r}\n".encode())
    finally:
        os.close(fd)


def _dask() -> Any:
    """`distributed` (imported when a run starts: the rest of wegman does
    not need Dask; it has no type annotations)."""
    import distributed

    return distributed


def _open_url(name: str) -> Any:
    import fsspec  # type: ignore[import-untyped]

    return fsspec.open(name, "rb")


def _take_lease(queue_name: str) -> bytes:
    queue = _dask().Queue(queue_name)
    try:
        lease = queue.get(timeout=LEASE_WAIT)
    finally:
        queue.close()
    return bytes(lease)


class _Batch:
    """A task's items or results, opaque to Dask, which would otherwise
    walk every tuple of a list argument looking for futures (0.1 s for
    10,000 files) and serialize a list result item by item (50 ms for
    1,250 lines)."""

    __slots__ = ("items",)

    def __init__(self, items: List[Any]) -> None:
        self.items = items

    def __reduce__(self) -> Tuple[Any, Tuple[List[Any]]]:
        return (_Batch, (self.items,))


def _tag_batch(
    source: Union[_Secret, str],
    queue_name: str,
    batch: _Batch,
    lease: Optional[bytes] = None,
    audit: Optional[str] = None,
) -> _Batch:
    """On a worker: the manifest line of each file of the batch, or why it
    could not be read, with the nonces of a lease taken for this execution:
    `(index, line or None, error or None)` each."""
    key = _worker_key(source)
    if lease is None:
        lease = _take_lease(queue_name)
    nonces = key.lease_nonces(lease)
    items: List[Tuple[int, str]] = batch.items
    if len(nonces) < len(items):
        raise DistributedError(f"a lease of {len(nonces)} nonces for {len(items)} files")
    out: List[Tuple[int, Optional[str], Optional[str]]] = []
    for (i, name), nonce in zip(items, nonces):
        if audit is not None:
            _audit(audit, nonce, name)
        try:
            if _is_url(name):
                with _open_url(name) as f:
                    line = key.tag_file(name, nonce, f)
            else:
                line = key.tag_path(name, nonce)
        except OSError as e:
            out.append((i, None, f"{name}: {e.strerror or e}"))
        else:
            out.append((i, line, None))
    return _Batch(out)


def _check_batch(
    source: Union[_Secret, str], batch: _Batch
) -> _Batch:
    """On a worker: `wegman check`'s verdict on each line of the batch,
    `(index, verdict)` each."""
    key = _worker_key(source)
    out = []
    items: List[Tuple[int, str, int, bytes, bytes]] = batch.items
    for i, name, version, nonce, tag in items:
        if _is_url(name):
            try:
                with _open_url(name) as f:
                    verdict = key.verify_file(name, version, nonce, tag, f)
            except FileNotFoundError as e:
                verdict = ("UNREADABLE", True, e.strerror or "No such file or directory")
            except OSError as e:
                verdict = ("UNREADABLE", False, str(e.strerror or e))
        else:
            verdict = key.verify_path(name, version, nonce, tag)
        out.append((i, verdict))
    return _Batch(out)


class _Key:
    """What a task is given to make its key: the path of the key file on
    the workers (`key_on_workers`), or the key's bytes scattered to the
    workers straight from here -- scattered again if Dask loses them (a
    worker counted dead that comes back can take the scattered data with
    it, and every task that needs it is then cancelled)."""

    def __init__(self, client: Any, key_path: _Path, key_on_workers: Optional[_Path]) -> None:
        self._client = client
        self._path = None if key_on_workers is None else os.fspath(key_on_workers)
        self._future: Any = None
        self._secret: Optional[_Secret] = None
        if self._path is None:
            with open(key_path, "rb") as f:
                self._secret = _Secret(f.read())

    def get(self) -> Any:
        if self._path is not None:
            return self._path
        if self._future is None or self._future.status != "finished":
            self.drop()
            self._future = self._client.scatter(self._secret, broadcast=True, direct=True, hash=False)
        return self._future

    def drop(self) -> None:
        if self._future is not None:
            self._client.cancel([self._future])
            self._future = None


#: The most files one task takes when ``batch_size`` is not given.
MAX_BATCH = 2048


def _threads(client: Any) -> int:
    return max(1, sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values()))


def _batches(items: Sequence[Any], size: Optional[int], threads: int) -> List[_Batch]:
    """`items` cut into tasks of `size`; by default, into four tasks per
    worker thread (so that the work evens out), of at most MAX_BATCH files
    (so that a lost task costs little)."""
    if size is None:
        size = min(MAX_BATCH, max(1, -(-len(items) // (4 * threads))))
    if size < 1:
        raise ValueError("batch_size must be at least 1")
    return [_Batch(list(items[i : i + size])) for i in range(0, len(items), size)]


class _Feeder:
    """Calls `top_up` now and then on a thread of its own until `stop`;
    `check` raises what it raised."""

    def __init__(self, top_up: Callable[[], None], every: float = 0.05) -> None:
        import threading

        self._error: Optional[BaseException] = None
        self._done = threading.Event()
        top_up()

        def loop() -> None:
            while not self._done.wait(every):
                try:
                    top_up()
                except BaseException as e:  # noqa: B036 - reported by check()
                    self._error = e
                    return

        self._thread = threading.Thread(target=loop, name="wegman-lease-feeder", daemon=True)
        self._thread.start()

    def check(self) -> None:
        if self._error is not None:
            raise DistributedError(f"leases could not be reserved: {self._error}") from self._error

    def stop(self) -> None:
        self._done.set()
        self._thread.join()


def _run(
    client: Any,
    count: int,
    submit: Callable[[int, int], Any],
    retries: int,
    tick: Callable[[], None] = lambda: None,
) -> Dict[int, Any]:
    """Run task `b` for every b < count (`submit(b, attempt)` returns its
    future); a task that fails is submitted again, as a new task, up to
    `retries` times. Returns every task's result; calls `tick` between
    waits (it may raise, to end the run)."""
    import time

    attempts = [0] * count
    pending = {submit(b, 0): b for b in range(count)}
    results: Dict[int, Any] = {}
    finished = _dask().as_completed(list(pending))
    try:
        while pending:
            tick()
            done = finished.next_batch(block=False)
            if not done:
                time.sleep(0.002)
                continue
            for f in done:
                status = f.status
                if status not in ("finished", "error", "cancelled"):
                    finished.add(f)  # its result was lost with its worker: Dask runs it again
                    continue
                b = pending.pop(f)
                try:
                    if status == "error":
                        raise f.exception()
                    if status == "cancelled":
                        raise RuntimeError("the task was cancelled")
                    results[b] = f.result()
                except Exception as exc:  # the task failed, or its result was lost: run it again
                    attempts[b] += 1
                    if attempts[b] > retries:
                        raise DistributedError(
                            f"a batch failed {attempts[b]} times; the last error: {type(exc).__name__}: {exc}"
                        ) from exc
                    again = submit(b, attempts[b])
                    pending[again] = b
                    finished.add(again)
                f.release()
    finally:
        if pending:
            client.cancel(list(pending))
    return results


def tag(
    client: Any,
    key_path: _Path,
    paths: Sequence[_Path],
    *,
    batch_size: Optional[int] = None,
    key_on_workers: Optional[_Path] = None,
    retries: int = 3,
    _audit: Optional[str] = None,
    _lease_in_task: bool = False,
) -> str:
    """The manifest ``wegman tag -k KEY PATHS...`` prints, the files read
    on the workers of the Dask ``client``: one line per file, in order, then
    the seal, each line ending with a newline.

    The driver holds the key's nonce store (``key_path + ".nonce"``) for the
    whole run, as ``NonceStore`` does: the command and other processes wait
    their turn. Files go to the workers ``batch_size`` at a time (by default
    four tasks per worker thread, of at most ``MAX_BATCH`` files); each task
    execution tags its batch with a lease of its own (module docs). A file
    that cannot be read raises ``DistributedError`` naming it (no manifest);
    so does a batch that failed ``retries + 1`` times. ``key_on_workers``:
    the path of the key file on the workers, if they have it, so that the
    key does not travel.

    ``_audit`` and ``_lease_in_task`` are for the tests: a file where every
    execution notes each nonce before it uses it, and the design this module
    does not use (the lease in the task's arguments, so that a task run
    twice uses it twice), which the tests show the audit catching.

    >>> import os, tempfile, wegman, wegman.distributed
    >>> from distributed import Client, LocalCluster
    >>> d = tempfile.mkdtemp(); key = os.path.join(d, "key"); wegman.keygen(key)
    >>> names = [os.path.join(d, f"f{i}") for i in range(3)]
    >>> for i, n in enumerate(names):
    ...     with open(n, "wb") as f: _ = f.write(bytes(i * 1000))
    >>> with LocalCluster(n_workers=1, processes=False) as cluster, Client(cluster) as client:
    ...     manifest = wegman.distributed.tag(client, key, names)
    >>> with open(os.path.join(d, "MANIFEST"), "w") as f: _ = f.write(manifest)
    >>> wegman.check_manifest(key, os.path.join(d, "MANIFEST")).ok
    True
    """
    names = [os.fspath(p) for p in paths]
    if not names:
        raise ValueError("no files to tag")
    if not all(isinstance(n, str) for n in names):
        raise TypeError("paths must be str or os.PathLike[str] (a manifest line names its file in UTF-8)")
    threads = _threads(client)
    batches = _batches(list(enumerate(names)), batch_size, threads)
    lease_size = max(len(b.items) for b in batches)
    lines: List[Optional[str]] = [None] * len(names)
    with NonceStore(key_path) as store:
        if store.alg.startswith("cwc-"):
            raise ValueError(f"this is a {store.alg} key: tag needs a MAC key")
        shipped = _Key(client, key_path, key_on_workers)
        queue = _dask().Queue(f"wegman-leases-{uuid.uuid4().hex}", client=client)
        low, high = 2 * threads, 4 * threads
        run = uuid.uuid4().hex[:12]

        def top_up() -> None:
            have = queue.qsize()
            if have < low:
                for _ in range(high - have):
                    queue.put(store.reserve(lease_size))

        def submit(b: int, attempt: int) -> Any:
            lease = store.reserve(lease_size) if _lease_in_task else None
            return client.submit(
                _tag_batch,
                shipped.get(),
                queue.name,
                batches[b],
                lease=lease,
                audit=_audit,
                key=f"wegman-tag-{run}-{b}-{attempt}",
                retries=0,
            )

        # The queue is kept stocked from a thread of its own: the loop below
        # can wait on a task whose result was lost with its worker, which
        # Dask runs again -- with a lease it needs from this feeder.
        feeder = _Feeder(top_up if not _lease_in_task else lambda: None)
        try:
            results = _run(client, len(batches), submit, retries, feeder.check)
        finally:
            feeder.stop()
            queue.close()
            shipped.drop()
        unread = []
        for batch in results.values():
            for i, line, err in batch.items:
                if line is None:
                    unread.append(err)
                else:
                    lines[i] = line
        if unread:
            shown = "; ".join(unread[:10]) + ("; ..." if len(unread) > 10 else "")
            raise DistributedError(f"{len(unread)} of {len(names)} files could not be read, so no manifest: {shown}")
        if any(line is None for line in lines):
            raise DistributedError("a file's line is missing, so no manifest")  # cannot happen: every batch reported
        done = [line for line in lines if line is not None]
        seal: str = store.seal_lines(done)
    return "".join(line + "\n" for line in done) + seal + "\n"


def check(
    client: Any,
    key_path: _Path,
    manifest: Union[str, bytes],
    *,
    ignore_missing: bool = False,
    allow_unsealed: bool = False,
    batch_size: Optional[int] = None,
    key_on_workers: Optional[_Path] = None,
    retries: int = 3,
) -> ManifestCheck:
    """Verify a manifest (its text, as ``tag`` returns it) as ``wegman
    check -k KEY`` does, each listed file read once on a worker: the same
    lines (``name: OK``, ``name: FAILED``, ...), warnings and exit status,
    as a ``wegman.ManifestCheck``. The seal is checked here first; no file
    is read unless it verified.

    >>> import os, tempfile, wegman, wegman.distributed
    >>> from distributed import Client, LocalCluster
    >>> d = tempfile.mkdtemp(); key = os.path.join(d, "key"); wegman.keygen(key)
    >>> name = os.path.join(d, "f")
    >>> with open(name, "wb") as f: _ = f.write(b"data")
    >>> with wegman.NonceStore(key) as s: manifest = "".join(l + "\\n" for l in s.tag_file(name))
    >>> with LocalCluster(n_workers=1, processes=False) as cluster, Client(cluster) as client:
    ...     result = wegman.distributed.check(client, key, manifest)
    >>> result.status, result.lines[0].endswith(": OK")
    (0, True)
    """
    data = manifest.encode() if isinstance(manifest, str) else bytes(manifest)
    run = _CheckRun(os.fspath(key_path), data, ignore_missing, allow_unsealed)
    todo = [(i, *line) for i, line in enumerate(run.todo)]
    if not todo:
        return run.finish([])
    batches = _batches(todo, batch_size, _threads(client))
    shipped = _Key(client, key_path, key_on_workers)
    tag_run = uuid.uuid4().hex[:12]

    def submit(b: int, attempt: int) -> Any:
        return client.submit(
            _check_batch, shipped.get(), batches[b], key=f"wegman-check-{tag_run}-{b}-{attempt}", retries=0
        )

    try:
        results = _run(client, len(batches), submit, retries)
    finally:
        shipped.drop()
    verdicts: List[Any] = [None] * len(todo)
    for batch in results.values():
        for i, verdict in batch.items:
            verdicts[i] = verdict
    return run.finish(verdicts)
