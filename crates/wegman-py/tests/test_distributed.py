"""wegman.distributed on a LocalCluster of worker processes: manifests that
`wegman check` accepts, verdicts equal to `wegman check`'s, and no nonce
used twice when a worker is killed mid-run -- with the negative control
(the lease in the task's arguments) showing the audit catches reuse.
tools/distributed-kill runs the kill test many times on more files."""

import os
import pathlib
import random
import re
import signal
import subprocess
import threading
import time
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest

distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")
pytest.importorskip("fsspec")

import wegman  # noqa: E402
import wegman.distributed as wd  # noqa: E402

from test_nonce_store import cli, nonces_of  # noqa: E402


class Workers:
    """A LocalCluster of two worker processes that a test may kill, and its
    client. `ready()` waits for both workers; a nanny that fails to restart
    its worker (Dask's, now and then: "IOLoop is closed") gets the whole
    cluster replaced rather than a test that waits forever."""

    def __init__(self, worker_ttl: Optional[str] = None) -> None:
        self.cluster: Any = None
        self.client: Any = None
        self.worker_ttl = worker_ttl
        self._start()

    def _start(self) -> None:
        # worker_ttl: how long the scheduler waits for a silent worker before
        # it counts it dead and runs its tasks elsewhere (default 5 min)
        config = {} if self.worker_ttl is None else {"distributed.scheduler.worker-ttl": self.worker_ttl}
        with dask.config.set(config):
            self.cluster = distributed.LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
            )
        self.client = distributed.Client(self.cluster)

    def ready(self) -> Any:
        try:
            self.client.wait_for_workers(2, timeout=30)
        except TimeoutError:
            self.close()
            self._start()
            self.client.wait_for_workers(2, timeout=60)
        return self.client

    def close(self) -> None:
        self.client.close()
        self.cluster.close()


@pytest.fixture(scope="module")
def workers() -> Iterator[Workers]:
    w = Workers()
    yield w
    w.close()


@pytest.fixture
def client(workers: Workers) -> Any:
    return workers.ready()


def make_files(d: pathlib.Path, count: int, seed: int, top: int = 1 << 20) -> List[str]:
    """`count` files of sizes 0 .. `top` bytes, most of them small (log-uniform)."""
    rng = random.Random(seed)
    names = []
    for i in range(count):
        size = 0 if i % 97 == 0 else int(2 ** rng.uniform(0, top.bit_length() - 1))
        name = d / f"f{i:05d}"
        name.write_bytes(rng.randbytes(size))
        names.append(str(name))
    return names


def wegman_check(key: pathlib.Path, manifest: str, cwd: pathlib.Path) -> Tuple[int, str, str]:
    path = cwd / "MANIFEST"
    path.write_text(manifest)
    out = subprocess.run([str(cli()), "check", "-k", str(key), str(path)], cwd=cwd, capture_output=True, text=True)
    return out.returncode, out.stdout, out.stderr


def test_tag_gives_a_manifest_wegman_check_accepts(client: Any, tmp_path: pathlib.Path) -> None:
    key = tmp_path / "key"
    wegman.keygen(str(key))
    names = make_files(tmp_path, 300, seed=1)
    odd = tmp_path / "a name with\nnewline and \\ backslash"
    odd.write_bytes(b"odd")
    names.append(str(odd))
    manifest = wd.tag(client, key, names, batch_size=16)
    lines = manifest.splitlines()
    assert len(lines) == len(names) + 1
    assert lines[-1].startswith(f"POLY1305-AES/2 MANIFEST lines={len(names)} ")
    nonces = nonces_of(lines)
    assert len(nonces) == len(lines) == len(set(nonces))
    status, out, err = wegman_check(key, manifest, tmp_path)
    assert status == 0, err
    assert out.count(": OK") == len(names)
    # each line is the one `wegman tag` writes, bar the nonce
    one = subprocess.run([str(cli()), "tag", "-k", str(key), names[5]], capture_output=True, text=True)
    def strip(s: str) -> str:
        return re.sub(r"nonce=[0-9a-f]{32} = [0-9a-f]{32}", "", s)

    assert strip(one.stdout.splitlines()[0]) == strip(lines[5])


