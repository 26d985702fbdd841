import numpy as np

from toolkit.gama.games import game_class


def scripted(name, n, rounds, actions_by_round, params=None, seed=0):
    """Play `name` with fixed actions: actions_by_round[k-1] maps seat (or (seat, kind)) -> action."""
    game = game_class(name)(n, rounds, params or {}, np.random.default_rng(seed))
    outcomes = []
    for k, actions in enumerate(actions_by_round, start=1):
        def ask(d, actions=actions):
            return actions[(d.seat, d.kind)] if (d.seat, d.kind) in actions else actions[d.seat]
        outcomes.append(game.play_round(k, ask))
    return game, outcomes
