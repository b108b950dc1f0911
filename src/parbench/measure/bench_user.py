"""Who the benchmarks run as: under root, a user of their own without root's rights (unless
--as-root), so that a benchmark can neither leave its cgroups nor signal the harness."""
from __future__ import annotations

import os
import pwd
from dataclasses import dataclass
from pathlib import Path

NAME = "parbench-bench"
CREATE = f"useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin {NAME}"
# Variables that would point a benchmark at root's folders, where it can read but not write:
# each program then uses its default under the HOME it is given.
# The harness's store password (PGPASSWORD, PGPASSFILE): never handed to what it measures.
HARNESS_SECRETS = ("PGPASSWORD", "PGPASSFILE", "PARBENCH_TEST_POSTGRES")
ROOTS_FOLDERS = ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR")


class NoBenchUser(RuntimeError):
    """Running as root with no user to hand the benchmarks to."""


@dataclass(frozen=True)
class BenchUser:
    """The user the launcher makes each benchmark (launcher.c's drop_root)."""
    name: str
    uid: int
    gid: int

    def take(self, scratch: Path) -> dict[str, str]:
        """Gives the process's scratch folder (its inputs copied there included) to this user,
        with a fresh HOME and TMPDIR inside it (Erlang writes ~/.erlang.cookie there, others
        their caches), and returns the environment the benchmark runs with."""
        for folder in ("home", "tmp"):
            (scratch / folder).mkdir(exist_ok=True)
        for folder, _, files in os.walk(scratch):
            for name in [folder, *(os.path.join(folder, f) for f in files)]:
                os.chown(name, self.uid, self.gid, follow_symlinks=False)
        env = {k: v for k, v in os.environ.items() if k not in ROOTS_FOLDERS and k not in HARNESS_SECRETS}
        return {**env, "HOME": str(scratch / "home"), "TMPDIR": str(scratch / "tmp"),
                "USER": self.name, "LOGNAME": self.name}


def for_run(as_root: bool) -> BenchUser | None:
    """The user to run benchmarks as: None where they run as the harness's own user (it is not
    root, or --as-root was given)."""
    if as_root or os.geteuid() != 0:
        return None
    try:
        entry = pwd.getpwnam(NAME)
    except KeyError:
        raise NoBenchUser(f"parbench runs benchmarks as the unprivileged user {NAME} when it runs as root, and "
                          f"there is none: run scripts/setup (or: {CREATE}), or give --as-root to run them as "
                          f"root") from None
    return BenchUser(entry.pw_name, entry.pw_uid, entry.pw_gid)


def described(user: BenchUser | None) -> str:
    """Who ran the benchmarks, in the run's metadata."""
    if user is not None:
        return f"{user.name} (uid {user.uid}; reads root's files with CAP_DAC_READ_SEARCH, writes only its own)"
    uid = os.geteuid()
    try:
        name = pwd.getpwuid(uid).pw_name
    except KeyError:
        name = "?"
    return f"{name} (uid {uid}{', --as-root' if uid == 0 else ''})"
