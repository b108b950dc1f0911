"""The report's rows in plain strings, shared by every text format so they never disagree."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from parbench.analysis.drift import Drift
from parbench.analysis.results import MachineCeiling
from parbench.analysis.steady_state import FLAT, NONE, is_marked, short_text
from parbench.escaping import one_line
from parbench.measure.proofs import overlap_share
from parbench.records import CaseResult, RunRecord, table_title
from parbench.units import format_bytes, format_duration, format_rate
from parbench.workloads import PROVEN, in_report_order, load_all_cached


@dataclass
class Group:
    """The cases of one workload run with the same params: the ones that compare directly."""
    workload: str
    params: dict
    results: list[CaseResult]

    @property
    def key(self) -> str:
        """The table's name in what the sitting stored beside it (sentinel readings, the machine's
        ceiling): its cases' `Case.table`, as text."""
        return table_title((self.workload, tuple(sorted(self.params.items(), key=str))))

    @property
    def title(self) -> str:
        return f"{self.workload}  " + " ".join(f"{k}={v}" for k, v in self.params.items())


def groups(record: RunRecord) -> list[Group]:
    """The run's tables in the reports' order of workloads, each sorted fastest first."""
    out: dict[tuple, Group] = {}
    for result in record.results:
        params = {} if result.case.workload == "exec" else {k: v for k, v in result.case.params.items() if k != "start"}
        out.setdefault(result.case.table, Group(result.case.workload, params, [])).results.append(result)
    out = {k: g for k, g in out.items() if k[0] != "noop"}     # shown as the start-up table
    for group in out.values():
        group.results.sort(key=lambda r: (r.stats is None, r.stats.median_ns if r.stats else 0))
    order = in_report_order({g.workload for g in out.values()})
    return sorted(out.values(), key=lambda g: (order.index(g.workload), _params_in_order(g.params)))


def drift_of(analyses) -> Drift | None:
    """The sitting's drift (analysis/drift.py) among a run's analyses, or None."""
    return next((result for kind, _, result in analyses or [] if isinstance(result, Drift)), None)


def drift_line(analyses) -> str:
    """"machine drift 2.1% over this sitting (drift sentinel, 9 readings)", or "" without readings."""
    drift = drift_of(analyses)
    if drift is None:
        return ""
    return (f"machine drift {100 * drift.spread:.1f}% over this sitting "
            f"(drift sentinel, {drift.readings} readings; {len(drift.off_tables)} table(s) measured while "
            "it was off by more than 5%)")


def drift_mark(group: "Group", analyses) -> str:
    """Why a table's figures are from a changed machine, or ""."""
    drift = drift_of(analyses)
    share = ({table_title(k): v for k, v in drift.off_tables.items()}.get(group.key)) if drift else None
    return f"measured while the machine was off by {100 * share:.1f}% (drift sentinel)" if share else ""


def _params_in_order(params: dict) -> tuple:
    """A sweep's tables by size or count (a refined 11,585 between 8,192 and 16,384), not by
    when they were measured; numbers before words, so a mixed parameter still sorts."""
    def value(v):
        try:
            return (0, float(v), "")
        except (TypeError, ValueError):
            return (1, 0.0, str(v))
    return tuple((name, value(v)) for name, v in sorted(params.items()))


COLUMNS = ["case", "family", "ips", "average", "deviation", "median", "95% CI of median", "steady state",
           "99th %", "items/s", "vs ceiling", "CPU", "overlap", "peak memory (tree)", "✓"]


def median_extra(result: CaseResult, key: str) -> float | None:
    values = [r.extra[key] for r in result.run.repetitions
              if r.verified and isinstance(r.extra.get(key), (int, float))]
    return float(np.median(values)) if values else None


def machine_ceiling_of(group: "Group", analyses) -> MachineCeiling | None:
    """The machine's own ceiling measured for this table in its sitting, or None."""
    return next((r for kind, subject, r in analyses or [] if isinstance(r, MachineCeiling)
                 and table_title(subject) == group.key),
                None)


def ceiling_text(result: CaseResult, machine: MachineCeiling | None = None) -> str:
    """The case's distance to its own ceiling, measured in the same repetitions ("2.3× own copy"),
    and to the machine's, measured by the harness for the table ("4.1× machine memcpy")."""
    parts = []
    ceiling = median_extra(result, "ceiling_ns")
    if ceiling and result.stats is not None:
        name = next((r.extra.get("ceiling") for r in result.run.repetitions if r.extra.get("ceiling")), "ceiling")
        parts.append(f"{result.stats.median_ns / ceiling:.2f}× own {name}")
    if machine and machine.ns and result.stats is not None:
        parts.append(f"{result.stats.median_ns / machine.ns:.2f}× machine")
    return " · ".join(parts) or "–"


