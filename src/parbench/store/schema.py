"""The results schema and its migrations; the `meta` table says which version a file holds."""
from __future__ import annotations

# Each entry moves a database from version i to i + 1. Never edit a released entry: add one.
MIGRATIONS: list[list[str]] = [
    [
        """CREATE TABLE runs(
             id INTEGER PRIMARY KEY, kind TEXT NOT NULL, started_at TEXT NOT NULL,
             finished_at TEXT, status TEXT NOT NULL, scale TEXT NOT NULL,
             options_json TEXT NOT NULL, machine_json TEXT NOT NULL, runtimes_json TEXT NOT NULL)""",
        """CREATE TABLE cases(
             id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id),
             case_key TEXT NOT NULL, workload TEXT NOT NULL, runtime TEXT NOT NULL,
             model TEXT NOT NULL, family TEXT NOT NULL, params_json TEXT NOT NULL,
             workers INTEGER, overrides_json TEXT NOT NULL, note TEXT NOT NULL,
             expected_checksum TEXT NOT NULL, status TEXT NOT NULL, reason TEXT NOT NULL,
             flags_json TEXT NOT NULL)""",
        "CREATE INDEX cases_by_run ON cases(run_id)",
        """CREATE TABLE processes(
             case_id INTEGER NOT NULL REFERENCES cases(id), idx INTEGER NOT NULL,
             wall_ns BIGINT NOT NULL, user_ns BIGINT NOT NULL, sys_ns BIGINT NOT NULL,
             max_rss_kb BIGINT NOT NULL, voluntary_switches BIGINT NOT NULL,
             involuntary_switches BIGINT NOT NULL, exit_code INTEGER, outcome TEXT NOT NULL,
             detail TEXT NOT NULL, stderr_tail TEXT NOT NULL)""",
        """CREATE TABLE samples(
             case_id INTEGER NOT NULL REFERENCES cases(id), process_idx INTEGER NOT NULL,
             rep INTEGER NOT NULL, ns BIGINT NOT NULL, items BIGINT NOT NULL,
             checksum TEXT NOT NULL, verified INTEGER NOT NULL, extra_json TEXT NOT NULL)""",
    ],
    [
        # Sweeps and analyses (scaling fits, crossovers, per-task slopes) stored beside the run.
        """CREATE TABLE analyses(
             run_id INTEGER NOT NULL REFERENCES runs(id), kind TEXT NOT NULL,
             subject TEXT NOT NULL, result_json TEXT NOT NULL)""",
    ],
    [
        # Whole-tree memory beside the largest process, how it was measured, the order the
        # processes ran in, and which live process owns a running run (locking and resume).
        "ALTER TABLE processes ADD COLUMN tree_peak_rss_kb BIGINT NOT NULL DEFAULT 0",
        "ALTER TABLE processes ADD COLUMN memory_json TEXT NOT NULL DEFAULT '{}'",
        "ALTER TABLE processes ADD COLUMN seq INTEGER",
        "ALTER TABLE runs ADD COLUMN owner TEXT NOT NULL DEFAULT ''",
    ],
    [
        # Named baselines: `run --save-baseline NAME`, `compare --baseline NAME`.
        """CREATE TABLE baselines(
             name TEXT PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id), saved_at TEXT NOT NULL)""",
    ],
    [
        # The owner's heartbeat (seconds since the epoch): a run whose harness cannot be checked
        # from here (another host, another PID namespace) is alive while it beats.
        "ALTER TABLE runs ADD COLUMN heartbeat_at DOUBLE PRECISION NOT NULL DEFAULT 0",
    ],
    [
        # The marker no other program writes (store/ownership.py): a database that holds it is a
        # parbench store, whatever else it holds. SQLite files carry it in their header too.
        "CREATE TABLE parbench_store(marker TEXT NOT NULL)",
        "INSERT INTO parbench_store(marker) VALUES ('parbench results store')",
    ],
]

SCHEMA_VERSION = len(MIGRATIONS)
