"""The model section: how the model reads, in the form a reviewer can check by hand.

Every family's text (``describe()``, written to model.json) is shown line by line, indented as
written and wrapped with a hanging indent, never cut off; branches that no training row reached
(every leaf under them with n=0: a trinary tree's third child where no row missed the feature)
are left out, with a note saying how many.  A family can show a table in place of its text
through :data:`MODEL_VIEWS`: the logistic baseline its coefficients per standard deviation,
sorted by effect; the rule set its rules with their coverage and precision.  A family can add a
figure through :data:`MODEL_FIGURES`: Fair MP-Boost its averaged feature sampling probabilities
and how often each class and group's rows were drawn (its fit log's ``feature_probabilities``
and ``row_probability_summary``).  Then the notes on reading the text (missing values, unseen
categories), the parameters and the imputed values.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass


from fairspec.report.figures import COLOURS, new_figure, short, styled, svg_text
from fairspec.report.format import UNDEFINED, KeyValue, fmt_count, fmt_rate, fmt_sig, fmt_value, key_value
from fairspec.report.labels import category_labels, labelled
from fairspec.report.sections.base import RunDocuments
from fairspec.report.sections.figures import FigureView


@dataclass(frozen=True)
class ModelLine:
    """One line of the model's text: ``pad`` is its indentation in characters."""

    pad: int
    text: str


@dataclass(frozen=True)
class ModelTable:
    """A family's table in place of its text (coefficients, rules)."""

    caption: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    notes: tuple[str, ...] = ()
    #: columns printed as numbers (right-aligned), by index
    numeric: tuple[int, ...] = ()


@dataclass(frozen=True)
class ModelView:
    family: str
    estimator_kind: str
    params: tuple[KeyValue, ...]
    text: str  # model.text joined by newlines (as model.json has it)
    missing: str
    impute_values: tuple[KeyValue, ...]
    #: how the text above reads a row with a missing value or an unseen category
    reading: tuple[str, ...] = ()
    lines: tuple[ModelLine, ...] = ()
    #: "3 branches that no training row reached are not shown ..." ("" when none)
    hidden_note: str = ""
    table: ModelTable | None = None
    #: the lines past :data:`MODEL_LINES_SHOWN`, folded (a boosted ensemble's hundreds of trees)
    rest: tuple[ModelLine, ...] = ()
    #: a family's figure (:data:`MODEL_FIGURES`), None for the others
    figure: FigureView | None = None


#: the lines of a model's text shown open; the rest are folded on screen and left out of print
#: (model.json, whose SHA-256 the header gives, holds them): a 100-tree ensemble's 2,274 lines had
#: made the report 64 screens and 44 printed pages
MODEL_LINES_SHOWN = 80


#: a leaf's row count in a tree's text: "leaf: 1  (p=0.56, n=0)"
_LEAF_N = re.compile(r"\bleaf: .*\bn=(\d+)")


def shown_lines(text: list[str]) -> tuple[tuple[ModelLine, ...], int]:
    """The lines of a model's text without the branches no training row reached (every leaf
    under the branch has n=0), and how many branches were left out."""
    lines = [str(line) for line in text]
    indents = [len(line) - len(line.lstrip(" ")) for line in lines]
    keep = [True] * len(lines)
    hidden = 0
    i = 0
    while i < len(lines):
        end = i + 1
        while end < len(lines) and indents[end] > indents[i]:
            end += 1
        leaves = [_LEAF_N.search(lines[k]) for k in range(i + 1, end)]
        leaves = [m for m in leaves if m]
        if end > i + 1 and leaves and all(m.group(1) == "0" for m in leaves) and not _LEAF_N.search(lines[i]):
            keep[i:end] = [False] * (end - i)
            hidden += 1
            i = end
            continue
        i += 1
    return tuple(ModelLine(indents[k], lines[k].lstrip(" ")) for k in range(len(lines)) if keep[k]), hidden


