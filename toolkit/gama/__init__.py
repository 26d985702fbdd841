"""GAMA(γ)-Bench: eight multi-player game-theory games, their 0-100 scores, built-in and LLM players.

After Huang et al., "Competing Large Language Models in Multi-Agent Gaming Environments" (ICLR 2025).
"""

from toolkit.gama.engine import Job, LLMSpec, play
from toolkit.gama.games import GAMES, game_class, parse_params
from toolkit.gama.official import import_folder
from toolkit.gama.plan import bench_jobs, summarize, sweep_jobs
from toolkit.gama.players import parse_players
from toolkit.gama.runner import run_jobs

__all__ = ["GAMES", "Job", "LLMSpec", "bench_jobs", "game_class", "import_folder", "parse_params", "parse_players",
           "play", "run_jobs", "summarize", "sweep_jobs"]
