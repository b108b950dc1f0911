"""Adding a workload is a TOML, a module and the runtimes' files (docs/architecture.md); every real
runtime answers bad arguments with exit 2."""
import subprocess
import textwrap

import pytest

from conftest import REPO, parbench, require, require_runtime
from parbench.measure import runtimes as runtimes_module

TOY_TOML = """name = "toy"
title = "a toy workload: the sum 1 + 2 + … + n"
spec = "(tests)"
items = "terms"
module = "toy_workload"

[scales.smoke]
n = 1000
[scales.quick]
n = 100000
[scales.seed]
n = 1000000
[verify]
n = 37
"""

TOY_MODULE = '''
"""A workload added the way docs/architecture.md says: this package and its TOML, nothing else.
Each repetition sums from its own variant s: s + (s + 1) + … + (s + n)."""
from parbench.workloads.params import Integer

PARAMS = {"n": Integer(0, 10 ** 9, "a term count")}
SWEPT_PARAM = "n"
ORDER = 50
SWEEPS = {"per-task": "tasks"}


def variants(params, count, rng):
    return rng.sample(range(10 ** 9), count)


def expected_checksum(params, variant=None) -> str:
    n, s = int(params["n"]), variant or 0
    return str((n + 1) * s + n * (n + 1) // 2)


def expected_items(params) -> int:
    return int(params["n"])
'''

TOY_RUNTIME = '''#!/usr/bin/env python3
import json, sys, time
argv = sys.argv[1:]
if argv == ["--list"]:
    print(json.dumps({"runtime": "toyrt", "version": "1", "flags": "", "workloads": {
        "noop": {"params": [], "models": {"seq": {"family": "seq"}}},
        "toy": {"params": ["n"], "models": {"seq": {"family": "seq"}}}}}))
    sys.exit(0)
workload, args = argv[0], dict(zip(argv[1::2], argv[2::2]))
n = int(args.get("--n", 0))
print(json.dumps({"ready": "none"}), flush=True)
for rep, variant in enumerate(iter(sys.stdin.readline, "")):   # protocol 4: until stdin ends
    start = int(variant)                   # the repetition's variant, as it starts
    began = time.perf_counter_ns()
    total = sum(range(start, start + n + 1)) if workload == "toy" else 0
    ns = max(1, time.perf_counter_ns() - began)
    print(json.dumps({"rep": rep, "ns": ns, "items": n if workload == "toy" else 0,
                      "checksum": str(total) if workload == "toy" else "noop"}), flush=True)
'''


def test_a_toy_workload_added_in_a_temporary_folder_runs_end_to_end(tmp_path, db):
    root = tmp_path / "project"
    (root / "workloads").mkdir(parents=True)
    for spec in (REPO / "workloads").glob("*.toml"):
        (root / "workloads" / spec.name).symlink_to(spec)
    (root / "workloads" / "toy.toml").write_text(TOY_TOML)
    modules = tmp_path / "modules"
    (modules / "toy_workload").mkdir(parents=True)
    (modules / "toy_workload" / "__init__.py").write_text(textwrap.dedent(TOY_MODULE))
    runtime = root / "impls" / "toyrt"
    runtime.mkdir(parents=True)
    (runtime / "runtime.toml").write_text('name = "toyrt"\nrequires = ["python3"]\nversion = "echo 1"\n'
                                          'install = "(tests)"\napt = []\n')
    (runtime / "run").write_text(TOY_RUNTIME)
    (runtime / "run").chmod(0o755)
    env = {"PYTHONPATH": f"{modules}:{REPO / 'src'}"}
    done = parbench("run", "--workload", "toy", "--scale", "smoke", "--db", db, root=root, env=env, check=True)
    assert "toyrt seq" in done.stdout and "✓ 6/6" in done.stdout
    swept = parbench("sweep", "tasks", "--workload", "toy", "--counts", "10,100,1000", "--scale", "smoke",
                     "--db", db, root=root, env=env, check=True)
    assert "Per task: toy/toyrt/seq" in swept.stdout


REAL = runtimes_module.load_all()


@pytest.mark.parametrize("name", sorted(REAL))
def test_every_runtime_answers_bad_arguments_with_exit_2(name):
    runtime = REAL[name]
    require_runtime(runtime)
    try:
        listed = runtime.description(timeout=120)
    except (RuntimeError, OSError, ValueError) as error:
        require(False, f"{name} is not built (`parbench build` builds it): {error}")
    model = next(iter(listed.models_of("spawn-chain")))
    unknown = subprocess.run([str(runtime.run_script), "spawn-chain", "--model", "no-such-model", "--n", "5"],
                             capture_output=True, text=True, timeout=120, input="0\n")
    assert unknown.returncode == 2, unknown.stderr
    assert "no-such-model" in unknown.stderr
    bad = subprocess.run([str(runtime.run_script), "spawn-chain", "--model", model, "--n", "not-a-number"],
                         capture_output=True, text=True, timeout=120, input="0\n")
    assert bad.returncode == 2, (bad.returncode, bad.stdout[-500:], bad.stderr[-500:])
    gone = subprocess.run([str(runtime.run_script), "spawn-chain", "--model", model, "--n", "5", "--warmup", "1"],
                          capture_output=True, text=True, timeout=120, input="0\n")     # protocol 4 removed it
    assert gone.returncode == 2 and "--warmup" in gone.stderr, (gone.returncode, gone.stderr[-500:])
    assert bad.returncode == 2, (bad.returncode, bad.stdout[-500:], bad.stderr[-500:])
