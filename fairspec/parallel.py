"""Independent fits side by side: the one parallel layer of fairspec.

Sweep points, cross-validation folds, a forest's trees and the inner fits that calibrate a
fairness bound are independent computations.  Each goes through :func:`run_tasks`, which
calls one top-level function on each argument tuple and returns the results **in task
order**, whatever order the workers finish in, so a parallel run returns what a serial run
returns.  Seeds are part of each task's arguments, never drawn from a worker's state.

Where the tasks run:

* ``n_jobs`` follows joblib: ``1`` runs in this process (no pickling, no start-up cost),
  ``k > 1`` uses ``k`` local worker processes, ``-1`` one per core.  Each worker's BLAS and
  OpenMP pools are held to one thread (joblib's ``inner_max_num_threads``), so ``k`` workers
  use ``k`` cores, not ``k`` times each library's own pool; a solver's ``threads`` setting is
  the plan's, the same in every worker and in a serial run (a different thread count could
  give HiGHS another path to another optimum).
* A Dask scheduler, when one is named (:func:`use_scheduler`, ``fairspec ... --scheduler
  tcp://host:8786``, or the environment variable :data:`SCHEDULER_VARIABLE`): the tasks go
  to the cluster's workers through a ``distributed.Client``, ``n_jobs`` aside.  The
  ``shared`` arguments (the data every task reads) are scattered to the workers once, not
  sent with each task.  Dask (``pip install fairspec[dask]``) is imported only then.

Workers get the function and its arguments by pickling, so both must be plain data and
module-level functions; a worker builds its own Pyomo model and HiGHS instance, which do not
pickle usefully, and returns plain data.  A worker that dies mid-task (killed, out of memory)
raises :class:`WorkerLostError`, which names the task; the caller has written nothing yet.
"""
from __future__ import annotations

import contextlib
import contextvars
import os
import sys
from collections.abc import Callable, Iterable, Sequence

from joblib import Parallel, delayed, parallel_config

from fairspec.errors import FairspecError

#: the environment variable naming a Dask scheduler (``tcp://host:8786``) the fits go to
SCHEDULER_VARIABLE = "FAIRSPEC_SCHEDULER"

_scheduler: contextvars.ContextVar[str | None] = contextvars.ContextVar("fairspec_scheduler", default=None)


class WorkerLostError(FairspecError):
    """A worker process ended while it ran a task (killed, out of memory, or its machine gone)."""

    exit_code = 1


@contextlib.contextmanager
def use_scheduler(address: str | None):
    """Within the block, :func:`run_tasks` sends its tasks to the Dask scheduler at ``address``
    (None: the environment variable's, else local processes)."""
    token = _scheduler.set(address)
    try:
        yield
    finally:
        _scheduler.reset(token)


def scheduler_address() -> str | None:
    """The Dask scheduler the tasks go to: :func:`use_scheduler`'s, else the environment's;
    None inside a Dask worker, whose own tasks (a forest's trees within a fold) run there."""
    address = _scheduler.get() or os.environ.get(SCHEDULER_VARIABLE) or None
    return None if address is not None and _in_dask_worker() else address


def _in_dask_worker() -> bool:
    if "distributed" not in sys.modules:
        return False
    try:
        sys.modules["distributed"].get_worker()
    except (ValueError, AttributeError):
        return False
    return True


def run_tasks(func: Callable, tasks: Iterable[Sequence], *, n_jobs: int | None = 1, shared: Sequence = ()) -> list:
    """``[func(*shared, *args) for args in tasks]``, computed by ``n_jobs`` workers (or a Dask
    cluster, see the module docstring), in task order.

    ``n_jobs=None`` is one job, as in scikit-learn.  ``shared`` are arguments every task
    takes first (the data): sent to a cluster once.
    """
    tasks = [tuple(args) for args in tasks]
    shared = tuple(shared)
    address = scheduler_address()
    n_jobs = 1 if n_jobs is None else int(n_jobs)
    if address is None and (n_jobs == 1 or len(tasks) <= 1):
        return [func(*shared, *args) for args in tasks]
    try:
        if address is not None:
            return _on_dask(address, func, tasks, shared)
        with parallel_config(backend="loky", inner_max_num_threads=1):
            return list(Parallel(n_jobs=n_jobs)(delayed(func)(*shared, *args) for args in tasks))
    except Exception as exc:  # noqa: BLE001 - only a lost worker is translated; the rest re-raised
        lost = _worker_lost(exc)
        if lost is None:
            raise
        raise WorkerLostError(f"error: a worker process ended while it ran one of {len(tasks)} independent fits "
                              f"({lost}); nothing was written: run again, with fewer workers or more memory per "
                              f"worker if the system stopped it") from None


def _on_dask(address: str, func: Callable, tasks: list, shared: tuple) -> list:
    try:
        from distributed import Client
    except ImportError:
        raise FairspecError(f"error: a Dask scheduler is named ({address}), but Dask is not installed: "
                            f"pip install 'fairspec[dask]'") from None
    try:
        client = Client(address, set_as_default=False, timeout="30s")
    except OSError as exc:
        raise FairspecError(f"error: cannot reach the Dask scheduler at {address} ({exc})") from None
    with client:
        # the shared data are scattered once and each task is sent a reference to them; the
        # results are gathered in task order.  (joblib's Dask backend had waited for ever on a
        # task whose worker died, where the client raises KilledWorker.)
        scattered = [client.scatter(value, broadcast=True, hash=False) for value in shared]
        futures = [client.submit(func, *scattered, *args, pure=False) for args in tasks]
        return client.gather(futures)


def _worker_lost(exc: BaseException) -> str | None:
    """What a lost worker's error says, or None when ``exc`` is not one."""
    names = {type(e).__name__ for e in _chain(exc)}
    # joblib's local processes; a Dask task whose workers died (KilledWorker after the
    # scheduler's retries), or that the scheduler forgot when its worker was lost
    for name in ("TerminatedWorkerError", "BrokenProcessPool", "KilledWorker", "FutureCancelledError",
                 "CommClosedError"):
        if name in names:
            return next(str(e) for e in _chain(exc) if type(e).__name__ == name).splitlines()[0][:300] or name
    return None


def _chain(exc: BaseException):
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__
