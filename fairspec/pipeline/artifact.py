"""The model file (``model.json``): everything needed to predict, as data only.

Loading reads JSON and rebuilds the estimator from numbers and names through its family's
``estimator_from_json``; nothing in the file is executed, and a file from an incompatible
format version is refused with a clear error.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import platform
import warnings
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

import fairspec
from fairspec.data.prepare import FeatureEncoder, Imputer, category_text, first_missing, line_of
from fairspec.errors import DataError, FeatureError, ModelFileError, UnseenCategoryWarning
from fairspec.dsl.check import MISSING_STRATEGIES
from fairspec.models.model_file import integer, is_integer, number, show
from fairspec.pipeline.files import number_problem, read_json
from fairspec.registry.families import FAMILIES
from fairspec.plan.plan import Plan

FORMAT = "fairspec-model"
FORMAT_VERSION = 1

#: the installed packages whose versions decide which model a fit returns: HiGHS (``highspy``)
#: solves the IPs and LPs, Pyomo hands HiGHS their rows and columns, scikit-learn grows the trees
#: (the tree family, the rule sets' warm start), numpy draws every seeded choice and pandas
#: parses the data file.  A work-limited fit is reproducible under these versions, not across
#: them: another HiGHS takes another path through the same branch-and-bound work.
MODEL_SOFTWARE = ("highspy", "pyomo", "scikit-learn", "numpy", "pandas")


def software_versions() -> dict[str, str]:
    """Python's version and every :data:`MODEL_SOFTWARE` package's installed version."""
    return {"python": platform.python_version(),
            **{name: importlib.metadata.version(name) for name in MODEL_SOFTWARE}}


def family_module(name: str):
    """The module that trains family ``name`` (imported only when needed)."""
    return importlib.import_module(FAMILIES[name].module)


def without_timings(value):
    """``value`` with every ``*seconds*`` entry removed, at any depth.

    Timings differ between identical runs; leaving them out of the model file keeps the
    promise that the same spec, data and seed give the same ``model.json`` (metrics.json
    keeps the timings).
    """
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if "seconds" not in str(k)}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def _without_fit_timings(value):
    """An estimator document with the timings of its ``fit_log`` entries removed (only there:
    a parameter such as a time limit is part of the model and stays)."""
    if isinstance(value, dict):
        return {k: without_timings(v) if k == "fit_log" else _without_fit_timings(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_fit_timings(v) for v in value]
    return value


def model_document(plan: Plan, *, data_sha256: str, rows_used: int, encoder: FeatureEncoder,
                   imputer: Imputer | None, estimator, criterion,
                   class_names: tuple[str, str] = ("0", "1"), calibration: dict | None = None) -> dict:
    """The ``model.json`` document of one fitted model (see docs/ARTIFACTS.md); the text names
    the classes by ``class_names`` (negative, positive), as the data spells them."""
    labels = {column: {category_text(value): text for value, text in pairs} for column, pairs in plan.data.labels}
    names, cats = encoder.names, labelled_categories(encoder, labels)
    fit_log = without_timings(dict(getattr(estimator, "fit_log_", {})))
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "fairspec_version": fairspec.__version__,
        "software": software_versions(),
        "created": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "spec": {"name": plan.name, "path": None if plan.spec_path is None else str(plan.spec_path),
                 "text": plan.spec_text,
                 # the file's bytes, as sha256sum prints them; the text shown is what was read
                 "sha256": plan.spec_sha256 or hashlib.sha256(plan.spec_text.encode()).hexdigest(),
                 "normalised": plan.spec_normalised,
                 "warnings": [{"line": None if w.span is None else w.span.line,
                               "column": None if w.span is None else w.span.column,
                               "message": w.message, "hint": w.hint} for w in plan.warnings]},
        "data": {"path": str(plan.data.path), "sha256": data_sha256,
                 "filters": [[c, op, list(v)] for c, op, v in plan.data.filters], "rows_used": rows_used},
        "schema": {
            "target": {"name": plan.data.target, "positive": plan.data.positive, "outcome": plan.data.outcome},
            "protected": list(plan.data.protected),
            "reference_group": plan.data.reference,
            "features": [{"name": n, "kind": k, "categories": c}
                         for n, k, c in zip(encoder.names, encoder.kinds, encoder.categories)],
            "privileged": [{"name": f.name, "kind": f.kind} for f in plan.data.privileged],
            # how derived or labelled groups are formed, and the readable names of coded values:
            # only when the spec says so, so a plain spec's model file is as it was
            **({"groups": [g.to_json() for g in plan.data.group_columns]}
               if any(g.kind != "column" or g.labels for g in plan.data.group_columns) else {}),
            **({"labels": labels} if labels else {}),
        },
        "preprocessing": {
            "missing": {"strategy": plan.missing.strategy, "impute_method": plan.missing.impute_method,
                        "k": plan.missing.k},
            "encoder": encoder.to_json(),
            "imputer": None if imputer is None else imputer.to_json(),
        },
        "fairness": None if criterion is None else
        {"criterion": criterion.name, "bound": criterion.bound, "penalty": criterion.penalty,
         # where the bound holds, and what the calibration chose (ε′ and its inner out-of-fold gap)
         **({} if criterion.bound is None else
            {"holds_on": "train" if calibration is None else "unseen",
             "calibration": None if calibration is None else without_timings(calibration)})},
        "model": {"family": plan.model.family, "params": plan.model.params, "estimator": _without_fit_timings(estimator.to_json()),
                  # under drop no missing value reaches the model either (predict refuses such a row), so
                  # the text must not say where one goes, as it must not for an imputed model
                  "text": estimator.describe(names, cats, class_names=list(class_names),
                                             imputed=imputer is not None or plan.missing.strategy == "drop"),
                  # the labels the text gives the classes, negative then positive
                  "class_names": list(class_names)},
        # what the report's model card shows (the spec's model_card statement), or null
        "model_card": plan.model_card,
        "training": {"seed": plan.solver.seed, "fit_log": fit_log,
                     # the spec shown does not say clock_cap false: rerun it with the flag
                     "no_clock_cap_flag": plan.solver.clock_cap_from_command_line},
    }


def labelled_categories(encoder: FeatureEncoder, labels: dict) -> dict[int, list[str]]:
    """The encoder's category names (feature index -> names) as the model's text shows them: a
    category the spec's ``labels`` name (``labels``: column -> category -> label, as model.json's
    ``schema.labels``) as ``A14 (no checking account)``, the others as they are."""
    return {j: [f"{c} ({labels[encoder.names[j]][c]})" if c in labels.get(encoder.names[j], {}) else c
                for c in names]
            for j, names in encoder.category_names.items()}


@dataclass
class FittedPipeline:
    """What turns a table into predictions: the feature encoder, the imputer (when the spec
    imputes) and the estimator.  Training scores its rows with it; ``LoadedModel`` is one read
    back from ``model.json``."""

    encoder: FeatureEncoder
    imputer: Imputer | None
    estimator: object

    def matrix(self, frame: pd.DataFrame, source: str = "data") -> np.ndarray:
        """The feature matrix the estimator reads."""
        X = self.encoder.transform(frame, source=source)
        return X if self.imputer is None else self.imputer.transform(X)

    def predict(self, frame: pd.DataFrame, source: str = "data") -> tuple[np.ndarray, np.ndarray]:
        """(labels in {0, 1}, positive-class scores) for every row of ``frame``."""
        return self.predict_matrix(self.matrix(frame, source))

    def predict_matrix(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`predict` of rows already encoded (and imputed) by :meth:`matrix`.  An estimator
        with ``labels_from_scores`` (the tree family) gives its labels from the scores, so the
        rows are routed through the model once, not once for each."""
        scores = self.estimator.predict_proba(X)[:, 1]
        labels_from = getattr(self.estimator, "labels_from_scores", None)
        labels = labels_from(scores) if labels_from is not None else self.estimator.predict(X)
        return np.asarray(labels).astype(int), scores


