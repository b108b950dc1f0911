"""Stage 3, analysis: the statistics of every case (stats.py, case_results.py), the comparisons
between cases (compare.py), and the laws behind the numbers: scaling fits, crossover sizes,
per-task costs, Amdahl shares, start-up splits, drift."""

LAYER = 1   # imports nothing of the harness but records.py (as criterion's stats/ does)