def _model(model_doc: dict) -> ModelView:
    model = model_doc.get("model") or {}
    prep = model_doc.get("preprocessing") or {}
    missing = prep.get("missing") or {}
    strategy = missing.get("strategy")
    if strategy == "impute":
        extra = f" k={missing.get('k')}" if missing.get("k") else ""
        missing_text = f"impute({missing.get('impute_method')}{extra})"
    else:
        missing_text = str(strategy) if strategy else UNDEFINED
    text = model.get("text") or []
    if isinstance(text, str):
        text = [text]
    return ModelView(
        family=str(model.get("family") or UNDEFINED),
        estimator_kind=str((model.get("estimator") or {}).get("kind") or UNDEFINED),
        params=tuple(key_value(k, v) for k, v in sorted((model.get("params") or {}).items())),
        text="\n".join(str(line) for line in text) if text else "(the model family gave no readable form)",
        missing=missing_text,
        impute_values=_impute_values(prep),
        reading=_reading_notes(str(model.get("family")), strategy, model_doc.get("schema") or {}, text,
                               "class_names" in model, _tree_scoring(model.get("estimator")),
                               _bootstrapped(model.get("params"))),
    )


def _bootstrapped(params) -> bool:
    """Whether the model's forest drew a bootstrap sample for each tree (the default)."""
    forest = params.get("forest") if isinstance(params, dict) else None
    return isinstance(forest, dict) and forest.get("bootstrap", True) is not False


def _tree_scoring(estimator) -> str | None:
    """``"forest"``, ``"relabelled"`` (a single tree whose leaves the fairness bound relabelled)
    or None: the trees that score a row by their leaves' labels, not by the ``p`` the text shows.
    Read from the estimator, not the text: a relabelling that changed no leaf marks none, yet
    the tree then scores by labels (found in review: under fractional, two trees with the same
    text scored one row 0.38 and 0.57)."""
    if not isinstance(estimator, dict):
        return None
    if isinstance(estimator.get("trees"), list):
        return "forest"
    return "relabelled" if estimator.get("relabelled") is True else None


def _impute_values(prep: dict) -> tuple[KeyValue, ...]:
    """The value ``impute(...)`` fills each feature with, as the data spells it: the fitted
    imputer's ``fill`` (an encoded number: a category's code) named through the encoder.  The
    report had read a key no run writes, so the section never showed, and a reviewer could not
    score a row with a missing value by hand.  Numbers print exactly; under kNN a numeric
    feature has no one value."""
    imputer, encoder = prep.get("imputer"), prep.get("encoder")
    if not (isinstance(imputer, dict) and isinstance(encoder, dict)):
        return ()
    fill, names, categories = imputer.get("fill"), encoder.get("names"), encoder.get("categories")
    if not (isinstance(fill, list) and isinstance(names, list) and len(fill) == len(names)):
        return ()
    categories = categories if isinstance(categories, list) and len(categories) == len(names) else [None] * len(names)
    rows = []
    for name, value, cats in zip(names, fill, categories):
        if isinstance(cats, list):
            code = value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
            known = code is not None and float(code).is_integer() and 0 <= code < len(cats)
            text = str(cats[int(code)]) if known else fmt_value(value)
            text += " (the most frequent category)" if known else ""
        elif imputer.get("method") == "knn":
            text = f"the mean of its {fmt_value(imputer.get('k'))} nearest training rows (kNN)"
        elif isinstance(value, float):
            text = repr(value)  # exact: a hand-computed score uses it
        else:
            text = fmt_value(value)
        rows.append(KeyValue(str(name), text))
    reference = imputer.get("reference")
    if imputer.get("method") == "knn" and isinstance(reference, list):
        # kNN keeps its neighbours: handing out the model file hands out these records
        rows.append(KeyValue("kNN reference rows", f"model.json holds the feature values of {len(reference):,} "
                                                   "training rows, which kNN imputes from: whoever has the "
                                                   "model file has those records"))
    return tuple(rows)


