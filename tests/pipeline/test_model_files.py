"""A damaged or edited model.json is refused when it is loaded: a ModelFileError that names the
file ("damaged model file"), exit code 1 from `fairspec predict`, never an internal error (70),
a hang, or predictions from a file that does not hold together.

The bundled reports' model files are the undamaged starting points (no training needed).
Damage that would make an unguarded predict loop (a cycle) is only ever loaded here, never
scored, so these tests cannot hang.
"""
from __future__ import annotations

import copy
import json
import shutil

import pandas as pd
import pytest

from fairspec.cli import main
from fairspec.errors import ModelFileError
from fairspec.pipeline.artifact import LoadedModel

DATA = {"adult_tree": "adult", "compas_baseline": "compas", "compas_rules": "compas", "german_logistic": "german"}


def _model(root, name) -> dict:
    return json.loads((root / "reports" / name / "model.json").read_text(encoding="utf-8"))


def _write(tmp_path, doc, text=None):
    path = tmp_path / "model.json"
    path.write_text(text if text is not None else json.dumps(doc), encoding="utf-8")
    return path


def _scored_csv(root, tmp_path, name):
    path = tmp_path / "rows.csv"
    pd.read_csv(root / "data" / f"{DATA[name]}.csv.gz", nrows=20).to_csv(path, index=False)
    return path


def _est(doc):
    return doc["model"]["estimator"]


def _first_split(nodes):
    return next(k for k, nd in enumerate(nodes) if not nd["leaf"])


