"""Independent fits side by side: the one parallel layer of fairspec.

Sweep points, cross-validation folds, a forest's trees and the inner fits that calibrate a
fairness bound are independent computations.  Each goes through :func:`run_tasks`, which
calls one top-level function on each argument tuple and returns the results **in task
order**, whatever order the workers finish in, so a parallel run returns what a serial run
returns.  Seeds are part of each task's arguments, never drawn from a worker's state.

``n_jobs`` follows joblib: ``1`` runs in this process (no pickling, no start-up cost),
``k > 1`` uses ``k`` worker processes, ``-1`` one per core.  Workers get the function and its
arguments by pickling, so both must be plain data and module-level functions; a worker
builds its own Pyomo model and HiGHS instance, which do not pickle usefully.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from joblib import Parallel, delayed


def run_tasks(func: Callable, tasks: Iterable[Sequence], *, n_jobs: int | None = 1) -> list:
    """``[func(*args) for args in tasks]``, computed by ``n_jobs`` workers, in task order.

    ``n_jobs=None`` is one job, as in scikit-learn.
    """
    tasks = [tuple(args) for args in tasks]
    n_jobs = 1 if n_jobs is None else int(n_jobs)
    if n_jobs == 1 or len(tasks) <= 1:
        return [func(*args) for args in tasks]
    return list(Parallel(n_jobs=n_jobs)(delayed(func)(*args) for args in tasks))
