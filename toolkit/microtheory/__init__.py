"""From models to microtheories (Weir et al., ICLR 2025, arXiv 2412.17701).

Knowledge store from an LLM's verified proofs of training answers -> SBERT dedup -> entailment
condensation -> K-fact microtheory by one of several optimization strategies -> p-relevance on
held-out questions and grounded QA over a corpus with and without the microtheory.
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