def latency_text(result: CaseResult) -> str:
    """" · latency p50 0.42 ms, p99 1.61 ms" where the repetitions carry the latency of each request
    (echo-server's load generator stamps every one): the medians over the verified repetitions of
    each repetition's percentile; "" for a workload without."""
    p50, p99 = median_extra(result, "p50_ns"), median_extra(result, "p99_ns")
    if p50 is None or p99 is None:
        return ""
    return f" · latency p50 {format_duration(p50)}, p99 {format_duration(p99)}"


def check_mark(case) -> str:
    """✓ where a verified answer proves all the work the case names (a checksum the oracle
    computes, with the launcher's evidence of its units), or the workload's word for the part it
    proves instead: "form checked", "units unverified" (Workload.proof_label)."""
    workload = load_all_cached().get(case.workload)
    return workload.proof_label(case.params, case.family) if workload else PROVEN


def measured_row(result: CaseResult, machine: MachineCeiling | None = None) -> list[str]:
    s = result.stats
    verified = sum(r.verified for r in result.run.repetitions)
    return [one_line(result.case.label), result.case.family, f"{s.ips:.3g}", format_duration(s.mean_ns),
            f"±{s.deviation_pct:.2f}%", format_duration(s.median_ns),
            interval_text(*s.median_ci_ns), steady_text(s),
            format_duration(s.p99_ns), format_rate(s.items_per_s) + latency_text(result), ceiling_text(result, machine),
            cpu_text(result), overlap_text(result), memory_text(result),
            f"{check_mark(result.case)} {verified}/{len(result.run.repetitions)}" + (
                f" partial ({processes_behind(result)} process(es), the run stopped)"
                if result.run.status == "interrupted" else "")]


def steady_text(stats) -> str:
    """How the case's processes reached their timed repetitions (protocol 4), in two short lines
    at most: the class in words, marked where it keeps the figure from an unmarked star, and the
    first repetition's median ("cold JIT", what a one-shot command pays) where it is not flat.
    The counts and the warm-up's cost are the case's note (steady_note)."""
    if not stats.steady_class:
        return "–"
    marked = is_marked(stats.steady_class)
    text = ("⚠ " if marked else "") + (short_text(stats.steady_class) if marked or ":" in stats.steady_class
                                       else stats.steady_class)
    if stats.steady_class == FLAT or stats.first_median_ns is None:
        return text
    return text + f"\n1st {format_duration(stats.first_median_ns)}"


def steady_note(result: CaseResult) -> str:
    """The steady state in full, where the case table's cell is short of it: the counts of a mix
    or of levels apart, and what the warm-up took."""
    s = result.stats
    if not s or not s.steady_class:
        return ""
    parts = [s.steady_class] if ":" in s.steady_class or s.steady_class.startswith(NONE) else []
    if s.warmup_reps_median:
        parts.append(f"warm-up {s.warmup_reps_median:g} repetitions, {format_duration(s.warmup_median_ns or 0)}, "
                     "before the timed ones (median of its processes)")
    return "steady state: " + "; ".join(parts) if parts else ""


def interval_text(low: float, high: float) -> str:
    """A 95 % interval in brackets, its unit said once where both ends share it."""
    low_text, high_text = format_duration(low), format_duration(high)
    low_number, _, low_unit = low_text.rpartition(" ")
    if low_unit == high_text.rpartition(" ")[2]:
        return f"[{low_number}–{high_text}]"
    return f"[{low_text}–{high_text}]"


def peak_of(result: CaseResult, key: str) -> int | None:
    """The largest of the case's fresh processes' `memory[key]` (kB), None where none has it."""
    found = [p.memory[key] for p in result.run.processes
             if p.outcome == "ok" and p.index >= 0 and isinstance(p.memory.get(key), (int, float)) and p.memory[key] > 0]
    return max(found, default=None)


