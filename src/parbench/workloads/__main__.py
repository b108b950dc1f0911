"""Make a workload's input by hand and print the arguments a process of it gets:
`python -m parbench.workloads.input_files WORKLOAD --param size=1048576` (the smoke scale's params otherwise)."""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from parbench.workloads import SpecError, load_all, parse_param_overrides


def main() -> None:
    workloads = load_all()
    parser = argparse.ArgumentParser(prog="python -m parbench.workloads.input_files")
    parser.add_argument("workload", choices=sorted(workloads))
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args()
    workload = workloads[args.workload]
    try:
        params = workload.check_params({**workload.scales["smoke"], **parse_param_overrides(tuple(args.param))})
    except (SpecError, ValueError) as error:
        sys.exit(f"python -m parbench.workloads.input_files: {error}")
    scratch = Path(tempfile.mkdtemp(prefix=f"parbench-{args.workload}-"))
    arguments, _ = workload.process_arguments(params, scratch)
    print(" ".join(f"--{name.replace('_', '-')} {value}" for name, value in arguments.items()))
    print(f"expected checksum {workload.expected_checksum(params)}")


if __name__ == "__main__":
    main()
