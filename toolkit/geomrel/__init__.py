"""GeomRel: geometric-relationship questions with proven labels, a text-only label verifier,
GeoCoT prompting and an answer parser that does not misread point names.

Public API:
  generate(n, seed, level, domains, depth, exclude) -> list[item]   exact generator (method A)
  verify_item(item, samples, seed) -> verdict                          text-only verifier (method B)
"""

from toolkit.geomrel.generate import generate

__all__ = ["generate"]
