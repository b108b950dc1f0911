"""`exec --fit AXIS[=VAR]`: which parameter of a user's command lines is the worker count, the
input size or the unit count, checked before anything runs, and the record of which command
line each case ran, from which analysis/command_sweeps.py derives the fits."""
from __future__ import annotations

from dataclasses import dataclass, replace

from parbench.analysis.command_sweeps import AXES, axis_problem, axis_value
from parbench.analysis.crossover import CrossoverResult, refine_between
from parbench.kinds.exec.commands import Command, ExecError, ExecOptions, scan_values
from parbench.records import Case


class FitError(ExecError):
    """A --fit that cannot be: parbench's own flag, so a usage error (exit 2) before anything runs,
    not one of hyperfine's refusals (exit 1)."""


@dataclass(frozen=True)
class FitRequest:
    axis: str           # workers | size | count
    param: str          # the {VAR} that carries it
    refine: int = 0     # size: bisection rounds near each crossing (as `parbench sweep size --refine`)


def _values(options: ExecOptions) -> dict[str, list[str]]:
    if options.parameter_scan:
        name, low, high = options.parameter_scan
        return {name: scan_values(low, high, options.step)}
    return dict(options.parameter_lists)


def fit_request(spec: str | None, options: ExecOptions, refine: int = 0) -> FitRequest | None:
    """--fit's AXIS and the parameter it names (by default the one named like the axis, or the
    only one); ExecError for a sweep the law cannot be fitted to."""
    if spec is None:
        return None
    axis, _, param = spec.partition("=")
    if axis not in AXES:
        raise FitError(f"--fit {spec}: the axis is one of {', '.join(AXES)} (optionally =VAR: --fit workers=threads)")
    values = _values(options)
    if not values:
        raise FitError(f"--fit {axis} needs a parameter to sweep: -P {axis} MIN MAX or -L {axis} V1,V2,…")
    if param and param not in values:
        raise FitError(f"--fit {axis}={param}: {{{param}}} is not a parameter of the command line "
                       f"(its parameters: {', '.join(values)})")
    param = param or (axis if axis in values else next(iter(values)) if len(values) == 1 else "")
    if param not in values:
        raise FitError(f"--fit {axis}: which parameter is the {axis}? Name it: --fit {axis}=VAR "
                        f"(the parameters: {', '.join(values)})")
    swept = values[param]
    problem = axis_problem(axis, param, swept)
    if problem:
        raise FitError(problem)
    if len({axis_value(axis, v) for v in swept}) < 2:
        raise FitError(f"--fit {axis}: a law needs at least two values of {{{param}}}")
    if axis == "workers" and 1 not in {axis_value(axis, v) for v in swept}:
        raise FitError(f"--fit workers: {{{param}}} takes whole counts from 1 (speedup is against the 1-worker run)")
    if axis == "size" and len(options.commands) < 2:
        raise FitError("--fit size finds where a command starts to beat the first one: give two commands or more")
    # A value between two measured ones is a new benchmark: options given once per benchmark
    # cannot say what it takes, so such a sweep is not refined.
    per_benchmark = any(len(given) > 1 for given in (options.prepare, options.conclude, options.output))
    return FitRequest(axis, param, refine if axis == "size" and not per_benchmark else 0)


def fit_record(fit: FitRequest, options: ExecOptions, cases: list[Case], commands: list[Command]) -> dict:
    """What the run stores so the fits can be derived again from its samples: the axis, its
    parameter, the command lines, and which one each case ran."""
    return {"axis": fit.axis, "param": fit.param, "commands": list(options.commands),
            "template_of": {case.key: command.template for case, command in zip(cases, commands)}}


def refinement_values(analyses: list) -> list[int]:
    """The geometric middle of each bracket where a command's ratio to the first crosses 1,
    where that bracket is still wide (crossover.refine_between), and not measured yet."""
    found = [result for name, _, result in analyses if name == "crossover" and isinstance(result, CrossoverResult)]
    tried = {size for result in found for size in result.sizes}
    middles = {refine_between(result.sizes, result.ratio) for result in found} - {None}
    return sorted({int(round(m)) for m in middles} - {int(t) for t in tried})


def refined(options: ExecOptions, param: str, values: list[int]) -> ExecOptions:
    """The command line of a refinement round: the same commands and other parameters, the
    swept one at the new values; no reference (it was measured once) and one name at most."""
    lists = dict(_values(options))
    lists[param] = [str(v) for v in values]
    return replace(options, parameter_scan=None, step=None, parameter_lists=list(lists.items()),
                   reference=None, reference_name=None, names=options.names[:1] if len(options.names) == 1 else [])