def memory_text(result: CaseResult) -> str:
    """The tree's peak with each shared page counted once (PSS, sampled), and the memory
    cgroup's exact peak where the machine gives one ("9.8 MiB PSS · 10.4 MiB cgroup"); the sum
    of RSS, which counts a forked pool's shared pages in every worker, for runs without PSS."""
    pss, cgroup = peak_of(result, "tree_peak_pss_kb"), peak_of(result, "cgroup_peak_kb")
    rss = result.stats.peak_rss_kb if result.stats else None
    parts = ([f"{format_bytes(1024 * pss)} PSS"] if pss else [f"{format_bytes(1024 * rss)} RSS"] if rss else [])
    parts += [f"{format_bytes(1024 * cgroup)} cgroup"] if cgroup else []
    return " · ".join(parts) or "–"


def timed_cores(result: CaseResult) -> float | None:
    """Cores the timed region kept busy (its own user + system CPU over its time, protocol 2),
    median over the verified repetitions; None where the implementation did not report it."""
    shares = [(r.extra["cpu_user_ns"] + r.extra.get("cpu_sys_ns", 0)) / r.ns for r in result.run.repetitions
              if r.verified and r.ns > 0 and isinstance(r.extra.get("cpu_user_ns"), (int, float))]
    return float(np.median(shares)) if shares else None


def cpu_text(result: CaseResult) -> str:
    """The timed region's CPU in cores ("1.93 cores"); the whole process's share where the
    implementation did not report its region's (older runs)."""
    cores = timed_cores(result)
    if cores is not None:
        return f"{cores:.2f} cores"
    share = result.stats.cpu_utilisation if result.stats else None
    return f"{100 * share:.0f}% (process)" if share is not None else "–"


def overlaps(result: CaseResult) -> list[float]:
    """Per verified repetition of a parallel case: the share of its busy time during which two
    or more workers were busy (from extra.busy)."""
    found = [overlap_share(r.extra["busy"]) for r in result.run.repetitions
             if r.verified and isinstance(r.extra.get("busy"), list)]
    return [f for f in found if f is not None]


def overlap_text(result: CaseResult) -> str:
    found = overlaps(result)
    return f"{100 * float(np.median(found)):.0f}%" if found else "–"


def never_overlapped(result: CaseResult) -> bool:
    """A parallel case with several workers whose workers were never busy at the same time."""
    found = overlaps(result)
    return (result.case.workers or 0) > 1 and bool(found) and max(found) == 0


def measured_cores(result: CaseResult) -> float | None:
    """Cores the launcher saw the tree keep busy in a repetition (its own CPU reading, not the
    implementation's: protocol 3), median over the verified repetitions long enough to read."""
    found = [float(r.extra["measured_cores"]) for r in result.run.repetitions
             if r.verified and isinstance(r.extra.get("measured_cores"), (int, float))
             and int(r.extra.get("gap_ns") or 0) >= MEASURED_FROM_NS]
    return float(np.median(found)) if found else None


MEASURED_FROM_NS = 5_000_000     # shorter repetitions: reading the threads costs a share of them
CLAIMED_OVERLAP = 0.5            # intervals that say two workers were busy at once most of the time …
FEW_CORES = 1.2                  # … while the launcher saw barely more than one core busy
SEQ_MANY_CORES = 1.5             # a sequential model that kept more cores busy than this


def busy_cpu_share(result: CaseResult) -> float | None:
    """The CPU the launcher measured in a repetition over the busy time its workers' intervals
    claim (median over the verified repetitions long enough to read): about 1 for workers that
    computed through their intervals on a quiet machine, about 0 for workers that slept."""
    shares = []
    for r in result.run.repetitions:
        busy, cpu = r.extra.get("busy"), r.extra.get("measured_cpu_ns")
        if not r.verified or not isinstance(busy, list) or not isinstance(cpu, int):
            continue
        claimed = sum(max(0, i[2] - i[1]) for i in busy if isinstance(i, list) and len(i) == 3)
        if claimed > 0:
            shares.append(cpu / claimed)
    return float(np.median(shares)) if shares else None


def quiet_machine(result: CaseResult) -> bool:
    """Nothing else kept the machine busy beside the case's processes (the launcher's reading)."""
    return all(float(r.extra.get("others_cores", 0)) <= BUSY_MACHINE_CORES for r in result.run.repetitions)


SLEPT = 0.1          # workers that used a tenth of the CPU their intervals claim did not compute


