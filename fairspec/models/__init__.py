"""Model families: one module (or package) per published method, all with one contract.

A family module named in :data:`fairspec.registry.families.FAMILIES` provides

``build_estimator(recipe, criterion, solver, *, categorical_features, seed) -> estimator``
    ``recipe`` is a :class:`~fairspec.plan.plan.ModelRecipe` (family parameters with
    defaults filled in, nested blocks as dicts), ``criterion`` a
    :class:`~fairspec.registry.criteria.Criterion` or ``None``, ``solver`` the
    :class:`~fairspec.plan.plan.SolverSettings`, ``categorical_features`` the column
    indices of ``X`` holding integer category codes.

``estimator_from_json(doc) -> estimator``
    Rebuild a fitted estimator from what its ``to_json()`` wrote; it predicts exactly as the
    original did.  Only data is read, never code.  A document it cannot rebuild raises a
    ``ValueError`` (:class:`~fairspec.errors.ModelFileError` is one) in every family.

and, if the family is solver-backed, ``emit_model(estimator, X, y, sensitive_features, path)``
writing its optimisation model in LP or MPS format.

Every estimator is scikit-learn compatible (``get_params``/``set_params``; learned state
ends in ``_``; scikit-learn's own ``check_estimator`` passes, see
``tests/models/test_sklearn_conformance.py``) and implements

* ``fit(X, y, sensitive_features=None)`` — ``X`` a float array ``(n, p)`` with ``NaN`` for
  missing values (categorical columns as codes 0..k-1), ``y`` any two labels (``classes_``,
  sorted; ``classes_[1]`` is the positive class, the pipeline's 1), ``sensitive_features``
  an array of group labels (needed only when fairness is enforced);
* ``predict(X)`` → labels of ``classes_``; ``predict_proba(X)`` → ``(n, 2)``;
* ``to_json()`` → a JSON-able dict with at least ``{"kind": ...}``;
* ``describe(feature_names, categories, class_names, imputed=False)`` → list of readable lines
  (``categories`` maps a categorical column index to its category names, so code 2 prints as
  its name; ``class_names``, negative then positive, name the classes instead of ``classes_``:
  the pipeline fits on 0/1 and shows the labels as its data spells them; ``imputed``: the
  caller fills in every missing value first, so the text must not say where one goes);
* ``fit_log_`` → dict: ``status`` (``optimal``, ``time_limit``, ``heuristic``, ...), ``mip_gap``
  (or ``None``), ``seconds`` and anything family-specific worth showing a reviewer.
"""
