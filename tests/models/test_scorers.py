"""The scikit-learn-free scorers (``fairspec predict``) against the estimators they stand for:
the same probabilities and labels, byte for byte, on every bundled example's committed model
and on random rows with missing values and unseen categories; the same checks at loading;
and no scikit-learn or SciPy imported on the way."""
import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from fairspec.errors import ModelFileError
from fairspec.models.tree import estimators as tree_estimators
from fairspec.models.tree import scorer as tree_scorer
from fairspec.pipeline.artifact import LoadedModel
from fairspec.registry.families import FAMILIES

ROOT = Path(__file__).resolve().parents[2]
SCORED = [p for p in sorted(ROOT.glob("reports/**/model.json"))
          if FAMILIES[json.loads(p.read_text())["model"]["family"]].scorer]


def test_every_bundled_tree_model_is_covered():
    assert {p.parent.name for p in SCORED} >= {"adult_tree", "german_tutorial", "point-0", "point-1", "point-2"}


def test_scorer_parameters_are_the_estimators():
    for kind, cls in tree_estimators._KINDS.items():
        assert sorted(tree_scorer.PARAMS[kind]) == cls._get_param_names(), kind
        assert tree_scorer.CLASS_NAMES[kind] == cls.__name__


def _random_rows(model: LoadedModel, n: int, seed: int) -> np.ndarray:
    """Rows over each feature's range, 15 % missing, categorical codes past the encoder's
    (what an unseen category becomes is NaN; a code no category has must route too)."""
    rng = np.random.default_rng(seed)
    X = np.empty((n, len(model.encoder.names)))
    for j, cats in enumerate(model.encoder.categories):
        if cats is not None:
            X[:, j] = rng.integers(0, len(cats) + 1, n)
        else:
            X[:, j] = rng.normal(0, 1, n) * 10 ** rng.integers(0, 5) + rng.integers(-50, 50)
    X[rng.random(X.shape) < 0.15] = np.nan
    return X


@pytest.mark.parametrize("path", SCORED, ids=lambda p: str(p.parent.relative_to(ROOT / "reports")))
def test_scorer_scores_as_the_estimator(path):
    estimator_model = LoadedModel.read(path)
    scorer_model = LoadedModel.read(path, scoring_only=True)
    assert type(scorer_model.estimator) is tree_scorer.TreeScorer
    assert type(estimator_model.estimator) is not tree_scorer.TreeScorer
    from fairspec import read_table

    frame = read_table(ROOT / estimator_model.doc["data"]["path"]).head(3000)
    if estimator_model.strategy == "drop":
        frame = frame.dropna()
    with warnings.catch_warnings():  # unseen categories: the loader's warning, the same on both sides
        warnings.simplefilter("ignore")
        want = estimator_model.predict(frame)
        got = scorer_model.predict(frame)
    assert want[0].tobytes() == got[0].tobytes() and want[1].tobytes() == got[1].tobytes()
    for seed in range(3):
        X = _random_rows(estimator_model, 4000, seed)
        a, b = estimator_model.estimator, scorer_model.estimator
        assert a.predict_proba(X).tobytes() == b.predict_proba(X).tobytes()
        assert a.predict(X).tobytes() == b.predict(X).tobytes()
    names = estimator_model.encoder.names
    assert a.describe(names, None, class_names=["no", "yes"]) == b.describe(names, None, class_names=["no", "yes"])


def test_forest_scorer_scores_as_the_forest():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 4))
    X[:, 3] = rng.integers(0, 3, 400)
    y = (X[:, 0] + (X[:, 3] == 1) + rng.normal(0, 0.5, 400) > 0.5).astype(int)
    X[rng.random(X.shape) < 0.1] = np.nan
    forest = tree_estimators.MissingAwareForestClassifier(n_estimators=7, max_depth=3, categorical_features=[3],
                                                         random_state=1).fit(X, y)
    doc = json.loads(json.dumps(forest.to_json()))
    scorer = tree_scorer.scorer_from_json(doc)
    Xt = rng.normal(size=(2000, 4))
    Xt[:, 3] = rng.integers(0, 5, 2000)
    Xt[rng.random(Xt.shape) < 0.2] = np.nan
    assert scorer.predict_proba(Xt).tobytes() == forest.predict_proba(Xt).tobytes()
    assert scorer.predict(Xt).tobytes() == forest.predict(Xt).tobytes()
    assert scorer.describe() == forest.describe()


@pytest.mark.parametrize("damage, fragment", [
    (lambda d: d["params"].update(sideways=1), "unexpected keyword argument 'sideways'"),
    (lambda d: d.update(n_features_in=0), "n_features_in must be a positive integer"),
    (lambda d: d["nodes"][0].update(missing="sideways"), "malformed tree model"),
    (lambda d: d.pop("classes"), "two distinct classes"),
    (lambda d: d["params"].update(fairness={"name": "nonsense"}), "unknown fairness criterion"),
])
def test_damaged_documents_are_refused_alike(damage, fragment):
    doc = json.loads((ROOT / "reports/adult_tree/model.json").read_text())["model"]["estimator"]
    damage(doc)
    messages = []
    for read in (tree_estimators.estimator_from_json, tree_scorer.scorer_from_json):
        with pytest.raises(ModelFileError, match=fragment) as caught:
            read(json.loads(json.dumps(doc)))
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


def test_the_predict_path_imports_neither_scikit_learn_nor_scipy():
    """What ``fairspec predict`` imports, and a tree read for scoring, in a fresh interpreter."""
    script = ("import sys\n"
              "import fairspec.cli, fairspec.pipeline.artifact, fairspec.pipeline.scoring, fairspec.metrics.streaming\n"
              "from fairspec.pipeline.artifact import LoadedModel\n"
              f"LoadedModel.read({str(ROOT / 'reports/adult_tree')!r}, scoring_only=True)\n"
              "print(sorted({m.split('.')[0] for m in sys.modules} & {'sklearn', 'scipy', 'pyomo', 'matplotlib'}))\n")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]", run.stdout


def test_predict_with_metrics_imports_no_scikit_learn(tmp_path):
    """``fairspec predict --metrics`` with a tree, run in a fresh interpreter: neither
    scikit-learn nor SciPy's statistics (the gap intervals of more than three groups need
    ``scipy.special``'s beta quantiles, imported then)."""
    data = tmp_path / "rows.csv"
    import gzip

    with gzip.open(ROOT / "data/adult.csv.gz", "rt") as fh:
        data.write_text("".join(next(fh) for _ in range(2001)))
    script = (
        "import sys\n"
        "from fairspec.cli import main\n"
        f"code = main(['predict', {str(ROOT / 'reports/adult_tree')!r}, {str(data)!r}, '-o', "
        f"{str(tmp_path / 'p.csv')!r}, '--metrics', {str(tmp_path / 'm.json')!r}])\n"
        "heavy = sorted({m for m in sys.modules if m.split('.')[0] in ('sklearn', 'pyomo', 'matplotlib')}\n"
        "               | {m for m in sys.modules if m.startswith('scipy.stats')})\n"
        "print(code, heavy)\n")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "0 []", run.stdout + run.stderr
    metrics = json.loads((tmp_path / "m.json").read_text())
    assert metrics["test"]["auc"] is not None