def overlap_unseen(result: CaseResult) -> tuple[float, float] | None:
    """(the overlap the workers' intervals claim, the cores the launcher measured) for a parallel
    case whose intervals say its workers overlapped while the launcher saw otherwise: about one
    core busy on a quiet machine, or far less CPU than the intervals claim on any machine (a busy
    machine slows real workers down, it does not make them idle)."""
    found, cores, share = overlaps(result), measured_cores(result), busy_cpu_share(result)
    if (result.case.workers or 0) < 2 or not found or cores is None:
        return None
    claimed = float(np.median(found))
    if claimed < CLAIMED_OVERLAP:
        return None
    idle = share is not None and share < SLEPT
    return (claimed, cores) if idle or (quiet_machine(result) and cores < FEW_CORES) else None


OS_UNIT_FAMILIES = ("threads", "processes")


def units_unseen(result: CaseResult) -> int | None:
    """The units a chain of OS threads or processes says it had alive at once, where the launcher
    saw no thread or process made, nor any CPU on one, in any of its repetitions: a chain that
    never spawned. None where the evidence is there (or cannot be read)."""
    reps = [r for r in result.run.repetitions if r.verified]
    claimed = [r.extra.get("live_units") for r in reps]
    seen = [r.extra.get("new_threads") for r in reps]
    if (result.case.family not in OS_UNIT_FAMILIES or not reps or not all(isinstance(c, int) and c > 1 for c in claimed)
            or not all(isinstance(s, int) for s in seen)):
        return None
    made = sum(seen) + sum(int(r.extra.get("new_thread_cpu_ns") or 0) for r in reps)
    return max(claimed) if made == 0 else None


ROUGH_BELOW = 3      # a CI from fewer fresh processes than this is rough (two groups to resample)


def processes_behind(result: CaseResult) -> int:
    """The fresh processes whose verified repetitions the case's CI rests on."""
    return len({r.process for r in result.run.repetitions if r.verified and r.process >= 0})


def rough_ci(result: CaseResult) -> bool:
    return result.stats is not None and processes_behind(result) < ROUGH_BELOW


def one_worker(result: CaseResult) -> bool:
    """A parallel case asked for several workers whose repetitions say only one did any work."""
    used = [r.extra.get("workers_used") for r in result.run.repetitions if r.verified]
    asked = result.case.workers or 0
    return asked > 1 and bool(used) and all(isinstance(u, int) and u <= 1 for u in used)


# Beyond these, a case's processes shared the machine enough to say so in its row.
BUSY_MACHINE_CORES = 0.25           # cores kept busy by everything but the case's own tree
STEAL_CORES = 0.02                  # cores' worth of time the hypervisor took away


def machine_load_note(result: CaseResult) -> str:
    """The rest of the machine while the case's processes ran (the launcher's /proc/stat reading
    before and after each process), where it was high enough to have moved the figures."""
    walls = {p.index: p.wall_ns for p in result.run.processes if p.wall_ns > 0}
    others, steal = [], []
    for rep in result.run.repetitions:
        if "others_cores" in rep.extra and rep.process in walls:
            others.append(float(rep.extra["others_cores"]))
            steal.append(max(0, int(rep.extra.get("steal_ns", 0))) / walls[rep.process])
    parts = []
    if others and max(others) > BUSY_MACHINE_CORES:
        parts.append(f"the rest of the machine kept up to {max(others):.2f} cores busy beside it")
    if steal and max(steal) > STEAL_CORES:
        parts.append(f"the hypervisor stole up to {max(steal):.2f} cores' worth of time")
    return " and ".join(parts)


def outlier_note(result: CaseResult) -> str:
    """Everything odd about a case's measurement, in one sentence a person understands."""
    s = result.stats
    notes = []
    if s and (s.outliers_low or s.outliers_high):
        notes.append(f"{s.outliers_low + s.outliers_high} outlier(s) of {s.n} "
                     f"(Tukey: {s.outliers_low} low, {s.outliers_high} high), kept")
    if one_worker(result):
        notes.append(f"asked for {result.case.workers} workers, but only one processed any chunk "
                     "(extra.workers_used): a sequential run in disguise")
    if never_overlapped(result):
        notes.append(f"its {result.case.workers} workers were never busy at the same time (extra.busy): "
                     "they ran one after the other")
    if unseen := overlap_unseen(result):
        notes.append(f"its workers' intervals claim {100 * unseen[0]:.0f}% overlap, but the launcher measured "
                     f"{unseen[1]:.2f} cores busy: workers that did not run at the same time")
    if (units := units_unseen(result)) is not None:
        notes.append(f"it says {units:,} {result.case.family} were alive at once, but the launcher saw none made "
                     "in any repetition: a chain that never spawned")
    cores = timed_cores(result)
    if result.case.family == "seq" and cores is not None and cores > 1.2:
        notes.append(f"seq used {cores:.1f} cores in its timed region (JIT, GC or runtime threads)")
    seen = measured_cores(result)
    if result.case.family == "seq" and seen is not None and seen > SEQ_MANY_CORES:
        notes.append(f"the launcher saw this sequential model keep {seen:.1f} cores busy")
    stopped = result.run.flags.get("stopped") or result.run.flags.get("processes_cut_by_budget")
    if stopped and "budget" in str(stopped):
        notes.append(f"stopped at its {stopped}")
    if s and s.n < 5:
        notes.append(f"only {s.n} samples: the CI is wide by necessity")
    if rough_ci(result):
        notes.append(f"CI from {processes_behind(result)} process(es): rough")
    if load := machine_load_note(result):
        notes.append(load)
    return "; ".join(notes)


