"""Score a data file with a saved model chunk by chunk, in bounded memory (``fairspec predict``).

The file is read in frames of ``chunk_rows`` rows (:func:`fairspec.data.table.read_table_chunks`),
each frame scored and its predictions formatted, so memory holds one frame at a time whatever
the file's size.  What a whole-file run says is said the same way:

* the predictions are the same numbers, in the same text (each row's prediction reads its own
  cells only);
* the unseen-category warnings count the rows of the whole file, with the values in order of
  first appearance;
* a data error is the one the whole-file run raises: the encoder checks the file column by
  column (the first bad cell of the first column that has one), so after a frame's error the
  remaining frames are checked for an earlier column's bad cell before it is raised; errors
  found row by row (the missing values a ``missing drop`` model refuses) come after every
  column's check, as in the whole file;
* with ``metrics``, the predictions are measured against the file's target and protected
  columns by counts merged frame by frame (:class:`fairspec.metrics.streaming.StreamedMetrics`),
  the same block a test split's metrics are.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from fairspec.data.prepare import FeatureEncoder, group_labels, line_of, target_vector
from fairspec.data.table import read_table_chunks
from fairspec.errors import DataError
from fairspec.metrics.streaming import StreamedMetrics
from fairspec.pipeline.artifact import FittedPipeline, LoadedModel, unseen_category_warning

#: rows per frame: a frame of 12 features takes about 100 MB at 250,000 rows, with its copies
CHUNK_ROWS = 250_000


@dataclass
class ScoredFile:
    """What scoring a file gave besides the predictions."""

    rows: int = 0
    #: column -> [rows holding an unseen category, those categories in order of first appearance]
    unseen: dict[str, list] = field(default_factory=dict)
    metrics: StreamedMetrics | None = None

    def warnings(self, model: LoadedModel, source: str) -> list:
        """The unseen-category warnings of the whole file, in the encoder's column order."""
        return [unseen_category_warning(source, column, *self.unseen[column])
                for column in model.encoder.names if column in self.unseen]


def score_chunks(model: LoadedModel, path, *, source: str, chunk_rows: int = CHUNK_ROWS,
                 metrics: bool = False, summary: ScoredFile | None = None) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(labels, scores) of each frame of the file at ``path``, in order; ``summary`` collects
    the unseen categories and (``metrics``) the merged counts as the frames pass."""
    summary = summary if summary is not None else ScoredFile()
    if metrics:
        summary.metrics = StreamedMetrics()
    schema = model.doc["schema"]
    pending: tuple[int, DataError] | None = None  # (column index, or past the last for a row error; error)
    for frame in read_table_chunks(path, chunk_rows, allow_no_rows=True):
        if pending is not None:
            pending = _first_bad_column(model.encoder, frame, pending[0], source) or pending
            if pending[0] == 0:
                break  # nothing can come before the first column's first bad cell
            continue
        try:
            labels, scores = FittedPipeline.predict(model, frame, source)
        except DataError as exc:
            if any(name not in frame.columns for name in model.encoder.names):
                raise  # said of the header: every frame says the same
            pending = _first_bad_column(model.encoder, frame, len(model.encoder.names), source) or (
                len(model.encoder.names), exc)
            continue
        for column, (rows, values) in model.encoder.unseen_categories(frame).items():
            seen = summary.unseen.setdefault(column, [0, []])
            seen[0] += rows
            seen[1].extend(v for v in values if v not in seen[1])
        if metrics:
            y, groups = _measured_columns(frame, schema, source)
            summary.metrics.add(y, labels, scores, groups)
        summary.rows += len(frame)
        yield labels, scores
    if pending is not None:
        raise pending[1]


def _first_bad_column(encoder: FeatureEncoder, frame: pd.DataFrame, below: int,
                      source: str) -> tuple[int, DataError] | None:
    """The first of the encoder's first ``below`` columns that ``frame`` holds a cell of it
    cannot read, with the error the whole encoder raises for it; None if none does."""
    for j in range(below):
        one = FeatureEncoder([encoder.names[j]], [encoder.kinds[j]], [encoder.categories[j]])
        try:
            one.transform(frame, source=source)
        except DataError as exc:
            return j, exc
    return None


def _measured_columns(frame: pd.DataFrame, schema: dict, source: str) -> tuple[np.ndarray, np.ndarray]:
    """The target (1 = the model's positive class) and group label of each row, which the
    metrics compare the predictions with; a row missing either is refused by its line."""
    target, protected = schema["target"]["name"], list(schema["protected"])
    absent = [c for c in [target, *protected] if c not in frame.columns]
    if absent:
        raise DataError(f"{source}: error: --metrics measures the predictions against the target and the protected "
                        f"column(s), and the file lacks {', '.join(map(repr, absent))}")
    for column in [target, *protected]:
        missing = frame[column].isna().to_numpy()
        if missing.any():
            raise DataError(f"{source}: error: column {column!r}, line {line_of(frame, int(np.flatnonzero(missing)[0]))}: "
                            f"missing value; --metrics measures the predictions against "
                            f"{'the target' if column == target else 'the groups'}, which every row must have")
    return target_vector(frame, target, schema["target"]["positive"]), group_labels(frame, protected)


def prediction_text(labels: np.ndarray, scores: np.ndarray) -> str:
    """The rows of the predictions file (no header), each score in every digit, as pandas'
    ``to_csv`` writes it: each distinct score is formatted once by pandas, and the rows are
    joined from those texts (formatting a million floats one by one took seconds)."""
    if len(labels) == 0:
        return ""
    values, inverse = np.unique(np.asarray(scores, dtype=float), return_inverse=True)
    texts = pd.Series(values).to_csv(index=False, header=False, lineterminator="\n").split("\n")[:len(values)]
    classes, class_of = np.unique(np.asarray(labels).astype(np.int64), return_inverse=True)
    rows = (np.array([str(c) for c in classes.tolist()], dtype=object)[class_of.reshape(-1)] + ","
            + np.array(texts, dtype=object)[inverse.reshape(-1)])
    return "\n".join(rows.tolist()) + "\n"


def partition_metrics(model: LoadedModel, frame: pd.DataFrame) -> StreamedMetrics:
    """The counts of one partition's predictions against its target and groups (a frame with
    the model's features, target and protected columns; rows named as the caller likes)."""
    labels, scores = FittedPipeline.predict(model, frame, "partition")
    y, groups = _measured_columns(frame, model.doc["schema"], "partition")
    return StreamedMetrics().add(y, labels, scores, groups)


def dask_metrics(model: LoadedModel, partitions, *, seed: int = 0) -> dict:
    """The metrics block (as ``fairspec predict --metrics`` writes it) of a ``dask.dataframe``'s
    rows: each partition is scored and counted where it lies, and the counts merged here
    (:func:`fairspec.metrics.streaming.merge_all`), so the block is the one the rows all at
    once give.  Needs ``fairspec[dask]``."""
    import dask

    from fairspec.metrics.streaming import merge_all

    parts = [dask.delayed(partition_metrics)(model, part) for part in partitions.to_delayed()]
    return merge_all(dask.compute(*parts)).block(seed=seed)
