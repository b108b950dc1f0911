# The two commands of the README. Each installs what is missing first (scripts/setup).
PARBENCH := .venv/bin/parbench

.PHONY: setup build test bench clean

setup:
	scripts/setup

build: setup
	$(PARBENCH) build

test: build
	.venv/bin/python -m pytest -q

bench: build
	$(PARBENCH) run --scale quick --out results/latest
	$(PARBENCH) report --html results/latest/report.html
	@echo "Reports: results/latest/ — open $(CURDIR)/results/latest/report.html"

clean:
	rm -rf .venv .cache results impls/*/.built