def ceiling_note(result: CaseResult, machine: MachineCeiling | None = None) -> str:
    """The ceiling and any other baseline measured in the same repetitions, as medians, and the
    machine's own ceiling for the table."""
    parts = [f"machine {machine.name} {format_duration(machine.ns)} (harness, C)"] if machine else []
    ceiling = median_extra(result, "ceiling_ns")
    if ceiling:
        name = next((r.extra.get("ceiling") for r in result.run.repetitions if r.extra.get("ceiling")), "ceiling")
        parts.append(f"{name} {format_duration(ceiling)}")
    keys = sorted({k for r in result.run.repetitions for k in r.extra
                   if k.startswith("baseline_") and k.endswith("_ns")})
    for key in keys:
        value = median_extra(result, key)
        if value:
            parts.append(f"{key[len('baseline_'):-3].replace('_', ' ')} {format_duration(value)}")
    return ("measured beside it: " + ", ".join(parts)) if parts else ""


def kernel_note(result: CaseResult) -> str:
    """What the case's kernel class ran, as its implementation named it (extra.kernel_detail)."""
    detail = next((str(r.extra["kernel_detail"]) for r in result.run.repetitions if r.extra.get("kernel_detail")), "")
    kernel = result.case.params.get("kernel") or next(
        (str(r.extra["kernel"]) for r in result.run.repetitions if r.extra.get("kernel")), "")
    return f"{kernel} kernel: {detail}" if detail else ""


def comparison_lines(group: Group) -> list[tuple[str, str, str]]:
    """(case, against the fastest, against its runtime's seq) for every measured case."""
    lines = []
    for result in group.results:
        if result.stats is None:
            continue
        fastest = _with_ci(result.vs_fastest) if result.vs_fastest else "fastest"
        seq = _with_ci(result.vs_seq) if result.vs_seq else ("(is seq)" if result.case.family == "seq" else "–")
        lines.append((one_line(result.case.label), fastest, seq))
    return lines


def _with_ci(comparison) -> str:
    low, high = comparison.ratio_ci
    if comparison.ratio >= 1:
        return f"{comparison.sentence()} [{low:.2f}–{high:.2f}x]"
    return f"{comparison.sentence()} [{1 / high:.2f}–{1 / low:.2f}x]"


def failure_rows(record: RunRecord) -> list[list[str]]:
    rows = []
    for result in record.results:
        if result.run.status != "ok":
            tail = next((p.stderr_tail.strip().splitlines()[-1] for p in result.run.processes
                         if p.outcome != "ok" and p.stderr_tail.strip()), "")
            rows.append([one_line(result.case.key), result.run.status, one_line(result.run.reason), one_line(tail[:200])])
    return rows


def override_lines(record: RunRecord) -> list[str]:
    seen = []
    for result in record.results:
        for reason in result.case.overrides:
            line = f"{result.case.runtime} {result.case.workload}: {reason}"
            if line not in seen:
                seen.append(line)
    return seen


def startup_rows(record: RunRecord) -> list[list[str]]:
    """Per runtime: a whole `noop` process (boot + harness overhead) against the work it did."""
    rows = []
    for result in record.results:
        if result.case.workload == "noop" and result.stats is not None:
            s = result.stats
            rows.append([result.case.runtime, format_duration(s.process_wall_median_ns or 0),
                         format_bytes(1024 * s.peak_rss_kb) if s.peak_rss_kb else "–",
                         str(len(result.run.processes))])
    return rows


STARTUP_COLUMNS = ["runtime", "start-up (whole noop process, median)", "peak RSS", "processes"]
