"""The data stage: read a table, keep the rows a spec asks for, and encode it for a model.

Nothing here knows about the language or about models: it takes column names and plain
values, and gives back frames, arrays and JSON-able encoders.
"""
from fairspec.data.table import apply_filters, column_kind, file_sha256, read_table

__all__ = ["read_table", "apply_filters", "column_kind", "file_sha256"]