def test_check_gives_wegman_checks_verdicts(client: Any, tmp_path: pathlib.Path) -> None:
    key = tmp_path / "key"
    wegman.keygen(str(key))
    names = make_files(tmp_path, 60, seed=2, top=1 << 16)
    manifest = wd.tag(client, key, names, batch_size=7)
    path = tmp_path / "MANIFEST"
    path.write_text(manifest)
    cases: List[Tuple[str, Dict[str, bool]]] = [("intact", {})]
    for what in ["changed", "missing", "directory"]:
        cases.append((what, {}))
        cases.append((what, {"ignore_missing": True}))
    for what, options in cases:
        if what == "changed":
            pathlib.Path(names[3]).write_bytes(b"changed")
        elif what == "missing":
            pathlib.Path(names[4]).unlink(missing_ok=True)
        elif what == "directory" and not os.path.isdir(names[5]):
            os.unlink(names[5])
            os.mkdir(names[5])
        missing_ok = options.get("ignore_missing", False)
        here = wd.check(client, key, manifest, batch_size=5, ignore_missing=missing_ok)
        there = wegman.check_manifest(key, path, ignore_missing=missing_ok)
        assert (here.status, here.lines, here.warnings) == (there.status, there.lines, there.warnings), what
    assert here.status == 1 and any("FAILED open or read" in line for line in here.lines)
    # a manifest with a line changed: the seal fails, no file is read
    lines = manifest.splitlines()
    lines[0], lines[1] = lines[1], lines[0]
    swapped = "".join(line + "\n" for line in lines)
    here = wd.check(client, key, swapped)
    assert here.status == 1 and here.lines == [] and any("seal does NOT verify" in w for w in here.warnings)


