"""How Matcha's rounds turn into one output: the step on γ over the rounds and the round that is returned.

The paper's script takes a constant step and returns the last round; one step of size 1 there can move accuracy by
points. The default returns the round with the lowest PIC loss (label-free), chosen over the last round and over a
cosine-annealed step on the seed-0 validation pairs of all eight settings (assets/matcha/README.md)."""

SCHEDULES = ("constant", "cosine")
STOPS = ("last", "pic")  # pic: the round with the lowest PIC loss
DEFAULT_SCHEDULE = "constant"
DEFAULT_STOP = "pic"
PAPER_OUTPUT = ("constant", "last")
