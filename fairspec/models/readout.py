"""How the families print a value in a rule or a branch that a reviewer reads.

What a reviewer reads must be what the model applies: a category is shown by its name only
when the model compares with that name's integer code, and any other number is shown whole.
"""
from __future__ import annotations

import json
import re

import numpy as np

from fairspec.errors import written_name

#: a category name shown bare: letters, digits and ``_ . + -`` (``African-American``, ``F``);
#: anything else (a space, ``OR``, an operator, nothing at all) is quoted
_BARE = re.compile(r"[\w.+\-]+")
#: one plain word that still reads as part of a rule or a branch, so it is quoted too: a
#: category ``OR`` in ``x == OR`` reads as a broken condition, ``missing`` as a missing value
_READ_AS_SYNTAX = frozenset({"and", "or", "not", "if", "then", "else", "in", "is", "missing", "present",
                             "always", "leaf"})


def shown_classes(estimator, class_names=None) -> list:
    """The two labels a read-out gives the classes, negative then positive: ``class_names``
    when given (the pipeline's, as its data spells them: its estimators are fitted on 0/1),
    else the classifier's ``classes_``, the labels ``predict`` returns."""
    labels = estimator.classes_ if class_names is None else class_names
    if len(labels) != 2:
        raise ValueError(f"class_names must be two labels, negative then positive; got {class_names!r}")
    # quoted as a category is, unless one plain word: THEN say "yes" read as a broken rule
    return [_name_text(str(label.item() if isinstance(label, np.generic) else label)) for label in labels]


def signed_number_text(value: float) -> str:
    """:func:`number_text` with its sign: ``+0.5``, ``-0.00003351``."""
    text = number_text(value)
    return text if text.startswith("-") else "+" + text


def column_names(estimator, feature_names=None):
    """The names a read-out gives the columns: ``feature_names`` when given, else the
    DataFrame's that ``fit`` saw (``feature_names_in_``), else None (``x0``, ``x1``, ...)."""
    return feature_names if feature_names is not None else getattr(estimator, "feature_names_in_", None)


def number_text(value: float) -> str:
    """The shortest text that reads back as the same float (``:g`` wrote 1234567 as 1.23457e+06):
    positional from 1e-6 to below 1e16, where a reader counts the digits, and in scientific
    notation beyond (positional, a split point of 1e300 had printed as 301 digits)."""
    x = float(value)
    if x == 0 or not np.isfinite(x) or 1e-6 <= abs(x) < 1e16:
        return np.format_float_positional(x, trim="-")
    return np.format_float_scientific(x, trim="-")


def _name_text(text: str) -> str:
    """A name as a read-out shows it: bare when one plain word that does not read as syntax."""
    plain = _BARE.fullmatch(text) and text.lower() not in _READ_AS_SYNTAX
    return text if plain else json.dumps(text, ensure_ascii=False)


def feature_text(name) -> str:
    """A column's name as a read-out shows it: bare when the spec may write it bare (the
    grammar's ``NAME``: a letter or ``_`` then word characters) and it does not read as syntax;
    otherwise between backticks, as a spec quotes it (``credit amount`` <= 5 would read as a
    condition on ``amount``).  A name a spec cannot quote (a backtick or a line break in it)
    is shown as a JSON string."""
    text = str(name)
    if "`" in text or "\n" in text or "\r" in text or not text:
        return json.dumps(text, ensure_ascii=False)
    return f"`{text}`" if text.lower() in _READ_AS_SYNTAX else written_name(text)


def category_text(code: float, names=None) -> str:
    """A categorical value as a condition shows it: its name when ``code`` is a whole number
    naming one of ``names``, quoted unless it is one plain word; otherwise the number itself
    (``int(1.5)`` printed 1, or the name of category 1, for a model that tests 1.5)."""
    code = float(code)
    if code.is_integer() and names is not None and 0 <= int(code) < len(names):
        return _name_text(str(names[int(code)]))
    return number_text(code)
