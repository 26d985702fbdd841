"""Sokoban planning agents (Bush et al., ICLR 2025): numba env, generator, solver, DRC agent, plan probes."""