DAMAGE = [
    ("adult_tree", "empty node list", lambda d: _est(d).update(nodes=[]), "a tree needs a non-empty list of nodes"),
    ("adult_tree", "child out of range", lambda d: _est(d)["nodes"][0].update(left=999), "left child 999"),
    ("adult_tree", "feature out of range",
     lambda d: _est(d)["nodes"][_first_split(_est(d)["nodes"])].update(feature=99), "feature 99 is out of range"),
    ("adult_tree", "one class", lambda d: _est(d).update(classes=["a"]), "two distinct labels"),
    ("adult_tree", "classes swapped", lambda d: _est(d).update(classes=[1, 0]),
     "classes must be in sorted order, the positive class second"),
    ("adult_tree", "classes not 0 and 1", lambda d: _est(d).update(classes=[0, 2]), "classes must be [0, 1]"),
    ("adult_tree", "no missing strategy", lambda d: d["preprocessing"].pop("missing"),
     "preprocessing.missing must be an object"),
    ("adult_tree", "estimator reads other features", lambda d: _est(d).update(n_features_in=11),
     "the estimator reads 11 features; the encoder makes 10"),
    ("adult_tree", "tree format version", lambda d: _est(d).update(format_version=9),
     "tree model format version 9; this fairspec reads 1"),
    ("adult_tree", "not a tree", lambda d: _est(d)["nodes"][0].update(missing="sideways"), "malformed tree model"),
    ("compas_baseline", "child out of range", lambda d: _est(d)["tree"]["right"].__setitem__(0, 999),
     "right child 999"),
    ("compas_baseline", "feature out of range", lambda d: _est(d)["tree"]["feature"].__setitem__(0, 99),
     "feature 99 is out of range"),
    ("compas_baseline", "layout column out of range", lambda d: _est(d)["layout"][0].update(column=99),
     "must name a feature column"),
    ("compas_baseline", "imputer without fill values", lambda d: d["preprocessing"]["imputer"].update(fill=[]),
     "the imputer needs 6 finite fill values"),
    ("compas_baseline", "imputing without an imputer", lambda d: d["preprocessing"].update(imputer=None),
     "missing strategy 'impute' needs an imputer"),
    ("german_logistic", "coefficient missing", lambda d: _est(d)["linear"]["coef"].pop(), "linear.coef must be"),
    ("compas_rules", "rule feature out of range",
     lambda d: _est(d)["rules"][0]["conditions"][0].update(feature=99), "a rule reads feature 99"),
    ("compas_rules", "rule model format", lambda d: _est(d).update(format_version=9), "rule_set model format version 9; this fairspec reads 1"),
    # these scored rows -0.5, 5e+307 or NaN, or read text as numbers
    ("compas_rules", "negative rate", lambda d: _est(d).update(uncovered_positive_rate=-1),
     "uncovered_positive_rate must be a finite number in [0, 1]"),
    ("compas_rules", "precision above 1", lambda d: _est(d)["rules"][0].update(precision=1e308),
     "precision must be a finite number in [0, 1]"),
    ("compas_rules", "rate as text", lambda d: _est(d).update(uncovered_positive_rate="0.5"),
     "uncovered_positive_rate must be a number"),
    ("compas_rules", "feature count as text", lambda d: _est(d).update(n_features_in="6"),
     "n_features_in must be an integer"),
    ("compas_rules", "condition feature true", lambda d: _est(d)["rules"][0]["conditions"][0].update(feature=True),
     "a condition's feature must be an integer"),
    # a column read for two features, a category code no cell can get, an imputer filling a
    # categorical column with a number no category has: each was loaded and scored every row
    ("compas_baseline", "feature named twice",
     lambda d: d["preprocessing"]["encoder"]["names"].__setitem__(1, "age"), "feature names must be distinct"),
    ("compas_rules", "category listed twice",
     lambda d: d["preprocessing"]["encoder"]["categories"][5].__setitem__(1, "F"), "lists a category twice"),
    ("compas_baseline", "imputer treats a numeric feature as categorical",
     lambda d: d["preprocessing"]["imputer"].update(categorical=[0, 4, 5]),
     "imputer categorical indices [0, 4, 5] are not the categorical features [4, 5]"),
    ("compas_baseline", "imputer categorical index true",
     lambda d: d["preprocessing"]["imputer"].update(categorical=[True, 5]),
     "an imputer categorical index must be an integer, got True"),
    ("compas_baseline", "categorical fill that is no code",
     lambda d: d["preprocessing"]["imputer"]["fill"].__setitem__(4, 7.0),
     "fills categorical feature 'c_charge_degree' with 7.0, which is no category's code (0..1)"),
    # a null among the node arrays (an internal error: the check looked for the first bad value,
    # and found the null itself)
    ("compas_baseline", "null feature", lambda d: _est(d)["tree"]["feature"].__setitem__(3, None),
     "tree.feature must hold integers, got None"),
    # a leaf's feature past int64 (never read, but it made the column Python objects that numpy
    # refused as indices at predict: an internal error)
    # a tree or rule set told other categorical columns than the encoder codes compared codes
    # with split points, and scored quietly wrong (found in review)
    ("adult_tree", "encoder calls a numeric feature categorical",
     lambda d: (d["preprocessing"]["encoder"]["kinds"].__setitem__(0, "categorical"),
                d["preprocessing"]["encoder"]["categories"].__setitem__(0, ["17", "18"])),
     "the estimator reads features [1, 3, 4, 5, 9] as categorical, but the encoder codes [0, 1, 3, 4, 5, 9] as "
     "categories"),
    ("compas_rules", "estimator's categorical features not the encoder's",
     # c_charge_degree (5) is in no rule of the committed model: a feature a rule reads would be
     # refused by the rule set's own check first
     lambda d: _est(d)["params"].update(categorical_features=[6]),
     "the estimator reads features [6] as categorical, but the encoder codes [5, 6] as categories"),
    # values no fairspec writes, which int() and float() had read as something (found in review)
    ("adult_tree", "unknown missing strategy", lambda d: d["preprocessing"]["missing"].update(strategy="bogus"),
     "unknown missing strategy 'bogus'"),
    ("compas_baseline", "imputer k as text", lambda d: d["preprocessing"]["imputer"].update(k="3"),
     "the imputer's k must be an integer, got '3'"),
    ("compas_baseline", "fractional imputer k", lambda d: d["preprocessing"]["imputer"].update(k=2.9),
     "the imputer's k must be an integer, got 2.9"),
    ("compas_baseline", "imputer fill as text", lambda d: d["preprocessing"]["imputer"]["fill"].__setitem__(0, "1.5"),
     "an imputer fill value must be a number, got '1.5'"),
    ("compas_baseline", "imputer fill true", lambda d: d["preprocessing"]["imputer"]["fill"].__setitem__(0, True),
     "an imputer fill value must be a number, got True"),
    ("adult_tree", "tree format version true", lambda d: _est(d).update(format_version=True),
     "tree model format version True"),
    ("compas_rules", "rule model format 1.0", lambda d: _est(d).update(format_version=1.0),
     "rule_set model format version 1.0; this fairspec reads 1"),
    ("adult_tree", "classes false and true", lambda d: _est(d).update(classes=[False, True]),
     "the classes must be [0, 1], got [False, True]"),
    ("compas_rules", "classes as floats", lambda d: _est(d).update(classes=[0.0, 1.0]),
     "the classes must be [0, 1], got [0.0, 1.0]"),
    ("compas_baseline", "no encoder", lambda d: d["preprocessing"].pop("encoder"), "the entry 'encoder' is missing"),
    ("compas_baseline", "huge leaf feature",
     lambda d: _est(d)["tree"]["feature"].__setitem__(_est(d)["tree"]["left"].index(-1), 10 ** 20),
     "feature 100000000000000000000 is out of range (a leaf has -2)"),
    # wrong types where an object or list belongs: these were named by Python's TypeError
    # ("'NoneType' object is not subscriptable"), not by their entry (found by a fuzzer)
    ("compas_baseline", "null encoder", lambda d: d["preprocessing"].update(encoder=None),
     "preprocessing.encoder must be an object"),
    ("compas_baseline", "imputer true", lambda d: d["preprocessing"].update(imputer=True),
     "preprocessing.imputer must be an object or null"),
    ("compas_baseline", "null imputer k", lambda d: d["preprocessing"]["imputer"].update(k=None),
     "the imputer's k must be an integer, got None"),
    ("compas_baseline", "null imputer fill list", lambda d: d["preprocessing"]["imputer"].update(fill=None),
     "the imputer's fill must be a list, got None"),
    ("compas_baseline", "null imputer fill value", lambda d: d["preprocessing"]["imputer"]["fill"].__setitem__(0, None),
     "an imputer fill value must be a number, got None"),
    ("compas_baseline", "null imputer categorical list",
     lambda d: d["preprocessing"]["imputer"].update(categorical=None), "the imputer's categorical must be a list"),
    ("compas_rules", "condition as a list", lambda d: _est(d)["rules"][0]["conditions"].__setitem__(0, [1, "a"]),
     "each with a list of 'conditions' (objects)"),
    ("compas_rules", "criterion named by a list", lambda d: _est(d)["criterion"].update(name=[]),
     "unknown criterion []"),
]


