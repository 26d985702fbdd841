"""Shared machinery: records, errors, LLM backends, parallel execution, model loading."""

from toolkit.core.errors import InputError, ReasonError, RuntimeFailure
from toolkit.core.records import RecordWriter, make_record, read_records

__all__ = ["InputError", "ReasonError", "RecordWriter", "RuntimeFailure", "make_record", "read_records"]
