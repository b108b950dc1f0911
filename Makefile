# The two commands of the README. Each installs what is missing first (scripts/setup).
PARBENCH := .venv/bin/parbench

.PHONY: setup build unit test fuzz bench clean

setup:
	scripts/setup

build: setup
	$(PARBENCH) build

# The unit tier: tests/unit/<package>/test_<module>.py, one file per module of src/parbench, no
# runtime built and no CLI subprocess (well under a minute). `make test` runs it, then the
# integration tier (the CLI against real runtimes) and the fuzz suite's short mode.
unit: setup
	.venv/bin/python -m pytest -q tests/unit

test: build
	.venv/bin/python -m pytest -q tests/unit
	.venv/bin/python -m pytest -q tests/integration tests/fuzz

# The fuzz suite's long mode: 10,000 examples per property (PARBENCH_FUZZ_EXAMPLES=N for more);
# the counts it prints go into docs/reliability.md.
fuzz: setup
# No per-test time limit there: one property's 10,000 examples take longer than the suite's 600 s.
	HYPOTHESIS_PROFILE=fuzz .venv/bin/python -m pytest -q tests/fuzz --hypothesis-show-statistics --timeout=0

# A runtime that fails to build is skipped by the suite with its reason; `make test` fails on it.
bench: setup
	$(PARBENCH) build || echo "bench: some runtimes did not build (above); the suite skips them"
	$(PARBENCH) run --scale quick --out results/latest
	$(PARBENCH) report --html results/latest/report.html
	@echo "Reports: results/latest/ — open $(CURDIR)/results/latest/report.html"

clean:
	rm -rf .venv .cache results impls/*/.built
