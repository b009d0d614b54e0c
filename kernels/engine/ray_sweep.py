"""A sweep's points on every GPU (or CPU) of a Ray cluster; the ranking stays the sweep's own.

``kernels.engine.sweep`` plans the space and ranks the points as always; with a ``cluster`` in the
request (``"local"``: start Ray here; ``"auto"``: the running cluster; else an address) the points
run here instead of one after another:

- **one warm actor per GPU** (``num_gpus=1``; under the interpreter one per CPU, ``num_cpus=1``):
  each plans the same sweep from the request and keeps its inputs, torch baselines and Triton's
  compiled kernels across the points it runs (the engine's ``_Runner``), and across sweeps: the
  actors stay up for the next sweep with the same cluster settings;
- points are handed out a few at a time to whichever actor is free, and stream back to the
  caller's ``on_point`` as they finish, into the same ranking;
- an actor that dies (its process killed, its node gone) is reported in the sweep's notes and the
  points it held run on the others (here, when none is left);
- the final interleaved re-measurement of the fastest few runs on **one** actor (one GPU), so GPUs
  of different speed cannot skew the ranking.

Ray is optional (``pip install -e ".[cluster]"``): ``available()`` says whether it is installed;
the sweep refuses a cluster request without it, and sweeps without one never import it.
On a GPU each worker starts with every n-th point and compiles them ahead in threads on its host's
CPU cores (the one-GPU sweep's ``CompilePool``) while its GPU benchmarks the ones compiled; a
worker done with its own takes points from the longest queue left (Triton's cache on disk is the
host's: a point compiled by another worker there is found compiled).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..data.results import ErrorInfo, SweepPoint, SweepRequest

__all__ = ["actor_pids", "available", "run_points", "shutdown"]

_ROOT = str(Path(__file__).resolve().parents[2])
#: points handed to an actor before it finished the previous ones (keeps it busy between calls)
IN_FLIGHT = 2

_pool: dict[str, Any] = {}  # the live actors and the settings they were started with


def available() -> bool:
    """Whether Ray is installed (the ``cluster`` extra)."""
    return importlib.util.find_spec("ray") is not None


class _PointActor:
    """Runs the points of one sweep at a time on its GPU (or CPU); made a Ray actor in ``_actors``."""

    def __init__(self) -> None:
        if _ROOT not in sys.path:
            sys.path.insert(0, _ROOT)
        self.runner: Any = None
        self.jobs: dict[int, Any] = {}
        self.pool: Any = None  # the compile threads (GPU)
        self.ahead: dict[int, Any] = {}  # job index -> its compile's future

    def where(self) -> dict[str, Any]:
        import ray

        ctx = ray.get_runtime_context()
        return {"pid": os.getpid(), "node": ctx.get_node_id()[:8], "gpus": [str(g) for g in ray.get_gpu_ids()]}

    def begin(self, req: SweepRequest, make_runner: Callable[[SweepRequest], Any]) -> int:
        """Plan ``req`` here (the same space and jobs as the caller's; ``make_runner`` is the
        sweep's own, handed over so that this module does not import the sweep); returns the
        job count."""
        self.runner = make_runner(req)
        self.jobs = {j.index: j for j in self.runner.plan.jobs}
        return len(self.jobs)

    def prefetch(self, indices: list[int], workers: int) -> int:
        """GPU: compile these jobs' configs ahead on this worker's CPU cores (``workers`` threads,
        the one-GPU sweep's ``CompilePool``) while it benchmarks the ones compiled; Triton's
        cache on disk is the host's, so a job another worker of the host runs finds it there.
        Returns how many compiles were started (none under the interpreter)."""
        from ..tune import pipeline

        r = self.runner
        if r.plan.backend.is_interpreter:
            return 0
        metas: dict[Any, Any] = {}
        try:
            if self.pool is None:
                self.pool = pipeline.CompilePool("threads", max(1, workers))
            for i in indices:
                job = self.jobs[i]
                if job.cfg is None or job.fit.reason:
                    continue
                if job.data_key not in metas:
                    metas[job.data_key] = r._metas(job)
                if metas[job.data_key] is not None:
                    self.ahead[i] = self.pool.submit(r.plan.spec, r.req.user_file, job.cfg, metas[job.data_key],
                                                     job.options)
        except Exception:  # noqa: BLE001 - what is not compiled ahead compiles at its first launch
            pass
        return len(self.ahead)

    def run(self, index: int) -> SweepPoint:
        """Run one job (by its index in the space); its point, as the one-GPU sweep makes it."""
        r, job = self.runner, self.jobs[index]
        r.out.points.clear()
        f = self.ahead.pop(index, None)
        oc = self.pool.outcome(f) if f is not None else None  # waits for its compile
        if oc is not None and oc.error is not None:  # a compile error: reported without a launch
            r.emit(job, r.unrun(job, oc.error), oc.seconds)
        else:
            r.run_one(job, oc.seconds if oc is not None and not oc.fallback else None)
        return r.out.points[-1]

    def measure(self, cands: list[tuple[dict, dict]], method: str) -> list[list[float]] | None:
        """The interleaved re-measurement of ``cands`` on this actor's device."""
        return self.runner.measure(cands, method)

    def end(self) -> None:
        if self.pool is not None:
            self.pool.close()
        self.pool, self.ahead = None, {}
        if self.runner is not None:
            self.runner.cache.clear()
        self.runner = None


def _connect(cluster: str, gpus: str) -> None:
    import ray

    if ray.is_initialized():
        return
    runtime_env = {"env_vars": {"PYTHONPATH": os.pathsep.join(
        x for x in (_ROOT, os.environ.get("PYTHONPATH", "")) if x)}}
    if cluster in ("local", "") or gpus:
        kw: dict[str, Any] = {}
        if gpus and gpus != "all":
            ids = [g.strip() for g in gpus.split(",") if g.strip()]
            os.environ["CUDA_VISIBLE_DEVICES"] = ",".join(ids)  # the raylet (and its actors) see only these
            kw["num_gpus"] = len(ids)
        ray.init(include_dashboard=False, log_to_driver=False, runtime_env=runtime_env, **kw)
    else:
        ray.init(address=cluster, log_to_driver=False, runtime_env=runtime_env)


def _actors(req: SweepRequest, interpreter: bool, n_jobs: int) -> list[Any]:
    """The warm actors for this request's cluster settings (started on first use)."""
    import ray

    key = f"{req.cluster}|{req.gpus}|{req.ray_workers}|{interpreter}"
    if _pool.get("key") == key and _pool.get("actors"):
        return list(_pool["actors"])
    shutdown()
    _connect(req.cluster, req.gpus)
    res = ray.cluster_resources()
    if interpreter:
        n = req.ray_workers or int(res.get("CPU", 1))
        opts: dict[str, Any] = {"num_cpus": 1}
    else:
        n = req.ray_workers or int(res.get("GPU", 0))
        if n < 1:
            raise RuntimeError(f"the Ray cluster has no GPU (resources: {dict(res)})")
        opts = {"num_gpus": 1, "num_cpus": 1}
    cls = ray.remote(max_restarts=0)(_PointActor)
    actors = [cls.options(**opts).remote() for _ in range(max(1, min(n, n_jobs)))]
    _pool.update(key=key, actors=actors)
    return list(actors)


def shutdown(ray_too: bool = False) -> None:
    """End the actors; with ``ray_too`` also this process's connection to Ray (and the local Ray
    it started)."""
    actors = _pool.pop("actors", None) or []
    _pool.pop("key", None)
    if not actors and not ray_too:
        return
    import ray

    for a in actors:
        try:
            ray.kill(a)
        except Exception:  # noqa: BLE001 - already gone
            pass
    if ray_too and ray.is_initialized():
        ray.shutdown()


def actor_pids() -> list[int]:
    """The process ids of the live actors (the tests kill one)."""
    import ray

    return [ray.get(a.where.remote())["pid"] for a in _pool.get("actors", [])]


def run_points(runner: Any, cancelled: Callable[[], bool], make_runner: Callable[[SweepRequest], Any]) -> bool:
    """Run ``runner``'s jobs on the cluster's actors, emitting each point through ``runner.emit``
    as it lands; the re-measurement afterwards goes to one actor. ``make_runner(req)``: what each
    actor runs its points with (``kernels.engine.sweep.runner_for``). False when cancelled."""
    import ray
    from ray.exceptions import RayActorError

    plan, req, out = runner.plan, runner.req, runner.out
    todo = [j for j in plan.jobs if not runner.prune(j)]
    if not todo:
        return True
    t0 = time.perf_counter()
    live = _actors(req, plan.backend.is_interpreter, len(todo))
    places = {id(a): ray.get(a.where.remote()) for a in live}
    ray.get([a.end.remote() for a in live])  # what a previous sweep left (a cancelled one's compiles)
    ray.get([a.begin.remote(req, make_runner) for a in live])
    # each worker starts with every n-th job, compiled ahead on its CPU cores; a worker whose own
    # jobs are done takes the last of the longest queue left
    queues = {id(a): deque(todo[k::len(live)]) for k, a in enumerate(live)}
    per_worker = max(1, (os.cpu_count() or 1) // len(live))
    ahead = sum(ray.get([a.prefetch.remote([j.index for j in queues[id(a)]], per_worker) for a in live]))
    running: dict[Any, tuple[Any, Any]] = {}  # object ref -> (actor, job)

    def next_job(actor: Any) -> Any:
        own = queues.get(id(actor))
        if own:
            return own.popleft()
        longest = max(queues.values(), key=len, default=None)
        return longest.pop() if longest else None

    def feed(actor: Any) -> None:
        while sum(1 for a, _ in running.values() if a is actor) < IN_FLIGHT:
            job = next_job(actor)
            if job is None:
                return
            running[actor.run.remote(job.index)] = (actor, job)

    for a in live:
        feed(a)
    lost: list[str] = []
    lost_jobs: list[Any] = []
    while running:
        if cancelled():
            for ref in running:
                ray.cancel(ref, force=False)
            return False
        done, _ = ray.wait(list(running), num_returns=1, timeout=0.1)
        for ref in done:
            actor, job = running.pop(ref)
            try:
                pt = ray.get(ref)
            except RayActorError as e:
                if actor in live:
                    live.remove(actor)
                    lost.append(_dead_note(places[id(actor)], type(e).__name__))
                lost_jobs.append(job)  # its points run on the others
                continue
            runner.emit(job, pt.result, pt.compile_s)
            feed(actor)
        if lost_jobs:  # a dead worker's jobs: its running ones and its queue, to the others
            dead = [j for k, q in list(queues.items()) if k not in {id(a) for a in live} for j in q]
            orphans = lost_jobs + dead
            lost_jobs.clear()
            for k in [k for k in queues if k not in {id(a) for a in live}]:
                del queues[k]
            if live:
                for n, job in enumerate(orphans):
                    queues[id(live[n % len(live)])].appendleft(job)
            else:
                if "no Ray worker left: the remaining points ran here" not in out.notes:
                    out.notes.append("no Ray worker left: the remaining points ran here")
                _pool.clear()
                rest = orphans + [j for q in queues.values() for j in q]
                if not runner.sequential(sorted(rest, key=lambda j: j.index)):
                    return False
                queues.clear()
        for a in live:
            feed(a)
    # a worker can die with nothing in flight (after its last point): ask each one left, so that
    # the death is reported and the re-measurement does not go to a dead worker
    for actor in [a for a in live if not _answers(a)]:
        live.remove(actor)
        lost.append(_dead_note(places[id(actor)], "after its points were done"))
    runner.bench_s += time.perf_counter() - t0
    where = sorted({places[id(a)]["node"] for a in live})
    out.notes.append(f"ran on {len(live)} Ray worker(s)" + (f" on node(s) {', '.join(where)}" if where else "")
                     + (f", {ahead} configs compiled ahead on their CPU cores" if ahead else "")
                     + "; the re-measurement on one of them")
    out.notes.extend(msg if "after its points" in msg else f"{msg}: its points ran on the other workers"
                     for msg in lost)
    if lost:  # the next sweep starts a whole set again
        _pool["actors"] = live
        _pool["key"] = None
    if live:
        first = live[0]
        runner.measure = lambda cands, method: ray.get(first.measure.remote(cands, method))
    else:  # pragma: no cover - every actor died: the re-measurement runs here
        _pool.clear()
    return True


def _dead_note(place: dict[str, Any], why: str) -> str:
    return (f"Ray worker {place['pid']} on node {place['node']}"
            + (f" (GPU {','.join(place['gpus'])})" if place["gpus"] else "") + f" died ({why})")


def _answers(actor: Any, timeout_s: float = 60.0) -> bool:
    """Whether ``actor`` is alive: it answers a trivial call (a dead one raises at once)."""
    import ray
    from ray.exceptions import GetTimeoutError, RayActorError

    try:
        ray.get(actor.where.remote(), timeout=timeout_s)
        return True
    except (RayActorError, GetTimeoutError):
        return False


def refuse_without_ray() -> ErrorInfo | None:
    """The error of a cluster sweep where Ray is not installed (None when it is)."""
    if available():
        return None
    return ErrorInfo("validation", "Ray is not installed: pip install -e \".[cluster]\" (or pip install ray), "
                                   "or sweep without --ray / --gpus")
