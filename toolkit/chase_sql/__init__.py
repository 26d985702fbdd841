"""CHASE-SQL: multi-path candidate generation and pairwise candidate selection for text-to-SQL."""

from toolkit.chase_sql.data import Dataset, Example, load_dataset
from toolkit.chase_sql.evaluation import bird_ex, spider_ex, spider_rows_equal, summarize
from toolkit.chase_sql.executor import ExecResult, Executor, UnsafeSQL, check_read_only, execute_sql
from toolkit.chase_sql.pipeline import PipelineConfig, Resources, answer
from toolkit.chase_sql.selection import clusters, self_consistency, tournament
from toolkit.chase_sql.values import ValueIndex, build_index

__all__ = ["Dataset", "Example", "load_dataset", "bird_ex", "spider_ex", "spider_rows_equal", "summarize",
           "ExecResult", "Executor", "UnsafeSQL", "check_read_only", "execute_sql", "PipelineConfig", "Resources",
           "answer", "clusters", "self_consistency", "tournament", "ValueIndex", "build_index"]