#: the tree family's own ways of routing a missing value (fairspec.models.tree.split_search),
#: in a reviewer's words; the model text shows where each split sends one
STRATEGY_MEANINGS = {
    "mia": "Missing values (mia, Missing Incorporated in Attributes): each split also chose, on the training rows, "
           'the branch a row missing its feature takes, marked "(or missing)"; a split may also separate '
           "present from missing values.",
    "trinary": "Missing values (trinary, Trinary trees): a row missing a split's feature goes to that split's third "
               "child, shown after its two branches.",
    "trinary_mia": "Missing values (trinary_mia): each split chose, on the training rows, the better of sending a row "
                   'missing its feature down one branch (marked "(or missing)") or to a third child grown for such '
                   "rows.",
    "majority": "Missing values (majority): a row missing a split's feature takes the branch that more training rows "
                'took, marked "(or missing)".',
    "fractional": "Missing values (fractional cases, C4.5): a row missing a split's feature goes down both branches, "
                  "weighted by the training rows' shares, and its score mixes the leaves it reaches.",
    "impute": "Missing values (impute): every missing value is filled in before the model reads it, with the value "
              "learned on the training rows (listed below), so the model itself never sees one.",
    "drop": "Missing values (drop): training rows with a missing feature were left out, and a row with one cannot "
            "be scored.",
}


def _reading_notes(family: str, strategy, schema: dict, text: list, classes_named: bool = True,
                   tree_scoring: str | None = None, bootstrapped: bool = False) -> tuple[str, ...]:
    """What the model's text leaves unsaid: what a leaf's ``p`` is (over a forest tree's
    bootstrap sample when ``bootstrapped``), and whether the score reads
    it (``tree_scoring``, :func:`_tree_scoring`); a rule's condition on a
    missing value; and a category training never saw, which the encoder reads as missing
    (``fairspec.data.prepare``).  A reviewer evaluating ``color != red`` on ``purple`` by hand
    would otherwise expect the opposite of the score."""
    notes = []
    target = schema.get("target") or {}
    positive = "" if "positive" not in target else f" ({target.get('name')} = {target.get('positive')})"
    if not classes_named and any(("leaf: " in str(line) or "THEN " in str(line) or "predict positive" in str(line))
                                 for line in text):
        # written before 2026-11-24: the text shows the fit's 0/1 coding, whatever the data says
        notes.append(f"This text names the classes 1, the positive class{positive}, and 0, the other "
                     f"(written before fairspec named them as the data spells them).")
    if any("leaf: " in str(line) and "(p=" in str(line) for line in text):
        shows = "shows the class it predicts" if classes_named else "shows 1 when it predicts the positive class"
        leaf = (f"A leaf {shows}; p is the share of the positive class{positive} "
                f"among its training rows, n their number.")
        if tree_scoring == "forest" and bootstrapped:
            # each tree is grown on its own bootstrap sample: a reviewer counting the training
            # rows that reach a leaf could not match p or n (found in review)
            leaf += (" In a forest, those are the rows of the tree's own bootstrap sample: n counts the distinct "
                     "training rows drawn for it, and p weighs each by the number of times it was drawn.")
        notes.append(leaf)
    lines = [str(line) for line in text]
    # under fractional cases a row reaches several leaves, weighted
    mixed = (" (a row missing a split's feature: the weighted share of the leaves it reaches whose label is the "
             "positive class)" if strategy == "fractional" else "")
    if tree_scoring == "relabelled":
        notes.append(f"The leaves were relabelled for the fairness bound: a row is scored by the label of the leaf "
                     f"it reaches, 1 for the positive class or 0{mixed}, not by p.")
    elif tree_scoring == "forest":
        notes.append(f"The forest scores a row by the mean of its trees' votes; a tree votes with the label of the "
                     f"leaf the row reaches, 1 for the positive class or 0{mixed}, not with p.")
    if any("relabelled for the fairness bound" in line for line in lines):
        notes.append('A leaf marked "relabelled for the fairness bound" predicts the class that is not '
                     "the majority of its training rows: the integer program that meets the bound chose it.")
    if any("(third child" in line for line in lines):
        notes.append("A third child takes the rows missing its node's split feature (Trinary, Algorithm 1). It is "
                     "grown on all of its node's rows without that feature, at its node's depth: its leaves' n "
                     "count rows the other children count too, and a path through it can hold more splits than "
                     "the depth.")
    if any("missing: weight " in line for line in lines):
        notes.append("A row missing a split's feature goes down both branches with the weights shown (fractional "
                     "cases), and its score mixes the leaves it reaches; n counts it in each of them.")
    if family == "rule_set" and strategy not in ("impute", "drop"):
        notes.append('A condition on a missing value is false unless it says "(or missing)".')
    elif family != "rule_set" and isinstance(strategy, str) and strategy in STRATEGY_MEANINGS:
        notes.append(STRATEGY_MEANINGS[strategy])
    if any("another category" in line for line in lines):
        notes.append('"(or another category)" marks the branch taken by a category the split does not list: one '
                     "that none of this node's training rows held, or one never seen in training.")
    if any(f.get("kind") == "categorical" for f in schema.get("features") or []):
        unseen = "A category not seen in the training rows is read as a missing value"
        notes.append({"impute": unseen + ", and filled in as one (the imputed values below).",
                      "drop": unseen + ": as a row with a missing value, such a row cannot be scored."}
                     .get(strategy if isinstance(strategy, str) else "", unseen + "."))
    return tuple(notes)




