"""The laws behind the numbers: scaling fits, crossover sizes, per-task costs, Amdahl, start-up."""