@pytest.mark.parametrize("name, what, change, fragment", DAMAGE, ids=[f"{n}: {w}" for n, w, _, _ in DAMAGE])
def test_predict_with_a_damaged_model_file_exits_1_naming_the_file(root, tmp_path, capsys, name, what, change,
                                                                    fragment):
    doc = _model(root, name)
    change(doc)
    path = _write(tmp_path, doc)
    code = main(["predict", str(path), str(_scored_csv(root, tmp_path, name)), "-q"])
    err = capsys.readouterr().err
    assert code == 1, err
    assert err.startswith(f"{path}: error: damaged model file (") and fragment in err.split("\n")[0], err
    assert "internal error" not in err
    # the entry is named in words, not by the Python exception that reading it raised
    assert "Error" not in err.split("\n")[0], err


def test_the_undamaged_models_score_the_rows(root, tmp_path, capsys):
    for name in DATA:
        path = _write(tmp_path, _model(root, name))
        assert main(["predict", str(path), str(_scored_csv(root, tmp_path, name)), "-q"]) == 0, capsys.readouterr().err


@pytest.mark.parametrize("name, change", [
    ("adult_tree", lambda d: _est(d)["nodes"][0].update(left=0)),
    ("adult_tree", lambda d: _est(d)["nodes"][0].update(right=0)),
    ("compas_baseline", lambda d: _est(d)["tree"]["left"].__setitem__(0, 0)),
])
def test_a_model_file_whose_tree_loops_is_refused_at_load(root, tmp_path, name, change):
    # asserted on the load alone: scoring such a file used to spin forever
    doc = _model(root, name)
    change(doc)
    path = _write(tmp_path, doc)
    with pytest.raises(ModelFileError, match=rf"^{path}: error: damaged model file \(.*child 0 is not a node after it"):
        LoadedModel.read(path)


@pytest.mark.parametrize("literal, problem", [
    ("1" * 5000, "model.training.fit_log is out of range"),  # json.loads alone: ValueError, no JSONDecodeError
    ("1" + "0" * 400, "model.training.fit_log is out of range"),
    ("NaN", "model.training.fit_log is NaN"),
    ("[" * 100_000 + "]" * 100_000, "JSON nested too deeply"),
], ids=["5000 digits", "10**400", "NaN", "nested"])
def test_predict_and_report_refuse_the_same_damaged_model_file_alike(root, tmp_path, capsys, literal, problem):
    # both read model.json with fairspec.pipeline.files.read_json; predict said "a number of more
    # than 4,300 digits" where report named the place, and took NaN and a 401-digit integer in
    # the fit log, which report refused
    run = shutil.copytree(root / "reports" / "adult_tree", tmp_path / "run")
    doc = _model(root, "adult_tree")
    doc["training"]["fit_log"] = "HERE"
    path = _write(run, None, json.dumps(doc).replace('"HERE"', literal))
    expected = f"{path}: error: damaged model file ({problem})\n"
    assert main(["predict", str(path), str(_scored_csv(root, tmp_path, "adult_tree")), "-q"]) == 1
    assert capsys.readouterr().err == expected
    assert main(["report", str(run), "-q"]) == 1
    assert capsys.readouterr().err == expected


