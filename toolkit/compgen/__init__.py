"""Kernel theory of compositional generalization (Lippl & Stachenfeld, ICLR 2025).

Public API:
  build(task_name, **options) -> Task            the paper's task families and splits
  sims_for(rep, components) -> np.ndarray         a representation's kernel by overlap pattern
  kernel_fit(task, sims, ridge) -> Fit            kernel ridge regression (dual, numba kernel)
  converged_function(task, sims, ridge) -> Fit    the theory's conjunction-wise additive solution
  learnability(task), memorization_leak(...), shortcut_bias(...), errors(task, pred)
"""

from toolkit.compgen.representations import REPRESENTATIONS, conjunction_weights, sims_for
from toolkit.compgen.tasks import TASKS, Task, build
from toolkit.compgen.theory import (
    Fit,
    converged_function,
    errors,
    kernel_fit,
    learnability,
    memorization_leak,
    shortcut_bias,
)

__all__ = ["REPRESENTATIONS", "TASKS", "Fit", "Task", "build", "conjunction_weights", "converged_function",
           "errors", "kernel_fit", "learnability", "memorization_leak", "shortcut_bias", "sims_for"]
