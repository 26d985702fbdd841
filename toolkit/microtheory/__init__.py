"""From models to microtheories (Weir et al., ICLR 2025, arXiv 2412.17701).

Knowledge store from an LLM's verified proofs of training answers (store.py) -> SBERT dedup
(dedup.py) -> entailment condensation (condense.py) -> K-fact microtheory by one of several
optimization strategies (optimize.py) -> p-relevance on held-out questions (relevance.py) and
grounded QA over a corpus with and without the microtheory (ground.py).

The stages and their order follow the paper as summarized in its abstract and in the issue; the
stored copy of the paper's HTML that could be consulted while writing this exposed only the
abstract, so operational details (prompts, thresholds, the exact objectives, the p-relevance
formula, the grounding prover) are choices made here. Each module's docstring says which and why.
"""

from toolkit.microtheory.condense import condense, rewrite_proofs
from toolkit.microtheory.data import Question, load_corpus, load_questions
from toolkit.microtheory.dedup import dedup, leader_clusters
from toolkit.microtheory.distill import distill
from toolkit.microtheory.embed import BowEmbedder, load_embedder
from toolkit.microtheory.ground import Retriever, ground_question, summarize
from toolkit.microtheory.optimize import STRATEGIES, Instance, brute_force, coverage, select
from toolkit.microtheory.relevance import curve, match_facts, p_relevance
from toolkit.microtheory.store import build_entry, build_store
from toolkit.microtheory.theory import Theory, load_theory
from toolkit.microtheory.verify import Verifier

__all__ = ["STRATEGIES", "BowEmbedder", "Instance", "Question", "Retriever", "Theory", "Verifier", "brute_force",
           "build_entry", "build_store", "condense", "coverage", "curve", "dedup", "distill", "ground_question",
           "leader_clusters", "load_corpus", "load_embedder", "load_questions", "load_theory", "match_facts",
           "p_relevance", "rewrite_proofs", "select", "summarize"]
