"""`parbench advise`: the user's own question (a size or task count, the cores) answered from the
stored measurements: ranked models with predicted intervals, where each prediction comes from,
and what is missing. question → evidence → predict → ranking → render; `advise()` wires them."""
from __future__ import annotations

from parbench.advise.advice import Advice, advise

LAYER = 6   # reads the store; report/ draws its panel

__all__ = ["Advice", "advise"]
