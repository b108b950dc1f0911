"""Stage 2, measuring: the order in which cases' fresh processes run (schedule.py), one process of a
workload through a runtime (runner.py) under the launcher (launcher.c via process.py), the line
protocol (protocol.py), the proofs each process owes (proofs.py), echo-server's run loop and load
generator (echo_loop.py, loadgen.py), the drift sentinel and machine ceilings (sentinel,
machine_ceiling, native.py compiles them), the runtimes (runtimes.py), the
machine (machine.py), who runs benchmarks (bench_user.py) and who is measuring now (liveness.py)."""

LAYER = 3    # above workloads/ (inputs, oracle), below plan/
