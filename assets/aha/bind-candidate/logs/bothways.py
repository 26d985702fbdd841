"""Both-ways check summary: python bothways.py MODEL SAMPLES"""
import json
import sys

import torch

torch.set_num_threads(1)
from toolkit.aha.pairs import both_ways, both_ways_summary  # noqa: E402
from toolkit.aha.samples import load_samples  # noqa: E402
from toolkit.aha.vlm import load_vlm  # noqa: E402

rows = both_ways(load_vlm(sys.argv[1], device="cpu"), load_samples(sys.argv[2]))
print(json.dumps({"model": sys.argv[1], **both_ways_summary(rows)}))