# --------------------------------------------------------------------------- family tables

def _feature_names(model_doc: dict) -> list[dict]:
    return [f for f in (model_doc.get("schema") or {}).get("features") or [] if isinstance(f, dict)]


def logistic_table(model_doc: dict, metrics_doc: dict) -> ModelTable | None:
    """The logistic baseline's coefficients: a numeric feature's per standard deviation of the
    feature over the rows used (``data_summary.feature_sd``), a category's per unit (the change
    when a row holds it rather than the first category), sorted by the size of that effect."""
    estimator = (model_doc.get("model") or {}).get("estimator") or {}
    linear, layout = estimator.get("linear"), estimator.get("layout")
    features = _feature_names(model_doc)
    if not (isinstance(linear, dict) and isinstance(layout, list) and features):
        return None
    coef = linear.get("coef") or []
    if len(coef) != len(layout):
        return None
    sds = {r.get("name"): r.get("sd") for r in (metrics_doc.get("data_summary") or {}).get("feature_sd") or []
           if isinstance(r, dict)}
    labels = category_labels(model_doc)
    rows = []
    for c, entry in zip(coef, layout):
        feature = features[entry.get("column", 0)] if entry.get("column", 0) < len(features) else {}
        name = str(feature.get("name"))
        code = entry.get("code")
        if code is None:
            sd = sds.get(name)
            effect = None if sd is None else c * sd
            rows.append((abs(effect if effect is not None else c), name, "numeric",
                         fmt_sig(c, signed=True), fmt_sig(sd) if sd is not None else UNDEFINED,
                         fmt_sig(effect, signed=True) if effect is not None else UNDEFINED))
        else:
            categories = feature.get("categories") or []
            value = categories[int(code)] if float(code).is_integer() and 0 <= code < len(categories) else code
            rows.append((abs(c), f"{name} = {labelled(name, value, labels)}", "category (0 or 1)",
                         fmt_sig(c, signed=True), "—", fmt_sig(c, signed=True)))
    rows.sort(key=lambda r: (-r[0], r[1]))
    names = (model_doc.get("model") or {}).get("class_names") or ["0", "1"]
    return ModelTable(
        caption="Logistic regression: each term's effect on the score, largest first",
        columns=("Term", "Kind", "Coefficient (per unit)", "SD of the feature", "Effect (per SD, or per category)"),
        rows=tuple(r[1:] for r in rows), numeric=(2, 3, 4),
        notes=(f"score = {fmt_sig(linear.get('intercept'), 4, signed=True)} + the sum of the terms; the model predicts "
               f"{names[-1]} when the score is above 0 (a probability above 0.5), else {names[0]}.",
               "A numeric feature's effect is its coefficient times its standard deviation over the rows used: how "
               "far the score moves for one standard deviation of the feature. A category's effect is its "
               "coefficient: how far the score moves for a row in that category. Sorted by the size of that "
               "effect; numbers to three significant digits (model.json holds them exactly)."))


