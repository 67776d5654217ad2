"""fairspec: a declarative spec of a fair-ML problem in, a trained, audited, interpretable model out.

The pipeline, one stage per sub-package, data flowing one way::

    dsl (spec text → typed Spec, checked)  →  plan (defaults, criteria, recipe)
      →  data + models/solvers (fit)  →  metrics (re-measured)  →  report (HTML)

Python API: :func:`load_spec`, :func:`compile_spec`, :func:`train`, :func:`load_model`,
:func:`read_table`, and the
scikit-learn estimators of each family (``fairspec.models.*``).
"""
from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__", "load_spec", "parse_spec", "compile_spec", "train", "load_model", "write_outputs",
           "read_table"]


def load_spec(path):
    """Parse a ``.fair`` file into a :class:`~fairspec.dsl.load.SpecDocument` (syntax only)."""
    from fairspec.dsl.load import load_spec as _load

    return _load(path)


def parse_spec(text, filename="<spec>"):
    """Parse spec text into a :class:`~fairspec.dsl.load.SpecDocument`."""
    from fairspec.dsl.load import parse_spec as _parse

    return _parse(text, filename)


def compile_spec(doc, table=None):
    """Check a spec against its data and compile it into a :class:`~fairspec.plan.plan.Plan`."""
    from fairspec.plan.compile import compile_spec as _compile

    return _compile(doc, table)


def train(plan, progress=None, table=None, *, n_jobs=1):
    """Train every point of ``plan``; returns a :class:`~fairspec.pipeline.train.TrainingResult`.
    ``table``: the spec's data table when already read (it is read from ``plan`` otherwise).
    ``n_jobs``: local processes fitting the folds and sweep points side by side (within
    :func:`fairspec.parallel.use_scheduler`, a Dask cluster's workers do)."""
    from fairspec.pipeline.progress import SILENT
    from fairspec.pipeline.train import train as _train

    return _train(plan, progress or SILENT, table, n_jobs=n_jobs)


def write_outputs(result, out_dir=None):
    """Write model.json, metrics.json and report.html (atomically) for a training result."""
    from fairspec.pipeline.outputs import write_outputs as _write

    return _write(result, out_dir if out_dir is not None else result.plan.output_dir)


def load_model(path):
    """Read a ``model.json`` (or a run directory) back; ``.predict(frame)`` scores a table."""
    from fairspec.pipeline.artifact import LoadedModel

    return LoadedModel.read(path)


def read_table(path):
    """A data file read as fairspec reads one (``fairspec predict`` and training): empty cells
    missing, a cell's leading spaces dropped, codes with a leading zero kept as text.
    ``pandas.read_csv`` reads ``" F"`` as a category other than ``"F"``."""
    from fairspec.data.table import read_table as _read

    return _read(path, allow_no_rows=True)