def unseen_category_warning(source: str, column: str, rows: int, values: list) -> UnseenCategoryWarning:
    """The warning for ``rows`` rows of ``column`` holding categories training never saw
    (``values``, in order of first appearance)."""
    shown = ", ".join(repr(v) for v in values[:5]) + (f" and {len(values) - 5} more" if len(values) > 5 else "")
    return UnseenCategoryWarning(
        source, f"column {column!r}: {rows} {'row holds' if rows == 1 else 'rows hold'} a category never "
                f"seen in training ({shown}); the model reads it as a missing value")


@dataclass
class LoadedModel(FittedPipeline):
    """A model read back from ``model.json``, ready to predict on a table."""

    doc: dict

    def predict(self, frame: pd.DataFrame, source: str = "data") -> tuple[np.ndarray, np.ndarray]:
        """(labels in {0, 1}, positive-class scores) for every row of ``frame``, with an
        :class:`UnseenCategoryWarning` per column holding a category training never saw: the
        model reads it as a missing value, which a reader of ``color != red`` would not expect,
        and a caller of the API had not been told (``fairspec predict`` printed it alone)."""
        scored = super().predict(frame, source)
        for column, (rows, values) in self.encoder.unseen_categories(frame).items():
            warnings.warn(unseen_category_warning(source, column, rows, values), stacklevel=2)
        return scored

    @classmethod
    def from_document(cls, doc: dict, source: str = "model.json", numbers_checked: bool = False,
                      scoring_only: bool = False) -> "LoadedModel":
        """The model ``doc`` describes, checked so that a damaged or edited file is refused here,
        as a ``ModelFileError`` naming ``source``, instead of failing or scoring garbage later.
        ``numbers_checked``: the caller has already refused a number JSON does not have
        (:func:`number_problem`), as ``fairspec report``'s reader has, so it is not walked twice:
        a second walk of a large model file (a knn imputer's rows) had made the report slower by
        a second or more.  ``scoring_only``: the estimator is the family's scorer
        (:attr:`~fairspec.registry.families.Family.scorer`, when it has one), which predicts as
        the estimator does without importing scikit-learn, and passes the same checks; the
        Python API keeps the estimator."""
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise ModelFileError(f"{source}: error: not a fairspec model file")
        # `true` and 1.0 equal 1 in Python, but no fairspec wrote either
        if not (is_integer(doc.get("format_version")) and doc["format_version"] == FORMAT_VERSION):
            raise ModelFileError(f"{source}: error: model file format {doc.get('format_version')!r} "
                                 f"is not supported (this fairspec reads format {FORMAT_VERSION})")
        # the check `fairspec report` makes of the same file, so that both name such a number by
        # its place: no model fairspec writes holds NaN, Infinity or a number beyond a float, and
        # the families' own checks would call one something else, or pass it where predict never
        # looks (the fit log)
        problem = None if numbers_checked else number_problem(doc, "model")
        if problem is not None:
            raise ModelFileError(f"{source}: error: damaged model file ({problem})")
        from fairspec.errors import FairspecError

        # what reading a damaged document can raise: anything a lookup, conversion or check of
        # the families (or a too deeply nested document) throws; other errors are bugs and stay so
        damage = (LookupError, TypeError, ValueError, AttributeError, ArithmeticError, RecursionError, FairspecError)
        family, encoder = None, None
        try:
            pre = doc["preprocessing"]
            cls._check_preprocessing_values(pre)
            encoder = FeatureEncoder.from_json(pre["encoder"])
            imputer = None if pre.get("imputer") is None else Imputer.from_json(pre["imputer"])
            cls._check_preprocessing(pre, encoder, imputer)
            family = doc["model"]["family"]
            if isinstance(family, str) and family in FAMILIES and FAMILIES[family].implemented:
                reader = (importlib.import_module(FAMILIES[family].scorer).scorer_from_json
                          if scoring_only and FAMILIES[family].scorer else family_module(family).estimator_from_json)
                estimator = reader(doc["model"]["estimator"])
                cls._check_estimator(estimator, encoder)
                cls._check_text(doc, encoder, imputer, estimator)
        except damage as exc:
            # the families' own errors already say what is wrong; others need their type to be read
            if isinstance(exc, KeyError) and exc.args:
                # "KeyError: 'encoder'" is Python's way of saying it
                why = f"the entry {show(exc.args[0])} is missing"
            elif isinstance(exc, FeatureError) and encoder is not None and 0 <= exc.feature < len(encoder.names):
                why = exc.named(encoder.names)  # the estimator knows its features by number only
            elif isinstance(exc, (ValueError, FairspecError)):
                # the loaders' checks raise ValueError with what is wrong, in words
                why = str(exc)
            else:
                why = f"{type(exc).__name__}: {exc}"
            raise ModelFileError(f"{source}: error: damaged model file ({why})") from None
        if not (isinstance(family, str) and family in FAMILIES and FAMILIES[family].implemented):
            raise ModelFileError(f"{source}: error: unknown model family {family!r}")
        return cls(encoder, imputer, estimator, doc)

    @classmethod
    def read(cls, path: Path, scoring_only: bool = False) -> "LoadedModel":
        """The model at ``path`` (a model.json or a run directory); ``scoring_only``: as
        :meth:`from_document` says."""
        path = Path(path)
        hint = ""
        if path.is_dir():
            points = sorted(p.name for p in path.glob("point-*") if (p / "model.json").is_file())
            if (path / "sweep.json").is_file() and points:
                # a sweep's directory has one model per point, none at its top
                hint = (f" (this is a fairness sweep's directory: each point's model is in its own folder, "
                        f"{', '.join(points[:3])}{', ...' if len(points) > 3 else ''})")
            path = path / "model.json"
        doc = read_json(path, "model", hint)
        return cls.from_document(doc, str(path), scoring_only=scoring_only)

    @staticmethod
    def _check_preprocessing_values(pre) -> None:
        """``ValueError`` unless the preprocessing entries have the types training writes.

        Checked before the encoder and imputer are built from them: ``Imputer.from_json``
        converts with ``int()`` and ``float()``, which read ``"3"``, 2.9 and ``true`` alike, and
        would call a null ``k`` a ``TypeError`` of Python's instead of naming the entry."""
        if not isinstance(pre, dict):
            raise ValueError("preprocessing must be an object")
        if not isinstance(pre["encoder"], dict):
            raise ValueError("preprocessing.encoder must be an object with lists names, kinds, categories")
        raw = pre.get("imputer")
        if raw is None:
            return
        if not isinstance(raw, dict):
            raise ValueError("preprocessing.imputer must be an object or null")
        integer(raw["k"], "the imputer's k", low=1, high=1_000_000)
        for key in ("fill", "categorical"):
            if not isinstance(raw[key], list):
                raise ValueError(f"the imputer's {key} must be a list, got {show(raw[key])}")
        for v in raw["fill"]:
            number(v, "an imputer fill value")
        for j in raw["categorical"]:
            integer(j, "an imputer categorical index")

    @staticmethod
    def _check_preprocessing(pre: dict, encoder: FeatureEncoder, imputer: Imputer | None) -> None:
        """``ValueError`` unless the preprocessing entries fit together (predict relies on them)."""
        missing = pre.get("missing")
        if not isinstance(missing, dict) or not isinstance(missing.get("strategy"), str):
            raise ValueError("preprocessing.missing must be an object with a 'strategy'")
        if missing["strategy"] not in (*MISSING_STRATEGIES, "impute"):
            raise ValueError(f"unknown missing strategy {show(missing['strategy'])} (the strategies: "
                             f"{', '.join((*MISSING_STRATEGIES, 'impute'))})")
        # training imputes exactly under `missing impute(...)`; without the imputer the rows'
        # missing values would reach an estimator that was never fitted on any
        if (missing["strategy"] == "impute") != (imputer is not None):
            raise ValueError(f"missing strategy {missing['strategy']!r} "
                             + ("needs an imputer" if imputer is None else "has no use for an imputer"))
        # predict looks each feature up by its name and each category by its text: a name or a
        # category listed twice would read one column for two features, or leave a category's
        # code unreachable, and score every row by it
        names = encoder.names
        if "" in names:
            raise ValueError("feature names must not be empty")
        twice = next((n for i, n in enumerate(names) if n in names[:i]), None)
        if twice is not None:
            raise ValueError(f"feature names must be distinct, got {show(twice)} twice")
        for name, cats in zip(names, encoder.categories):
            if cats is not None and len(set(cats)) != len(cats):
                raise ValueError(f"categorical feature {name!r} lists a category twice")
        if imputer is None:
            return
        p = len(encoder.names)
        if imputer.method not in ("mean", "median", "knn"):
            raise ValueError(f"unknown imputation method {imputer.method!r}")
        if len(imputer.fill) != p or not np.all(np.isfinite(imputer.fill)):
            raise ValueError(f"the imputer needs {p} finite fill values (one per feature), got {len(imputer.fill)}")
        if not all(is_integer(j) and 0 <= j < p for j in imputer.categorical):
            raise ValueError(f"imputer categorical indices must be in 0..{p - 1}")
        # training fills a categorical column with its most frequent code (Imputer.fit): another
        # index list, or a fill that is no category's code, would put a number no category has
        # into a column the estimator reads as codes
        if sorted(imputer.categorical) != encoder.categorical_indices:
            raise ValueError(f"imputer categorical indices {show(imputer.categorical)} are not the categorical "
                             f"features {encoder.categorical_indices}")
        for j in encoder.categorical_indices:
            codes = max(1, len(encoder.categories[j]))  # a column without a training value is filled with 0
            if not (float(imputer.fill[j]).is_integer() and 0 <= imputer.fill[j] < codes):
                raise ValueError(f"the imputer fills categorical feature {names[j]!r} with {show(imputer.fill[j])}, "
                                 f"which is no category's code (0..{codes - 1})")
        if imputer.method == "knn":
            ref = imputer.reference
            def usable(v):
                return v is None or (isinstance(v, (int, float)) and not isinstance(v, bool) and np.isfinite(v))

            if not isinstance(ref, list) or not ref or not all(
                    isinstance(row, list) and len(row) == p and all(usable(v) for v in row) for row in ref):
                raise ValueError(f"a knn imputer needs reference rows of {p} numbers or nulls")

    @staticmethod
    def _check_estimator(estimator, encoder: FeatureEncoder) -> None:
        """``ValueError`` unless the estimator reads the encoder's matrix and scores the positive class."""
        p = len(encoder.names)
        if getattr(estimator, "n_features_in_", None) != p:
            raise ValueError(f"the estimator reads {getattr(estimator, 'n_features_in_', None)!r} features; "
                             f"the encoder makes {p}")
        if not callable(getattr(estimator, "predict_proba", None)):
            raise ValueError(f"{type(estimator).__name__} gives no class probabilities")
        # training hands every family the encoder's categorical columns; a tree told otherwise
        # compares category codes with numeric split points, and its scores are quietly wrong
        # (found in review: an encoder edited to call a numeric feature categorical loaded)
        categorical = getattr(estimator, "categorical_features", None)
        if categorical is not None:
            given = sorted(int(j) for j in categorical) if all(is_integer(j) for j in categorical) else categorical
            if given != encoder.categorical_indices:
                raise ValueError(f"the estimator reads features {show(list(categorical))} as categorical, but the "
                                 f"encoder codes {encoder.categorical_indices} as categories")
        # the binarizer tests a categorical feature's codes for equality and cuts a numeric one
        # (candidate_literals): a `<=` on codes reads their order, which is only that of the
        # categories' texts, and the text showed the code as a number (found in review)
        for lit in _literals(estimator):
            kind = encoder.kinds[lit.feature]
            if lit.op in (("<=", ">") if kind == "categorical" else ("==", "!=")):
                raise ValueError(f"a rule compares {kind} feature {encoder.names[lit.feature]!r} by {lit.op!r}, "
                                 f"which training never does (it compares a category by == and !=, and cuts a "
                                 f"number by <= and >)")
        # the codes a model names are the encoder's, 0..(its categories - 1): a code past them is
        # a category no cell can be coded as, and a rule `== 99` true of no row read as a category
        # in the text, which names an unknown code by its number (found in review)
        for j, code in _category_codes(estimator):
            count = len(encoder.categories[j] or [])
            if not (0 <= code < count and float(code).is_integer()):
                raise ValueError(f"the estimator reads category code {show(code)} of feature {encoder.names[j]!r}, "
                                 f"but the encoder lists {count} categories for it (codes 0..{count - 1})")
        # training codes the target 0/1; other labels would break `predict` or swap the classes
        classes = getattr(estimator, "classes_", None)
        classes = None if classes is None else np.asarray(classes).tolist()
        # [false, true] and [0.0, 1.0] equal [0, 1] in Python, but training writes the integers
        if classes != [0, 1] or not all(is_integer(c) for c in classes):
            raise ValueError(f"the classes must be [0, 1], got {classes!r}")

    @staticmethod
    def _check_text(doc: dict, encoder: FeatureEncoder, imputer: Imputer | None, estimator) -> None:
        """``ValueError`` unless ``model.text`` is what the estimator's own description gives.

        The text is what a reviewer reads and signs off; the estimator is what scores.  A split
        point edited from 10 to 15 with the text left as it was had loaded, and ``predict``
        scored by the edit while the text still said 10 (found in review)."""
        model = doc["model"]
        class_names = model["class_names"]
        if not (isinstance(class_names, list) and len(class_names) == 2
                and all(isinstance(c, str) for c in class_names)):
            raise ValueError("model.class_names must be the two class names as text, negative then positive")
        imputed = imputer is not None or doc["preprocessing"]["missing"]["strategy"] == "drop"
        labels = (doc.get("schema") or {}).get("labels") or {}
        if not (isinstance(labels, dict) and all(isinstance(v, dict) and all(isinstance(t, str) for t in v.values())
                                                 for v in labels.values())):
            raise ValueError("schema.labels must map each labelled column to its values' labels (text)")
        drawn = estimator.describe(encoder.names, labelled_categories(encoder, labels), class_names=class_names,
                                   imputed=imputed)
        text = model["text"]
        if text == drawn:
            return
        if not (isinstance(text, list) and all(isinstance(line, str) for line in text)):
            raise ValueError("model.text must be a list of lines of text")
        at = next((i for i, (a, b) in enumerate(zip(text, drawn)) if a != b), min(len(text), len(drawn)))
        said = repr(text[at]) if at < len(text) else "nothing (the text ends)"
        gives = repr(drawn[at]) if at < len(drawn) else "nothing (its description ends)"
        raise ValueError(f"model.text is not the model that scores: its line {at + 1} reads {said}, where the "
                         f"estimator gives {gives}; the file was edited after training")

    @property
    def strategy(self) -> str:
        return self.doc["preprocessing"]["missing"]["strategy"]

    def matrix(self, frame: pd.DataFrame, source: str = "data") -> np.ndarray:
        """The feature matrix the estimator reads; checks columns and missing values."""
        X = super().matrix(frame, source)
        if self.strategy == "drop":  # no imputer then: the rows keep their missing values
            hit = first_missing(X, self.encoder.names)
            if hit is not None:
                column, row = hit
                cell = frame[column].iloc[row]
                where = f"{source}: error: column {column!r}, line {line_of(frame, row)}"
                if pd.isna(cell):
                    raise DataError(f"{where}: missing value, and this model was trained with `missing drop`, "
                                    f"so it cannot score such a row")
                raise DataError(f"{where}: category {category_text(cell)!r} never occurred in the training rows, "
                                f"and this model was trained with `missing drop`, so it cannot score such a row")
        return X


def _literals(estimator):
    """Every condition (:class:`~fairspec.models.rule_set.binarize.Literal`) the estimator
    tests: a rule set's rules', a MIP forest's splits."""
    for rule in getattr(estimator, "rules_", None) or []:
        yield from rule
    for tree in getattr(estimator, "trees_", None) or []:
        yield from getattr(tree, "splits", None) or []


def _category_codes(estimator):
    """(feature, code) for every category code the estimator names: a rule set's ``==`` and
    ``!=`` conditions and a MIP forest's ``==`` splits, a tree's category splits, the
    baseline's indicator columns."""
    for lit in _literals(estimator):
        if lit.op in ("==", "!="):
            yield lit.feature, lit.value
    trees = list(getattr(estimator, "trees_", None) or []) + [getattr(estimator, "tree_", None)]
    for tree in trees:
        if not hasattr(tree, "left_codes"):  # none, or the baseline's tree, which splits its indicators
            continue
        for j, left, right in zip(tree.feature, tree.left_codes, tree.right_codes):
            if left is not None and j >= 0:
                yield from ((int(j), int(code)) for codes in (left, right) for code in codes)
    for entry in getattr(estimator, "layout_", None) or []:
        if entry["code"] is not None:
            yield entry["column"], entry["code"]