def rule_table(model_doc: dict, metrics_doc: dict) -> ModelTable | None:
    """The rule set's rules, each with the training rows it covers and the share of them that
    are positive (its precision), as the fit measured them."""
    model = model_doc.get("model") or {}
    rules = (model.get("estimator") or {}).get("rules")
    text = [str(line) for line in model.get("text") or []]
    if not isinstance(rules, list) or not rules or len(text) != len(rules) + 1:
        return None
    rows_train = (metrics_doc.get("data_summary") or {}).get("rows_train") or (model_doc.get("data") or {}).get(
        "rows_used")
    names = model.get("class_names") or ["0", "1"]
    out = []
    for k, (rule, line) in enumerate(zip(rules, text)):
        condition = re.sub(r"^(ELSE )?IF ", "", line)
        condition = re.sub(r" THEN \S+$", "", condition)
        support = rule.get("support")
        share = f" ({support / rows_train:.1%})" if isinstance(support, int) and rows_train else ""
        out.append((str(k + 1), condition, fmt_count(support) + share, fmt_rate(rule.get("precision"))))
    uncovered = (model.get("estimator") or {}).get("uncovered_positive_rate")
    return ModelTable(
        caption=f"Rules: a row is predicted {names[-1]} when any rule holds, else {names[0]}",
        columns=("#", "Rule", "Training rows it holds for", "Precision (share positive)"),
        rows=tuple(out), numeric=(2, 3),
        notes=(f"Coverage and precision are measured on the training rows, each rule on its own (rows may satisfy "
               f"several rules). Of the training rows no rule holds for, {fmt_rate(uncovered)} are positive."
               if uncovered is not None else "Coverage and precision are measured on the training rows.",))


#: family -> a function giving the table shown in place of its text (None: show the text)
MODEL_VIEWS: dict[str, Callable[[dict, dict], ModelTable | None]] = {
    "baseline": logistic_table,
    "rule_set": rule_table,
}


# --------------------------------------------------------------------------- family figures

def _mp_boost_feature_probabilities(model_doc: dict, metrics_doc: dict) -> list[float] | None:
    """The averaged feature probabilities q: the model file's (whose SHA-256 the header gives),
    else the fit log's in metrics.json (rounded to 6 decimals)."""
    estimator = (model_doc.get("model") or {}).get("estimator") or {}
    for q in (estimator.get("feature_probabilities"),
              (metrics_doc.get("training_log") or {}).get("feature_probabilities")):
        if isinstance(q, list) and q and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in q):
            return [float(v) for v in q]
    return None


def _model_feature_names(model_doc: dict, n: int) -> list[str]:
    """The names of the model's ``n`` input columns: the spec's features in the order the encoder
    wrote them (one column each), else ``x0``, ``x1``, ..."""
    encoder = (model_doc.get("preprocessing") or {}).get("encoder") or {}
    for names in (encoder.get("names"), [f.get("name") for f in _feature_names(model_doc)]):
        if isinstance(names, list) and len(names) == n:
            return [str(name) for name in names]
    return [f"x{j}" for j in range(n)]


