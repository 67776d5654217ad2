"""The rule-set benchmark's verdicts and bookkeeping (benchmarks/rule_sets.py), on made-up rows:
no fit and no peer package is run."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_rule_sets", ROOT / "benchmarks" / "rule_sets.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def row(bench, method, seed=0, setting="none", bound=None, accuracy=0.7, test_gap=0.01, train_gap=0.01,
        seconds=1.0, complexity=10, dataset="compas", **extra):
    return dict(dataset=dataset, seed=seed, setting=setting, bound=bound, method=method, accuracy=accuracy,
                test_gap=test_gap, train_gap=train_gap, seconds=seconds, complexity=complexity,
                protected_feature=True, **extra)


def targets(capsys):
    return capsys.readouterr().out.split("ratios and targets", 1)[1]


def test_a_slow_or_complex_fit_is_a_missed_target_though_the_means_are_within(bench, capsys):
    rows = [row(bench, bench.OURS, seed=s, seconds=20.0, complexity=30) for s in range(4)]
    rows.append(row(bench, bench.OURS, seed=4, seconds=31.0, complexity=31))
    bench.report(rows)
    out = targets(capsys)
    assert "slowest of our 5 fits 31.0s (target <= 30s: MISSED)" in out
    assert "largest complexity 31 (<= 30: MISSED)" in out
    assert "max 31 (<= 30: MISSED)" in out


def test_the_unconstrained_fit_gets_a_verdict_against_the_paper_and_brcg(bench, capsys):
    rows = [row(bench, bench.OURS, seed=s, accuracy=0.670) for s in range(2)]
    rows += [row(bench, bench.BRCG, seed=s, accuracy=0.660, complexity=5) for s in range(2)]
    bench.report(rows)
    out = targets(capsys)
    assert "vs paper 0.676 (ratio 0.991: MISSED)" in out
    assert "vs BRCG 0.6600 (ratio 1.015: met; BRCG complexity 5.0)" in out


def test_a_peer_mean_over_other_splits_is_not_compared(bench, capsys):
    rows = [row(bench, bench.OURS, seed=s, setting="equal_opportunity", bound=0.05, accuracy=0.66)
            for s in range(3)]
    rows += [row(bench, bench.EG, seed=s, setting="equal_opportunity", bound=0.05, accuracy=0.60)
             for s in range(3, 6)]
    bench.report(rows)
    assert "not compared: other splits" in targets(capsys)


def test_a_training_gap_equal_to_the_bound_up_to_float_noise_meets_it(bench, capsys):
    gap = 0.05 + 1e-15
    bench.report([row(bench, bench.OURS, setting="equal_opportunity", bound=0.05, train_gap=gap)])
    assert "(<= eps: yes)" in targets(capsys)


def test_rows_of_both_feature_conventions_are_refused(bench):
    with pytest.raises(SystemExit, match="one convention"):
        bench.report([row(bench, bench.OURS), {**row(bench, bench.OURS, seed=1), "protected_feature": False}])


def test_a_fit_loaded_twice_counts_once_the_later_row_used(bench, capsys):
    rows = [row(bench, bench.OURS, seed=0, accuracy=0.60), row(bench, bench.OURS, seed=1, accuracy=0.70),
            row(bench, bench.OURS, seed=0, accuracy=0.68)]
    bench.report(rows)
    out = capsys.readouterr().out
    assert "1 rows measured again in a later part" in out
    assert "unconstrained acc 0.6900" in out


def test_an_unknown_setting_is_an_error_not_a_shorter_run(bench):
    with pytest.raises(SystemExit):
        bench.main(["--settings", "equalized_odds:0.01", "--no-ours", "--no-eg", "--no-brcg"])


@pytest.mark.parametrize(("argv", "says"), [
    (["--splits", "0"], "--splits: at least 1"),  # 0 had run 5 splits
    (["--settings", "equal_opportunity:abc"], "--settings: choose among"),  # had been a traceback
    (["--no-ours", "--no-eg", "--no-brcg", "--settings", "equal_opportunity:0.05"], "nothing to run"),
    (["--json", "no-such-folder/rows.json"], "--json: no folder"),  # had failed after every fit had run
])
def test_arguments_that_would_waste_or_lose_a_run_are_refused_before_any_fit(bench, argv, says, capsys,
                                                                              tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(bench, "run_ours", None)  # any fit would fail loudly
    with pytest.raises(SystemExit) as exc:
        bench.main(["--datasets", "compas", "--no-brcg", *argv])
    assert exc.value.code == 2 and says in capsys.readouterr().err


def test_one_split_prints_no_standard_error(bench, capsys):
    bench.report([row(bench, bench.OURS, accuracy=0.68)])
    out = targets(capsys)
    assert "unconstrained acc 0.6800 vs paper 0.676" in out and "nan" not in out


def test_every_method_is_scored_on_the_same_stratified_split(bench):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    y = rng.integers(0, 2, 200)
    groups = np.where(rng.random(200) < 0.3, "a", "b")
    first, again = bench.split(X, y, groups, 3), bench.split(X, y, groups, 3)
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    Xtr, Xte, ytr, yte, gtr, gte = first
    assert len(Xte) == 60
    for label in (0, 1):
        for g in ("a", "b"):
            share = ((ytr == label) & (gtr == g)).mean() - ((yte == label) & (gte == g)).mean()
            assert abs(share) < 0.02


def test_the_papers_protocol_tests_every_row_once_on_stratified_folds(bench):
    rng = np.random.default_rng(1)
    X = np.arange(300, dtype=float).reshape(-1, 1)  # the row number, to see which rows a fold holds
    y = rng.integers(0, 2, 300)
    groups = np.where(rng.random(300) < 0.3, "a", "b")
    tested = []
    for fold in range(10):
        Xtr, Xte, ytr, yte, gtr, gte = bench.split(X, y, groups, fold, cv=(10, 0))
        assert not set(Xtr[:, 0]) & set(Xte[:, 0])
        assert len(Xtr) + len(Xte) == 300
        np.testing.assert_array_equal(yte, y[Xte[:, 0].astype(int)])
        np.testing.assert_array_equal(gte, groups[Xte[:, 0].astype(int)])
        for label in (0, 1):
            for g in ("a", "b"):
                cell = ((y == label) & (groups == g)).sum()
                assert abs(((yte == label) & (gte == g)).sum() - cell / 10) < 1
        tested += list(Xte[:, 0])
    assert sorted(tested) == list(range(300))
    other = bench.split(X, y, groups, 0, cv=(10, 1))[1]
    assert set(other[:, 0]) != set(bench.split(X, y, groups, 0, cv=(10, 0))[1][:, 0])


def test_rows_of_a_cross_validation_and_of_70_30_splits_are_not_averaged_together(bench):
    rows = [row(bench, bench.OURS, seed=0, protocol=bench.protocol(None)),
            row(bench, bench.OURS, seed=1, protocol=bench.protocol((10, 0)))]
    with pytest.raises(SystemExit, match="one protocol at a time"):
        bench.report(rows)


def test_the_table_names_its_protocol(bench, capsys):
    bench.report([row(bench, bench.OURS, seed=s, protocol=bench.protocol((10, 0))) for s in range(2)])
    assert "splits: 10-fold CV (shuffle seed 0)" in capsys.readouterr().out


def test_a_paper_figure_above_every_tuned_model_is_said_to_be(bench, capsys):
    rows = [row(bench, bench.OURS, seed=s, accuracy=0.669) for s in range(2)]
    rows += [row(bench, bench.CEILING + "HistGB tuned (reference)", seed=s, accuracy=0.673, complexity=None)
             for s in range(2)]
    rows += [row(bench, bench.CEILING + "spline logistic (reference)", seed=s, accuracy=a, complexity=None)
             for s, a in enumerate([0.670, 0.678])]
    bench.report(rows)
    out = targets(capsys)
    assert "ceiling: HistGB tuned (reference) 0.6730" in out
    assert "the paper's figure is above the best tuned model's 0.6740 on these splits" in out


def test_the_spline_logistic_ceiling_reads_categories_with_missing_cells(bench):
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=120), rng.integers(0, 3, 120).astype(float)])
    X[::7, 1] = np.nan
    y = (np.sin(2 * X[:, 0]) + 2 * (X[:, 1] == 2) > 0.5).astype(int)  # additive: curved in x0, a step in x1
    (name, model), = [m for m in bench.ceiling_models([1], 2, seed=0) if "spline" in m[0]]
    model.fit(X, y)
    assert (model.predict(X) == y).mean() > 0.8
