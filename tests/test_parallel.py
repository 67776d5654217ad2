"""The one parallel layer: results in task order, a serial run's, and a lost worker said clearly."""
from __future__ import annotations

import json
import os
import re

import numpy as np
import pytest

from fairspec.cli import main
from fairspec.parallel import WorkerLostError, run_tasks, use_scheduler


def _slow_square(x, delay):
    import time

    time.sleep(delay)
    return x * x


def _offset_sum(shared, k):
    return float(shared[k::3].sum()) + k


def test_results_come_in_task_order_whatever_the_finishing_order():
    tasks = [(x, 0.05 * (5 - x)) for x in range(6)]  # the first tasks finish last
    assert run_tasks(_slow_square, tasks, n_jobs=2) == [x * x for x in range(6)] == run_tasks(_slow_square, tasks)


def test_shared_arguments_come_first_and_match_a_serial_run():
    data = np.arange(30.0)
    assert run_tasks(_offset_sum, [(k,) for k in range(3)], n_jobs=2, shared=(data,)) == \
        [_offset_sum(data, k) for k in range(3)]


def _die_in_a_worker(parent: int, k: int):
    if os.getpid() != parent and k == 2:
        os._exit(3)  # the system killing a worker mid-fit
    return k


def test_a_worker_that_dies_is_a_clear_error():
    with pytest.raises(WorkerLostError, match="a worker process ended while it ran one of 4 independent fits"):
        run_tasks(_die_in_a_worker, [(os.getpid(), k) for k in range(4)], n_jobs=2)


SPEC = """spec toy
data "{data}"
target y positive 1
protected group
features {{ x1 numeric  x2 numeric  color categorical }}
missing mia
fairness equal_opportunity <= [0.05, 0.2]
model tree {{ depth 3 }}
evaluate {{ cv 3 seed 4 }}
"""


def _toy(tmp_path):
    rng = np.random.default_rng(0)
    n = 300
    group = rng.choice(["a", "b"], size=n)
    x1 = np.round(rng.normal(size=n) + (group == "a"), 3)
    x2 = np.round(rng.normal(size=n), 3)
    color = rng.choice(["red", "green", "blue"], size=n)
    y = ((x1 + 0.5 * x2 + (color == "red") + rng.normal(scale=0.5, size=n)) > 0.8).astype(int)
    data = tmp_path / "toy.csv"
    data.write_text("x1,x2,color,group,y\n" + "".join(f"{a},{b},{c},{g},{t}\n" for a, b, c, g, t in
                                                      zip(x1, x2, color, group, y)))
    spec = tmp_path / "toy.fair"
    spec.write_text(SPEC.format(data=data))
    return spec


def _without_created(path):
    return re.sub(r'"created": "[^"]*"', '"created": ""', path.read_text())


def test_fits_side_by_side_write_the_serial_runs_models(tmp_path):
    spec = _toy(tmp_path)
    assert main(["compile-and-train", str(spec), "--out", str(tmp_path / "serial"), "-q"]) == 0
    assert main(["compile-and-train", str(spec), "--out", str(tmp_path / "jobs"), "-q", "--jobs", "2"]) == 0
    for point in ("point-0", "point-1"):
        assert _without_created(tmp_path / "serial" / point / "model.json") == \
            _without_created(tmp_path / "jobs" / point / "model.json")
        serial, jobs = (json.loads((tmp_path / run / point / "metrics.json").read_text()) for run in ("serial", "jobs"))
        assert serial["test"] == jobs["test"] and serial["evaluation"] == jobs["evaluation"]


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    import dask

    # a task whose worker dies fails at once (the default retries it on others, three times)
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None, silence_logs=50) as local:
        yield local


def test_a_local_cluster_writes_the_serial_runs_models(tmp_path, cluster):
    spec = _toy(tmp_path)
    assert main(["compile-and-train", str(spec), "--out", str(tmp_path / "serial"), "-q"]) == 0
    assert main(["compile-and-train", str(spec), "--out", str(tmp_path / "dask"), "-q",
                 "--scheduler", cluster.scheduler_address]) == 0
    for point in ("point-0", "point-1"):
        assert _without_created(tmp_path / "serial" / point / "model.json") == \
            _without_created(tmp_path / "dask" / point / "model.json")


def test_a_cluster_worker_that_dies_is_a_clear_error_and_nothing_is_written(tmp_path, cluster, monkeypatch, capsys):
    import fairspec.pipeline.train as train_module

    real = train_module._fit_task

    def dies_in_the_cluster(*args):
        from distributed import get_worker

        try:
            get_worker()
        except ValueError:
            return real(*args)
        os._exit(3)

    monkeypatch.setattr(train_module, "_fit_task", dies_in_the_cluster)
    spec = _toy(tmp_path)
    code = main(["compile-and-train", str(spec), "--out", str(tmp_path / "dask"), "-q",
                 "--scheduler", cluster.scheduler_address])
    err = capsys.readouterr().err
    assert code == 1 and "a worker process ended while it ran one of" in err and "nothing was written" in err
    assert not (tmp_path / "dask").exists()
