"""The harness's shape (docs/architecture.md): its import graph has no circle and no stage imports
a later one; adding a workload is a TOML, a module and the runtimes' files; every real runtime
answers bad arguments with exit 2."""
import ast
import subprocess
import textwrap
from pathlib import Path

import pytest

from conftest import REPO, parbench, require, require_runtime
from parbench import runtimes as runtimes_module

PACKAGE = REPO / "src" / "parbench"

# The pipeline's layers, bottom up: a module may import its own layer and those below, never above.
LAYERS = [
    {"__init__", "project", "units", "records", "errors", "inputs", "oracle", "oracle_cache", "workloads",
     "liveness", "metadata", "escaping"},
    {"runtimes", "protocol", "proofs", "process", "sentinel", "machine_ceiling", "native", "stats", "compare"},
    {"plan"},                                   # stage 1: plan
    {"run", "schedule"},                        # stage 2: run
    {"analyze", "analysis"},                    # stage 3: analyze
    {"store"},                                  # stage 4: store
    {"report", "export"},                       # stage 5: report
    {"suite", "sweep", "exec_command"},         # the kinds of measurement, over the stages
    {"pipeline"},                               # the one pipeline through the stages
    {"cli", "__main__"},
]


def test_no_harness_file_outside_the_workload_packages_names_a_workload():
    """Everything the harness knows about one workload lives in its package (STYLE.md): no
    other module may branch on, or even spell, a workload's name."""
    names = [path.stem for path in (REPO / "workloads").glob("*.toml")]
    spellings = {spelling for name in names for spelling in (name, name.replace("-", "_"))}
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path.relative_to(PACKAGE).parts[0] == "workloads" and len(path.relative_to(PACKAGE).parts) > 2:
            continue          # the workload packages themselves
        text = path.read_text()
        offenders += [f"{path.relative_to(PACKAGE)}: {s}" for s in sorted(spellings) if s in text]
    assert not offenders, "workload names outside their packages: " + "; ".join(offenders)


def _layer(module: str) -> int:
    top = module.split(".")[0]
    return next(i for i, names in enumerate(LAYERS) if top in names)


def _resolve(base: str, name: str) -> str:
    """`from parbench.BASE import NAME`: the module NAME if it is one, else BASE (or the package)."""
    folder = PACKAGE.joinpath(*base.split(".")) if base else PACKAGE
    if (folder / f"{name}.py").exists() or (folder / name).is_dir():
        return f"{base}.{name}" if base else name
    return base or "__init__"


def _imports() -> dict[str, set[str]]:
    """Every parbench module → the parbench modules it imports (lazy imports in functions too)."""
    graph = {}
    for path in PACKAGE.rglob("*.py"):
        name = ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
        name = name.removesuffix(".__init__") if name != "__init__" else name
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("parbench"):
                base = node.module.removeprefix("parbench").lstrip(".")
                found |= {_resolve(base, a.name) for a in node.names}
            elif isinstance(node, ast.Import):
                found |= {a.name.removeprefix("parbench.") for a in node.names if a.name.startswith("parbench.")}
        graph[name] = {m for m in found if m and m != name}
    return graph


def test_no_stage_imports_a_later_one():
    upward = [(module, imported) for module, imports in _imports().items() for imported in imports
              if _layer(imported) > _layer(module)]
    assert upward == []


def test_the_import_graph_has_no_circle():
    graph = _imports()
    modules = {m.split(".")[0] if m.split(".")[0] in ("cli",) else m for m in graph}
    state: dict[str, int] = {}

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for imported in graph.get(module, ()):
            target = imported if imported in graph else imported.rsplit(".", 1)[0]
            if target not in graph:
                continue
            if state.get(target) == 1:
                raise AssertionError(" → ".join(path + [module, target]))
            if target not in state:
                visit(target, path + [module])
        state[module] = 2
    for module in sorted(modules):
        if module not in state:
            visit(module, [])


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


def variants(params, count):
    return [1000 * (j + 1) for j in range(count)]


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
n, warmup = int(args.get("--n", 0)), int(args["--warmup"])
starts = [int(v) for v in args["--variants"].split(",")] if "--variants" in args else None
for rep in range(warmup + int(args["--repeat"])):
    start = starts[rep] if starts else 0
    began = time.perf_counter_ns()
    total = sum(range(start, start + n + 1)) if workload == "toy" else 0
    ns = max(1, time.perf_counter_ns() - began)
    line = {"warmup": rep} if rep < warmup else {"rep": rep - warmup}
    print(json.dumps({**line, "ns": ns, "items": n if workload == "toy" else 0,
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
    unknown = subprocess.run([str(runtime.run_script), "spawn-chain", "--model", "no-such-model", "--n", "5",
                              "--warmup", "0", "--repeat", "1"], capture_output=True, text=True, timeout=120)
    assert unknown.returncode == 2, unknown.stderr
    assert "no-such-model" in unknown.stderr
    bad = subprocess.run([str(runtime.run_script), "spawn-chain", "--model", model, "--n", "not-a-number",
                          "--warmup", "0", "--repeat", "1"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2, (bad.returncode, bad.stdout[-500:], bad.stderr[-500:])
