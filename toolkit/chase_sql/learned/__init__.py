"""Models trained here from a transformers config: the SQL generator (served by `hf:`) and the pairwise selector."""