def test_from_document_names_the_source_for_the_families_own_errors(root):
    doc = copy.deepcopy(_model(root, "adult_tree"))
    _est(doc)["kind"] = "something_else"
    with pytest.raises(ModelFileError,
                       match=r"^elsewhere/model\.json: error: damaged model file \(not a missing-aware"):
        LoadedModel.from_document(doc, "elsewhere/model.json")


def test_report_on_a_file_whose_format_is_not_text_is_refused(tmp_path, capsys):
    # `"format": []` was an internal error (unhashable type) instead of "not fairspec's"
    (tmp_path / "model.json").write_text('{"format": [], "format_version": 1}')
    (tmp_path / "metrics.json").write_text('{"format": {}, "format_version": 1}')
    assert main(["report", str(tmp_path), "-q"]) == 1
    assert "internal error" not in capsys.readouterr().err


@pytest.mark.parametrize("literal", ["true", "1.0"])
def test_a_format_version_no_fairspec_wrote_is_refused_by_predict_and_report(root, tmp_path, capsys, literal):
    # true and 1.0 equal 1 in Python, and both commands read such a file as format 1
    run = shutil.copytree(root / "reports" / "compas_baseline", tmp_path / "run")
    text = (run / "model.json").read_text(encoding="utf-8")
    (run / "model.json").write_text(text.replace('"format_version": 1,', f'"format_version": {literal},', 1),
                                    encoding="utf-8")
    assert main(["predict", str(run), str(_scored_csv(root, tmp_path, "compas_baseline")), "-q"]) == 1
    assert "model file format" in capsys.readouterr().err
    assert main(["report", str(run), "-q"]) == 1
    assert "model file format" in capsys.readouterr().err
    metrics = run / "metrics.json"
    shutil.copy(root / "reports" / "compas_baseline" / "model.json", run / "model.json")
    text = metrics.read_text(encoding="utf-8")
    metrics.write_text(text.replace('"format_version": 1,', f'"format_version": {literal},', 1), encoding="utf-8")
    assert main(["report", str(run), "-q"]) == 1
    assert "metrics file format" in capsys.readouterr().err


def test_a_key_repeated_in_one_object_is_refused_by_predict_and_report(root, tmp_path, capsys):
    # Python kept the last value, a viewer may show the first: "classes": [1, 0], "classes": [0, 1]
    # read as one model here and another there (found in review)
    run = shutil.copytree(root / "reports" / "compas_baseline", tmp_path / "run")
    text = (run / "model.json").read_text(encoding="utf-8")
    assert text.count('"classes": [\n') == 1
    (run / "model.json").write_text(text.replace('"classes": [\n', '"classes": [1, 0], "classes": [\n', 1),
                                    encoding="utf-8")
    expected = (f"{run / 'model.json'}: error: damaged model file (the key 'classes' appears twice in one object; "
                "no file fairspec writes repeats one)\n")
    assert main(["predict", str(run), str(_scored_csv(root, tmp_path, "compas_baseline")), "-q"]) == 1
    assert capsys.readouterr().err == expected
    assert main(["report", str(run), "-q"]) == 1
    assert capsys.readouterr().err == expected


@pytest.mark.parametrize("which", ["model.json", "metrics.json"])
def test_a_document_nested_hundreds_deep_is_refused_by_predict_and_report(root, tmp_path, capsys, which):
    # 600 lists deep in the fit log made `fairspec report` an internal error (RecursionError)
    run = shutil.copytree(root / "reports" / "compas_baseline", tmp_path / "run")
    doc = json.loads((run / which).read_text(encoding="utf-8"))
    (doc["training"] if which == "model.json" else doc)["deep"] = json.loads("[" * 600 + "]" * 600)
    (run / which).write_text(json.dumps(doc), encoding="utf-8")
    for argv in (["report", str(run)], ["predict", str(run), str(_scored_csv(root, tmp_path, "compas_baseline"))]):
        if which == "metrics.json" and argv[0] == "predict":
            continue  # predict reads the model alone
        assert main([*argv, "-q"]) == 1
        err = capsys.readouterr().err
        kind = which.split(".")[0]
        assert f"damaged {kind} file ({kind}" in err and "... is nested more than 100 deep)" in err, err
        assert "internal error" not in err