def test_fsspec_urls(tmp_path: pathlib.Path) -> None:
    # memory:// is per process: a cluster of threads in this one
    import fsspec  # type: ignore[import-untyped]

    key = tmp_path / "key"
    wegman.keygen(str(key))
    fs = fsspec.filesystem("memory")
    names = []
    for i in range(40):
        name = f"memory://wegman-test/{tmp_path.name}/o{i}"
        with fs.open(name, "wb") as f:
            f.write(os.urandom(i * 997))
        names.append(name)
    with distributed.LocalCluster(n_workers=2, processes=False, dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as c:
            manifest = wd.tag(c, key, names, batch_size=6)
            assert wd.check(c, key, manifest).status == 0
            with fs.open(names[7], "wb") as f:
                f.write(b"other")
            result = wd.check(c, key, manifest)
            assert result.status == 1 and result.lines[7].endswith(": FAILED")
            fs.rm(names[8])
            result = wd.check(c, key, manifest, ignore_missing=True)
            assert result.status == 1 and len(result.lines) == len(names) - 1


def test_an_unreadable_file_gives_no_manifest(client: Any, tmp_path: pathlib.Path) -> None:
    key = tmp_path / "key"
    wegman.keygen(str(key))
    names = make_files(tmp_path, 20, seed=3, top=1 << 12)
    names.insert(9, str(tmp_path / "absent"))
    with pytest.raises(wd.DistributedError, match="1 of 21 files could not be read.*absent"):
        wd.tag(client, key, names, batch_size=4)
    with pytest.raises(ValueError):
        wd.tag(client, key, [], batch_size=4)
    cwc = tmp_path / "cwc"
    wegman.keygen(str(cwc), "cwc-aes-128")
    with pytest.raises(ValueError, match="MAC key"):
        wd.tag(client, cwc, names[:2])


def test_the_key_never_shows(client: Any, tmp_path: pathlib.Path) -> None:
    key = tmp_path / "key"
    wegman.keygen(str(key))
    raw = key.read_text().split("key ")[-1].strip()
    secret = wd._Secret(key.read_bytes())
    assert raw not in repr(secret) and raw not in str(secret)
    assert raw not in repr(wegman._wegman._WorkerKey(key.read_bytes()))
    # nothing of it is in the scheduler's view of the run's tasks
    names = make_files(tmp_path, 5, seed=4, top=1 << 10)
    manifest = wd.tag(client, key, names, batch_size=2)
    dump = str(client.run_on_scheduler(lambda dask_scheduler: [repr(ts.run_spec) for ts in dask_scheduler.tasks.values()]))
    assert raw not in dump and raw not in manifest


def test_cli_python_and_distributed_taking_turns_never_repeat_a_nonce(
    client: Any, tmp_path: pathlib.Path
) -> None:
    key = tmp_path / "key"
    wegman.keygen(str(key))
    names = make_files(tmp_path, 30, seed=5, top=1 << 12)
    seen: List[str] = []
    for round in range(3):
        out = subprocess.run([str(cli()), "tag", "-k", str(key), *names[:3]], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        seen += nonces_of(out.stdout.splitlines())
        seen += nonces_of(wd.tag(client, key, names, batch_size=4).splitlines())
        with wegman.NonceStore(key) as store:
            seen += nonces_of(store.tag_files(names[:2]))
            seen.append(store.next_nonce().hex())
        seen += nonces_of(wd.tag(client, key, names[:9], batch_size=2).splitlines())
    assert len(seen) == 3 * (4 + 31 + 3 + 1 + 10)
    assert len(set(seen)) == len(seen)


def kill_run(
    workers: Workers,
    key: pathlib.Path,
    names: List[str],
    audit: pathlib.Path,
    rng: random.Random,
    lease_in_task: bool,
    batch_size: int = 16,
    stop_for: float = 0.0,
) -> Tuple[Optional[str], List[str], Optional[str]]:
    """One distributed tag with a worker SIGKILLed after a random number of
    nonces were used (the one that used the last) -- or, with `stop_for`,
    SIGSTOPped for that many seconds and then let go on (on a cluster with
    a short worker TTL: the scheduler counts it dead meanwhile and runs its
    task again elsewhere, while it still holds its own). Returns (manifest
    or None, the audit's nonces, the error raised or None)."""
    audit.unlink(missing_ok=True)
    client = workers.ready()
    pids = list(client.run(os.getpid).values())
    # each audit line is "NONCE(32) PID 'NAME'\n": kill once `after` bytes of them were written
    line = 32 + 1 + 7 + 1 + len(repr(names[0])) + 1
    victim, after = rng.choice(pids), line * rng.randint(1, max(1, len(names) // 2))
    result: Dict[str, Any] = {}

    def go() -> None:
        try:
            result["manifest"] = wd.tag(
                client, key, names, batch_size=batch_size, _audit=str(audit), _lease_in_task=lease_in_task
            )
        except wd.DistributedError as e:
            result["error"] = e

    t = threading.Thread(target=go)
    t.start()
    deadline = time.monotonic() + 60
    while t.is_alive() and time.monotonic() < deadline:
        try:
            written = os.stat(audit).st_size
        except FileNotFoundError:
            written = 0
        if written >= after:
            # the worker that noted the last nonce is likely in the middle
            # of its batch: kill that one
            with open(audit, "rb") as f:
                f.seek(max(0, written - 4 * line))
                last = f.read().rsplit(b"\n", 2)
            pid = int(last[-2].split()[1]) if len(last) >= 2 and last[-2].count(b" ") >= 2 else 0
            target = pid if pid in pids else victim
            if stop_for:
                os.kill(target, signal.SIGSTOP)
                time.sleep(stop_for)
                os.kill(target, signal.SIGCONT)
            else:
                os.kill(target, signal.SIGKILL)
            break
        time.sleep(0.002)
    t.join()
    used_nonces = [line.split()[0] for line in audit.read_text().splitlines()] if audit.exists() else []
    error = result.get("error")
    return result.get("manifest"), used_nonces, None if error is None else str(error)


def test_a_worker_killed_mid_run_reuses_no_nonce(workers: Workers, tmp_path: pathlib.Path) -> None:
    key = tmp_path / "key"
    wegman.keygen(str(key))
    names = make_files(tmp_path, 400, seed=6, top=1 << 17)
    rng = random.Random(7)
    everything: List[str] = []
    for run in range(2):
        manifest, used, error = kill_run(workers, key, names, tmp_path / "audit", rng, lease_in_task=False)
        assert len(used) == len(set(used)), "a nonce was used twice"
        everything += used
        assert manifest is not None, error  # Dask runs the killed worker's tasks again
        lines = manifest.splitlines()
        assert len(lines) == len(names) + 1
        status, _, err = wegman_check(key, manifest, tmp_path)
        assert status == 0, err
        everything.append(nonces_of(lines[-1:])[0])
    assert len(everything) == len(set(everything))


def test_a_stopped_worker_that_comes_back_reuses_no_nonce(tmp_path: pathlib.Path) -> None:
    """A worker SIGSTOPped past the scheduler's worker TTL is counted dead
    and its task run again elsewhere; let go on, it comes back as a zombie
    (and Dask loses the scattered key with it, so every task that needs it
    is cancelled and submitted again, with the key scattered again). No
    nonce is used twice and the run completes."""
    key = tmp_path / "key"
    wegman.keygen(str(key))
    names = make_files(tmp_path, 1000, seed=13)
    stopping = Workers(worker_ttl="1s")
    rng = random.Random(14)
    landed = 0
    try:
        for attempt in range(3):  # until a stop lands in the middle of a batch
            manifest, used, error = kill_run(
                stopping, key, names, tmp_path / "audit", rng, lease_in_task=False, batch_size=64, stop_for=8.0
            )
            assert len(used) == len(set(used)), "a nonce was used twice"
            assert manifest is not None, error
            assert len(manifest.splitlines()) == len(names) + 1
            status, _, err = wegman_check(key, manifest, tmp_path)
            assert status == 0, err
            landed += len(used) > len(names)
            if landed:
                break
    finally:
        stopping.close()
    assert landed, "in three runs no stop landed while a batch was using its lease"


def test_the_audit_catches_a_lease_in_the_tasks_arguments(workers: Workers, tmp_path: pathlib.Path) -> None:
    """The negative control: with the lease in the task's arguments, a task
    that Dask runs again after its worker was killed uses the lease again."""
    key = tmp_path / "key"
    wegman.keygen(str(key))
    names = make_files(tmp_path, 400, seed=8, top=1 << 17)
    rng = random.Random(9)
    for attempt in range(5):
        _, used, _ = kill_run(workers, key, names, tmp_path / "audit", rng, lease_in_task=True)
        if len(used) != len(set(used)):
            return
    pytest.fail("five killed runs with the lease in the task's arguments reused no nonce")


def test_tag_over_tls(tmp_path: pathlib.Path) -> None:
    """docs/distributed.md's advice: the key travels only over TLS."""
    key = tmp_path / "key"
    wegman.keygen(str(key))
    names = make_files(tmp_path, 10, seed=10, top=1 << 12)
    with distributed.LocalCluster(
        n_workers=1, processes=False, security=True, dashboard_address=":0"
    ) as cluster, distributed.Client(cluster) as c:
        assert cluster.scheduler_address.startswith("tls://")
        manifest = wd.tag(c, key, names, batch_size=3)
        assert wd.check(c, key, manifest).status == 0


def test_key_on_workers_keeps_the_key_off_the_network(client: Any, tmp_path: pathlib.Path) -> None:
    key = tmp_path / "key"
    wegman.keygen(str(key))
    names = make_files(tmp_path, 12, seed=12, top=1 << 12)
    manifest = wd.tag(client, key, names, batch_size=5, key_on_workers=key)
    assert wd.check(client, key, manifest, key_on_workers=key).status == 0
    # workers given another key's file: every batch fails, and no manifest
    other = tmp_path / "other"
    wegman.keygen(str(other))
    with pytest.raises(wd.DistributedError, match="failed 1 times"):
        wd.tag(client, key, names, batch_size=5, key_on_workers=other, retries=0)
