"""Generated text-to-SQL worlds in BIRD layout: random schemas, values, and templated questions with gold SQL."""

from toolkit.chase_sql.world.build import WorldReport, verify_world, write_world
from toolkit.chase_sql.world.vocab import SPLITS, split_vocabulary

__all__ = ["SPLITS", "WorldReport", "split_vocabulary", "verify_world", "write_world"]