def mp_boost_figure(model_doc: dict, metrics_doc: dict, suffix: str = "") -> FigureView | None:
    """Fair MP-Boost's fit log as a figure: each feature's averaged sampling probability q (its
    feature importance; the dashed line is 1/p, what uniform draws over the p features give),
    and, when the log has it, how often each class (and group) was drawn against its share of the
    rows (``draws_per_uniform``: 1 = as often as uniform draws).  Adaptive probabilities are the
    method (Toghani and Allen, MP-Boost, Algorithm 1; Little, Halder Lina and Allen, Fair MP-Boost,
    arXiv 2404.01521): a reviewer sees where the fairness
    weight alpha moved the draws, which the model text lists only as numbers."""
    q = _mp_boost_feature_probabilities(model_doc, metrics_doc)
    if q is None:
        return None
    names = _model_feature_names(model_doc, len(q))
    order = sorted(range(len(q)), key=lambda j: (-q[j], names[j]))
    summary = [r for r in ((metrics_doc.get("training_log") or {}).get("row_probability_summary") or [])
               if isinstance(r, dict) and isinstance(r.get("draws_per_uniform"), (int, float))]
    classes = (model_doc.get("model") or {}).get("class_names") or ["0", "1"]
    with styled():
        height = 0.9 + 0.24 * len(q) + (0.9 + 0.24 * len(summary) if summary else 0)
        fig = new_figure(height)
        grid = fig.add_gridspec(2 if summary else 1, 1,
                                height_ratios=[len(q) + 2, len(summary) + 2] if summary else None)
        ax = fig.add_subplot(grid[0])
        ys = list(range(len(order)))[::-1]
        ax.barh(ys, [q[j] for j in order], color=COLOURS[0], height=0.6)
        ax.set_yticks(ys, [short(names[j], 28) for j in order])
        ax.axvline(1 / len(q), color="#5c6670", linestyle=(0, (5, 3)), linewidth=1,
                   label=f"uniform draws, 1/{len(q)} = {1 / len(q):.3f}")
        ax.set_xlim(0, max(max(q), 1 / len(q)) * 1.12)
        ax.set_xlabel("averaged feature sampling probability q (feature importance)")
        ax.grid(True, axis="x", color="#e6eaee", linewidth=0.6)
        ax.legend(loc="lower right", frameon=False, fontsize=7.5)
        if summary:
            bx = fig.add_subplot(grid[1])
            labels = []
            for r in summary:
                label = r.get("label")
                cls = classes[int(label)] if label in (0, 1) and len(classes) == 2 else str(label)
                labels.append(short(f"{cls}" + (f", {r['group']}" if r.get("group") is not None else ""), 36))
            ys = list(range(len(summary)))[::-1]
            bx.barh(ys, [float(r["draws_per_uniform"]) for r in summary], color=COLOURS[1], height=0.6)
            bx.set_yticks(ys, labels)
            bx.axvline(1.0, color="#5c6670", linestyle=(0, (5, 3)), linewidth=1, label="as often as uniform draws")
            bx.set_xlim(0, max([1.0] + [float(r["draws_per_uniform"]) for r in summary]) * 1.12)
            bx.set_xlabel("draws of the class (and group) per uniform draw")
            bx.grid(True, axis="x", color="#e6eaee", linewidth=0.6)
            bx.legend(loc="lower right", frameon=False, fontsize=7.5)
        svg = svg_text(fig, f"mp-boost{suffix}", "Fair MP-Boost: each feature's averaged sampling probability"
                                                  + (" and each class and group's draws" if summary else ""))
    log = metrics_doc.get("training_log") or {}
    caption = ("Fair MP-Boost draws each round's minipatch of features and rows by adaptive probabilities. Top: each "
               "feature's sampling probability averaged over the "
               + (f"{log['averaged_rounds']} " if isinstance(log.get("averaged_rounds"), int) else "")
               + "kept rounds after the burn-in, the method's feature importance; the dashed line is what uniform "
                 "draws would give. ")
    if summary:
        caption += ("Bottom: each class (and group) of training rows, its share of the averaged row probability over "
                    "its share of the rows: above 1, its rows were drawn more often than uniform draws would draw "
                    "them. ")
    alpha = log.get("alpha")
    if isinstance(alpha, (int, float)):
        caption += (f"Fairness weight alpha = {float(alpha):.3g} (0: accuracy alone, 1: fairness alone). "
                    "The numbers are in the fit log (appendix).")
    return FigureView("mp-boost", "Fair MP-Boost: what the fit drew", svg, caption.strip())


#: family -> a function giving a figure shown with the model (None: no figure)
MODEL_FIGURES: dict[str, Callable[[dict, dict, str], FigureView | None]] = {
    "mp_boost": mp_boost_figure,
}


def build(docs: RunDocuments) -> ModelView:
    view = _model(docs.model_doc)
    family = (docs.model_doc.get("model") or {}).get("family")
    maker = MODEL_VIEWS.get(str(family))
    table = maker(docs.model_doc, docs.metrics_doc) if maker else None
    drawer = MODEL_FIGURES.get(str(family))
    figure = drawer(docs.model_doc, docs.metrics_doc, docs.suffix) if drawer else None
    text = (docs.model_doc.get("model") or {}).get("text") or []
    lines, hidden = shown_lines([text] if isinstance(text, str) else list(text))
    note = ""
    if hidden:
        note = (f"{hidden} branch{'es' if hidden > 1 else ''} that no training row reached (n=0 in every leaf below "
                f"{'them' if hidden > 1 else 'it'}) {'are' if hidden > 1 else 'is'} not shown; model.json holds the "
                "full text.")
    return ModelView(**{**view.__dict__, "lines": lines[:MODEL_LINES_SHOWN], "rest": lines[MODEL_LINES_SHOWN:],
                        "hidden_note": note, "table": table, "figure": figure})
