/* parbench-launch: a resident launcher. It stays up for as long as the harness runs benchmark
 * processes, runs each process tree it is asked to, keeps it on a leash, and answers with the
 * kernel's measurements of the whole tree and what the tree printed.
 *
 * Why it exists:
 * - Linux keeps a process's peak RSS (ru_maxrss) across fork and exec, so a benchmark forked
 *   straight from the Python harness would report the harness's ~40 MiB as its own peak. The
 *   benchmark is forked from this small program instead.
 * - ru_maxrss is the largest single process, not the tree: a pool of 40 worker processes would
 *   look as cheap as one. The tree's memory is sampled here (the sum of every process's RSS and
 *   PSS at the same moment), and read from a memory cgroup's peak where the machine gives one.
 * - A benchmark must never outlive its run or the harness: this launcher is a child subreaper
 *   (orphans, setsid() escapees included, are re-parented to it), puts each run's tree in a
 *   cgroup of its own where it can, dies with the harness (PR_SET_PDEATHSIG), and kills every
 *   process of the tree when the benchmark's main process ends, times out, runs out of memory,
 *   floods its output, or when the launcher is told to stop.
 * - A memory limit per run: a cgroup limit where possible (the kernel's OOM killer then picks
 *   inside the run, never elsewhere on the machine), else the sampled sum is enforced here.
 * - The harness must not compete with what it measures: it sends one request per run and then
 *   sleeps in one read until the answer. Reading the output (its SHA-256, the protocol's lines,
 *   the time each line arrived, the caps on its size) and stderr's tail happen here, in C.
 *
 * Protocol (stdin: requests, stdout: answers; process.py is the other end):
 *   request: 10 ASCII digits giving the length, then that many bytes of NUL-terminated fields:
 *            timeout_ms memory_limit_kb sample_ms keep_lines echo max_stdout_bytes
 *            max_line_bytes max_lines head_bytes stderr_tail_bytes uid gid feed hide writable cwd
 *            argc argv... envc env...
 *            (echo: 0 reads stdout, 1 reads it and sends it on as "echo" frames, 2 gives the command
 *            /dev/null as its stdout, unread, as hyperfine's --output=null: reading 20 MB a run
 *            takes a core's time that a program using every core would have had;
 *            uid and gid: the user the command runs as, -1 for the launcher's own; see drop_root;
 *            feed: "W R budget_ms tolerance_permille [min_reps cap_ms];v0 v1 …" (protocol 4, see parse_feed), or
 *            the variants alone, space-separated, "" for none (stdin /dev/null);
 *            hide: newline-separated paths the command must not see, see hide_paths;
 *            writable: the only paths the command may write, see seal_writer: a build's or a
 *            runtime's own tests' folder and caches, a benchmark's scratch folder; "" for
 *            none: nothing made read-only)
 *   answer:  frames "TAG LENGTH\n" + LENGTH bytes: "cgroup" (a cgroup made for the run, told
 *            at once so that the harness can empty it should this launcher die), "echo" (output
 *            as it comes, only when asked), then "stdout" (the kept lines), "times" (when each
 *            line arrived, ns after the start, space-separated), "fed" (when each variant was
 *            written), "threads" (the tree's threads at each line, see snapshot_threads),
 *            "steady" ("verdict first_timed repetitions": why the feed ended, see
 *            another_repetition), "protocol" (the line that broke protocol 4's rule, or empty),
 *            "head", "stderr", and last "result", one JSON object.
 * Protocol 3's conversation (docs/protocol.md): with a feed, the command's stdin is a pipe; the
 * launcher writes variant k (and a newline) right after the k-th line of stdout arrives (the
 * first line is the ready line), so no variant exists in the process before its repetition;
 * protocol 4: only after a line that is repetition k - 1's own, and only while the policy wants
 * another repetition (a steady state not yet seen, a budget not yet spent); then it closes the
 * pipe, which ends the process. Before each write it reads every thread of the tree, so
 * that the harness can tell which threads did a repetition's work.
 * The processes of the next runs are forked and placed in their cgroups ahead, between runs
 * (see "the next runs' processes" below).
 * End of file on stdin ends the launcher; SIGTERM, SIGINT, SIGHUP or SIGQUIT end the run in
 * progress (its answer says which) and then the launcher.
 *
 * usage: parbench-launch [--parent-pid PID]
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
#define SEALED_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SEALED_ARCH AUDIT_ARCH_AARCH64
#else
#error "parbench-launch seals benchmarks on x86-64 and arm64 only (deny_sealed_calls)"
#endif

#define MAX_TRACKED 65536
#define MAX_FIELDS 65536

extern char **environ;

struct request {
    long long timeout_ms;        /* 0: none */
    long long memory_limit_kb;   /* 0: none */
    long long sample_ms;
    int keep_lines, echo;
    long long max_stdout_bytes, max_line_bytes, max_lines, head_bytes, stderr_tail_bytes;
    long long uid, gid;          /* -1: the launcher's own */
    char *feed;                  /* protocol 3's variants, space-separated; "" for none */
    char *hide;                  /* newline-separated paths hidden from the command; "" for none */
    char *writable;              /* newline-separated paths the command may write (seal_writer); "" for all */
    char *cwd;
    char **argv, **env;
};

struct cgroup {
    long long run;               /* which run of this launcher: part of the cgroups' names */
    int version;                 /* 0: none, 1 or 2 */
    char path[PATH_MAX - 128];   /* room for a file name after it */
    char kill_path[PATH_MAX - 128];  /* a v2 cgroup with cgroup.kill holding the tree, or "" */
    int separate_kill;           /* kill_path is a group of its own (hybrid layout), kept by its slot */
    char cpu_path[PATH_MAX - 128];   /* where the tree's CPU time is read: v2 the cgroup itself
                                        (cpu.stat), v1 a cpuacct group of its own; "" for none */
    char pids_path[PATH_MAX - 128];  /* where the tree's peak task count is read (pids.peak): v2 the
                                        cgroup itself, v1 a pids group of its own; "" for none */
};

struct tree_memory {
    int count;
    long long peak_kb, peak_pss_kb;
    long long samples, pss_samples, pss_cost_ns;
    int rescans;                 /* ticks until the next /proc scan (no cgroup) */
    pid_t pids[MAX_TRACKED];     /* last: only the first `count` are read, so a run need not clear them */
};

struct usage {                   /* the run's children, summed as they are reaped */
    long long user_ns, sys_ns, max_rss_kb, nvcsw, nivcsw;
};

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long long tv_ns(struct timeval t) {
    return (long long)t.tv_sec * 1000000000LL + (long long)t.tv_usec * 1000LL;
}

/* --- SHA-256 (FIPS 180-4) of everything the run prints: exec compares runs by it ---------- */
struct sha256 {
    uint32_t h[8];
    uint64_t length;
    unsigned char block[64];
    size_t used;
};

static const uint32_t SHA_K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

#define ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha256_init(struct sha256 *s) {
    static const uint32_t start[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, start, sizeof start);
    s->length = 0;
    s->used = 0;
}

static void sha256_block(struct sha256 *s, const unsigned char *p) {
    uint32_t w[64], a[8];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ROTR(w[i - 15], 7) ^ ROTR(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ROTR(w[i - 2], 17) ^ ROTR(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    memcpy(a, s->h, sizeof a);
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = a[7] + (ROTR(a[4], 6) ^ ROTR(a[4], 11) ^ ROTR(a[4], 25)) + ((a[4] & a[5]) ^ (~a[4] & a[6]))
                      + SHA_K[i] + w[i];
        uint32_t t2 = (ROTR(a[0], 2) ^ ROTR(a[0], 13) ^ ROTR(a[0], 22)) + ((a[0] & a[1]) ^ (a[0] & a[2]) ^ (a[1] & a[2]));
        memmove(a + 1, a, 7 * sizeof a[0]);
        a[4] += t1;
        a[0] = t1 + t2;
    }
    for (int i = 0; i < 8; i++) s->h[i] += a[i];
}

static void sha256_update(struct sha256 *s, const unsigned char *data, size_t n) {
    s->length += n;
    while (n) {
        size_t take = 64 - s->used < n ? 64 - s->used : n;
        memcpy(s->block + s->used, data, take);
        s->used += take, data += take, n -= take;
        if (s->used == 64) {
            sha256_block(s, s->block);
            s->used = 0;
        }
    }
}

static void sha256_hex(struct sha256 *s, char out[65]) {
    uint64_t bits = s->length * 8;
    unsigned char pad = 0x80, zero = 0, length[8];
    sha256_update(s, &pad, 1);
    while (s->used != 56) sha256_update(s, &zero, 1);
    for (int i = 0; i < 8; i++) length[i] = (unsigned char)(bits >> (56 - 8 * i));
    sha256_update(s, length, 8);
    for (int i = 0; i < 8; i++) snprintf(out + 8 * i, 9, "%08x", s->h[i]);
}

/* --- small file helpers ------------------------------------------------------------------ */
static int write_text(const char *dir, const char *file, const char *text) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

static ssize_t read_text(const char *path, char *buffer, size_t size) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buffer, size - 1);
    close(fd);
    if (n < 0) return -1;
    buffer[n] = 0;
    return n;
}

static long long read_number(const char *dir, const char *file) {
    char path[PATH_MAX], text[64];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (read_text(path, text, sizeof text) <= 0) return -1;
    return atoll(text);
}

/* "key value" lines (memory.oom_control, memory.events): the value of key, or 0. */
static long long read_keyed(const char *dir, const char *file, const char *key) {
    char path[PATH_MAX], text[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (read_text(path, text, sizeof text) <= 0) return 0;
    size_t length = strlen(key);
    for (char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (strncmp(line, key, length) == 0 && line[length] == ' ') return atoll(line + length + 1);
    return 0;
}

/* --- the case's own memory cgroup --------------------------------------------------------- */
/* v1 (a memory hierarchy of its own): a child of the launcher's own memory cgroup.
 * v2: a child of /sys/fs/cgroup/parbench, whose memory controller is enabled for its children
 * (the launcher's own v2 cgroup holds processes, so it cannot delegate the controller). */
static const char *own_memory_cgroup(void) {
    static char found[PATH_MAX - 256];
    char text[8192], *line, *saveptr = NULL;
    if (found[0] || read_text("/proc/self/cgroup", text, sizeof text) <= 0) return found;
    for (line = strtok_r(text, "\n", &saveptr); line; line = strtok_r(NULL, "\n", &saveptr)) {
        char *controllers = strchr(line, ':');
        char *path = controllers ? strchr(controllers + 1, ':') : NULL;
        if (!path) continue;
        *path++ = 0;
        if (strcmp(controllers + 1, "memory") != 0) continue;
        snprintf(found, sizeof found, "/sys/fs/cgroup/memory%s", strcmp(path, "/") == 0 ? "" : path);
        break;
    }
    return found;
}

static int cgroup_v1(struct cgroup *cg) {
    const char *parent = own_memory_cgroup();    /* read once: the launcher never moves */
    if (!parent[0]) return -1;
    snprintf(cg->path, sizeof cg->path, "%s/parbench-%d-%lld", parent, (int)getpid(), cg->run);
    if (mkdir(cg->path, 0755) != 0) return -1;
    cg->version = 1;
    return 0;
}

static int cgroup_v2(struct cgroup *cg) {
    static int unavailable;                      /* asked once: a hierarchy is not mounted mid-run */
    char text[512];
    if (unavailable) return -1;
    if (read_text("/sys/fs/cgroup/cgroup.controllers", text, sizeof text) <= 0 || !strstr(text, "memory")) {
        unavailable = 1;
        return -1;
    }
    if (mkdir("/sys/fs/cgroup/parbench", 0755) != 0 && errno != EEXIST) return -1;
    write_text("/sys/fs/cgroup", "cgroup.subtree_control", "+memory");
    if (write_text("/sys/fs/cgroup/parbench", "cgroup.subtree_control", "+memory") != 0) return -1;
    snprintf(cg->path, sizeof cg->path, "/sys/fs/cgroup/parbench/%d-%lld", (int)getpid(), cg->run);
    if (mkdir(cg->path, 0755) != 0) return -1;
    cg->version = 2;
    return 0;
}

static int members_of(const char *dir, pid_t *out, int max);

/* A slot's kept kill group goes (it stays, as before, if a survivor is still in it); on v2 the
 * kill group is the memory cgroup, which its run removes. */
static void kill_group_release(struct cgroup *cg) {
    if (cg->separate_kill) rmdir(cg->kill_path);
    cg->separate_kill = 0;
    cg->kill_path[0] = 0;
}

/* The group the tree is killed by, in one write that a forking process cannot outrun
 * (cgroup.kill): the memory cgroup itself on v2; on a v1 machine with a v2 hierarchy mounted
 * beside it (systemd's hybrid layout, /sys/fs/cgroup/unified), a cgroup there with no
 * controllers. Without it the tree is killed by a loop over its members.
 * The hybrid layout's group measures nothing, so, unlike a memory cgroup (whose usage keeps
 * what a run left charged), it is kept for the next process parked in the same slot, which
 * spares a mkdir and an rmdir a run; only empty (kill_tree leaves it so), else a run's
 * survivor would be killed and counted with the next run. */
static void kill_group_setup(struct cgroup *cg) {
    char probe[PATH_MAX];
    pid_t member;
    if (cg->version == 1 && cg->separate_kill && members_of(cg->kill_path, &member, 1) == 0) return;
    kill_group_release(cg);
    if (cg->version == 2) {
        snprintf(probe, sizeof probe, "%s/cgroup.kill", cg->path);
        if (access(probe, W_OK) == 0) snprintf(cg->kill_path, sizeof cg->kill_path, "%s", cg->path);
        return;
    }
    static int made_parent;
    if (!made_parent && mkdir("/sys/fs/cgroup/unified/parbench", 0755) != 0 && errno != EEXIST) return;
    made_parent = 1;
    snprintf(cg->kill_path, sizeof cg->kill_path, "/sys/fs/cgroup/unified/parbench/%d-%lld", (int)getpid(), cg->run);
    snprintf(probe, sizeof probe, "%s/cgroup.kill", cg->kill_path);
    if (mkdir(cg->kill_path, 0755) != 0 || access(probe, W_OK) != 0) {
        rmdir(cg->kill_path);
        cg->kill_path[0] = 0;
        return;
    }
    cg->separate_kill = 1;
}

/* cgroup v1: the folder of the launcher's own group under `controller`'s hierarchy, where a
 * child group of its own may be made ("" when there is none to write). The hierarchy may be
 * mounted under its list of controllers ("cpu,cpuacct") or under the controller's own name. */
static void v1_own_group(const char *controller, char *parent, size_t size) {
    parent[0] = 0;
    char text[8192], *line, *saveptr = NULL, wanted[64];
    snprintf(wanted, sizeof wanted, ",%s,", controller);
    if (read_text("/proc/self/cgroup", text, sizeof text) <= 0) return;
    for (line = strtok_r(text, "\n", &saveptr); line; line = strtok_r(NULL, "\n", &saveptr)) {
        char *controllers = strchr(line, ':');
        char *path = controllers ? strchr(controllers + 1, ':') : NULL;
        if (!path) continue;
        *path++ = 0;
        char list[256];
        snprintf(list, sizeof list, ",%s,", controllers + 1);
        if (!strstr(list, wanted)) continue;
        const char *below = strcmp(path, "/") == 0 ? "" : path;
        snprintf(parent, size, "/sys/fs/cgroup/%s%s", controllers + 1, below);
        if (access(parent, W_OK) != 0) {
            snprintf(parent, size, "/sys/fs/cgroup/%s%s", controller, below);
            if (access(parent, W_OK) != 0) parent[0] = 0;
        }
        return;
    }
}

/* cgroup v1: a group of the run's own under `controller`'s hierarchy, a child of the
 * launcher's own group there (v1_own_group, looked up once per controller), named
 * parbench-KIND-PID-RUN, into `path` ("" where none can be made or `probe` cannot be read). */
static void v1_child_group(const char *controller, const char *kind, const char *probe_file,
                           const struct cgroup *cg, char *path, size_t size) {
    static struct { const char *controller; char parent[PATH_MAX - 256]; } looked[4];
    path[0] = 0;
    const char *parent = NULL;
    for (size_t i = 0; i < sizeof looked / sizeof looked[0] && !parent; i++) {
        if (!looked[i].controller) {
            looked[i].controller = controller;
            v1_own_group(controller, looked[i].parent, sizeof looked[i].parent);
        }
        if (strcmp(looked[i].controller, controller) == 0) parent = looked[i].parent;
    }
    if (!parent || !parent[0]) return;
    snprintf(path, size, "%s/parbench-%s-%d-%lld", parent, kind, (int)getpid(), cg->run);
    char probe[PATH_MAX];
    snprintf(probe, sizeof probe, "%s/%s", path, probe_file);
    if ((mkdir(path, 0755) != 0 && errno != EEXIST) || access(probe, R_OK) != 0) {
        rmdir(path);
        path[0] = 0;
    }
}

/* The tree's CPU time, threads that have ended included, in ns: what tells a repetition's
 * work done on threads made and joined inside it (protocol 3's checks) from work done on the
 * threads that are still there. v2: every cgroup has cpu.stat. v1: a cpuacct group of its
 * own beside the memory one. */
static void cpu_group_setup(struct cgroup *cg) {
    if (cg->version == 2) snprintf(cg->cpu_path, sizeof cg->cpu_path, "%s", cg->path);
    else v1_child_group("cpuacct", "cpu", "cpuacct.usage", cg, cg->cpu_path, sizeof cg->cpu_path);
}

/* The most tasks (threads of every process) the tree ever had at once, kept by the kernel:
 * a chain of n OS threads alive at once makes it reach n whenever it ran, which snapshots
 * taken at lines cannot see (the chain's threads have ended by then). v1: a pids group of its
 * own. */
static void pids_group_setup(struct cgroup *cg) {
    cg->pids_path[0] = 0;
    if (cg->version != 2) {
        v1_child_group("pids", "pids", "pids.peak", cg, cg->pids_path, sizeof cg->pids_path);
        return;
    }
    char probe[PATH_MAX];
    snprintf(probe, sizeof probe, "%s/pids.peak", cg->path);
    if (access(probe, R_OK) == 0) snprintf(cg->pids_path, sizeof cg->pids_path, "%s", cg->path);
}

static void pids_group_release(struct cgroup *cg) {
    if (cg->pids_path[0] && cg->version != 2) rmdir(cg->pids_path);
    cg->pids_path[0] = 0;
}

static void cpu_group_release(struct cgroup *cg) {
    if (cg->cpu_path[0] && cg->version != 2) rmdir(cg->cpu_path);
    cg->cpu_path[0] = 0;
}

/* The tree's CPU time so far in ns, or -1 where no cgroup counts it. */
static long long tree_cpu_ns(const struct cgroup *cg) {
    if (!cg->cpu_path[0]) return -1;
    if (cg->version == 2) {
        long long usec = read_keyed(cg->cpu_path, "cpu.stat", "usage_usec");
        return usec * 1000;
    }
    return read_number(cg->cpu_path, "cpuacct.usage");
}

static void cgroup_setup(struct cgroup *cg) {
    cg->version = 0;
    cg->cpu_path[0] = 0;
    cg->pids_path[0] = 0;
    if (getenv("PARBENCH_NO_CGROUP")) return;      /* tests of the sampled fallback */
    if (cgroup_v2(cg) != 0 && cgroup_v1(cg) != 0) {
        cg->version = 0;
        kill_group_release(cg);
        return;
    }
    kill_group_setup(cg);
    cpu_group_setup(cg);
    pids_group_setup(cg);
}

static long long cgroup_peak_kb(const struct cgroup *cg) {
    long long bytes = read_number(cg->path, cg->version == 2 ? "memory.peak" : "memory.max_usage_in_bytes");
    return bytes < 0 ? -1 : bytes / 1024;
}

static long long cgroup_oom_kills(const struct cgroup *cg) {
    return cg->version == 2 ? read_keyed(cg->path, "memory.events", "oom_kill")
                            : read_keyed(cg->path, "memory.oom_control", "oom_kill");
}

/* --- the rest of the machine -------------------------------------------------------------- */
/* CPU time of every CPU since boot (/proc/stat's first line): busy (user, nice, system, irq,
 * softirq; guests are inside user) and stolen by the hypervisor, in ns. Read just before and
 * just after a run, so that a run measured while the machine was busy elsewhere, or while its
 * virtual CPUs were taken away, says so. The kernel counts in ticks (10 ms). */
struct machine_cpu {
    long long busy_ns, steal_ns;
};

static struct machine_cpu machine_cpu(void) {
    struct machine_cpu now = {-1, -1};
    char text[512];
    long long user, nice, system, idle, iowait, irq, softirq, steal;
    if (read_text("/proc/stat", text, sizeof text) > 0 &&
        sscanf(text, "cpu %lld %lld %lld %lld %lld %lld %lld %lld", &user, &nice, &system, &idle, &iowait,
               &irq, &softirq, &steal) == 8) {
        long long tick_ns = 1000000000LL / sysconf(_SC_CLK_TCK);
        now.busy_ns = (user + nice + system + irq + softirq) * tick_ns;
        now.steal_ns = steal * tick_ns;
    }
    return now;
}

/* --- the tree: which processes, how much memory ------------------------------------------ */
static pid_t parent_of(pid_t pid) {
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (read_text(path, text, sizeof text) <= 0) return -1;
    char *end = strrchr(text, ')');          /* the command name may hold spaces and parens */
    if (!end) return -1;
    char state;
    int ppid;
    return sscanf(end + 2, "%c %d", &state, &ppid) == 2 ? ppid : -1;
}

/* The processes waiting for a later run (see "the next runs' processes" below): children of
 * this launcher, but of no run's tree, so never counted in one nor killed with it. */
static pid_t parked_pids[16];
static int parked_pid_count;

static int is_parked(pid_t pid) {
    for (int i = 0; i < parked_pid_count; i++)
        if (parked_pids[i] == pid) return 1;
    return 0;
}

/* Every live descendant of `root` but the parked, found by one scan of /proc. */
static int descendants(pid_t root, pid_t *out, int max) {
    static pid_t pid[MAX_TRACKED], ppid[MAX_TRACKED];
    int n = 0, count = 0;
    DIR *proc = opendir("/proc");
    if (!proc) return 0;
    for (struct dirent *e; (e = readdir(proc)) && n < MAX_TRACKED;) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        pid[n] = atoi(e->d_name);
        ppid[n] = parent_of(pid[n]);
        n++;
    }
    closedir(proc);
    out[count++] = root;
    for (int i = 0; i < count && count < max; i++)       /* breadth first from root */
        for (int j = 0; j < n && count < max; j++)
            if (ppid[j] == out[i] && !is_parked(pid[j])) out[count++] = pid[j];
    for (int i = 1; i < count; i++) out[i - 1] = out[i];  /* root (the launcher) is not counted */
    return count - 1;
}

static int members_of(const char *dir, pid_t *out, int max) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/cgroup.procs", dir);
    FILE *f = fopen(path, "re");
    if (!f) return 0;
    int count = 0, pid;
    while (count < max && fscanf(f, "%d", &pid) == 1) out[count++] = pid;
    fclose(f);
    return count;
}

static int cgroup_members(const struct cgroup *cg, pid_t *out, int max) {
    return members_of(cg->path, out, max);
}

static long long resident_kb(pid_t pid) {
    char path[64], text[256];
    snprintf(path, sizeof path, "/proc/%d/statm", (int)pid);
    if (read_text(path, text, sizeof text) <= 0) return 0;
    long long size, resident;
    if (sscanf(text, "%lld %lld", &size, &resident) != 2) return 0;
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* A process's proportional set size: each page shared by k processes counts 1/k, so the sum
 * over a tree counts every copy-on-write page of a forked pool once. */
static long long proportional_kb(pid_t pid) {
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%d/smaps_rollup", (int)pid);
    if (read_text(path, text, sizeof text) <= 0) return 0;
    char *pss = strstr(text, "\nPss:");
    return pss ? atoll(pss + 5) : 0;
}

/* One sample: the sum of the tree's RSS now, and of its PSS when that is cheap enough.
 * Without a cgroup the list of processes is refreshed by a /proc scan every 10th sample, which
 * is the expensive part. smaps_rollup walks every page table of a process (a large JVM takes
 * milliseconds), so PSS is read only while it has cost under PSS_SHARE of the run's time: the
 * launcher must not compete with what it measures. */
#define PSS_SHARE 0.02
#define SPARSE_SAMPLE_MS 200
static long long sample_tree(struct tree_memory *tree, const struct cgroup *cg, long long elapsed_ns) {
    if (cg->version) {
        tree->count = cgroup_members(cg, tree->pids, MAX_TRACKED);
    } else if (tree->rescans-- <= 0) {
        tree->count = descendants(getpid(), tree->pids, MAX_TRACKED);
        tree->rescans = 9;
    }
    long long sum = 0;
    for (int i = 0; i < tree->count; i++) sum += resident_kb(tree->pids[i]);
    if (sum > tree->peak_kb) tree->peak_kb = sum;
    tree->samples++;
    if (tree->pss_cost_ns <= PSS_SHARE * elapsed_ns) {
        long long began = now_ns(), pss = 0;
        for (int i = 0; i < tree->count; i++) pss += proportional_kb(tree->pids[i]);
        tree->pss_cost_ns += now_ns() - began;
        if (pss > tree->peak_pss_kb) tree->peak_pss_kb = pss;
        tree->pss_samples++;
    }
    return sum;
}

/* Reaps every child that has ended, adding its rusage (which holds its own reaped children's)
 * to the run's: a resident launcher outlives many runs, so RUSAGE_CHILDREN would mix them. */
static void reap(pid_t main_child, int *main_alive, int *status, struct usage *usage) {
    struct rusage ended_usage;
    int ended_status;
    pid_t done;
    while ((done = wait4(-1, &ended_status, WNOHANG, &ended_usage)) > 0) {
        usage->user_ns += tv_ns(ended_usage.ru_utime);
        usage->sys_ns += tv_ns(ended_usage.ru_stime);
        if (ended_usage.ru_maxrss > usage->max_rss_kb) usage->max_rss_kb = ended_usage.ru_maxrss;
        usage->nvcsw += ended_usage.ru_nvcsw;
        usage->nivcsw += ended_usage.ru_nivcsw;
        if (done == main_child) {
            *main_alive = 0;
            *status = ended_status;
        }
    }
}

/* Whether any process but the parked is left that this launcher will reap: a subreaper whose
 * only children are parked has no run's descendants either (an orphan of the run comes back to
 * it as a child), which spares the /proc scan after a run that left nothing behind. Where the
 * kernel does not list a process's children, the scan is made. */
static int has_children(void) {
    char path[64], text[4096];
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)getpid(), (int)getpid());
    if (read_text(path, text, sizeof text) < 0) return 1;
    for (char *word = strtok(text, " \n"); word; word = strtok(NULL, " \n"))
        if (!is_parked((pid_t)atoi(word))) return 1;
    return 0;
}

/* Kills every process of the tree and reaps them; returns how many besides the main child
 * were still alive (setsid() escapees, forgotten children). The tree is every member of the
 * case's cgroups and every descendant of this launcher (a subreaper: orphans come back to it),
 * so a process that moved itself out of the memory cgroup is still found by its ancestry. */
static int kill_tree(const struct cgroup *cg, pid_t main_child, int *main_alive, int *status,
                     struct usage *usage) {
    static pid_t pids[MAX_TRACKED];
    int killed = 0;
    if (*main_alive) kill(main_child, SIGKILL);
    for (int round = 0; round < 1000; round++) {
        if (cg->kill_path[0]) write_text(cg->kill_path, "cgroup.kill", "1");
        int count = has_children() ? descendants(getpid(), pids, MAX_TRACKED) : 0;
        if (cg->version) count += cgroup_members(cg, pids + count, MAX_TRACKED - count);
        if (cg->kill_path[0]) count += members_of(cg->kill_path, pids + count, MAX_TRACKED - count);
        for (int i = 0; i < count; i++)
            if (pids[i] != main_child && pids[i] != getpid() && !is_parked(pids[i]) && kill(pids[i], SIGKILL) == 0)
                killed++;
        reap(main_child, main_alive, status, usage);
        if (count == 0 && !*main_alive) break;
        usleep(2000);
    }
    return killed;
}

/* --- what the run prints ------------------------------------------------------------------ */
struct buffer {
    char *data;
    size_t length, capacity;
};

static int append(struct buffer *b, const char *data, size_t n) {
    if (b->length + n > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 4096;
        while (capacity < b->length + n) capacity *= 2;
        char *grown = realloc(b->data, capacity);
        if (!grown) return -1;
        b->data = grown, b->capacity = capacity;
    }
    memcpy(b->data + b->length, data, n);
    b->length += n;
    return 0;
}

static void release(struct buffer *b) {
    free(b->data);
    memset(b, 0, sizeof *b);
}

/* Tasks (processes and threads) the whole machine has made since boot: /proc/stat's
 * `processes`, counted by every clone. -1 where it cannot be read. Between two lines it bounds
 * from above the threads and processes the tree made in that repetition, whatever ended before
 * the line: a chain that claims n units but made fewer cannot raise it by n. */
static long long machine_forks(void) {
    static char text[1 << 16];                 /* the `intr` line before it is long on a big machine */
    int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t used = 0;
    for (ssize_t n; used < sizeof text - 1 && (n = read(fd, text + used, sizeof text - 1 - used)) > 0;) used += (size_t)n;
    close(fd);
    text[used] = 0;
    char *line = strstr(text, "\nprocesses ");
    return line ? atoll(line + strlen("\nprocesses ")) : -1;
}

/* --- the tree's threads at a line (protocol 3) -------------------------------------------- */
/* One line of the "threads" frame: when (ns after the start), the tree's CPU time (-1 where no
 * cgroup counts it), then every thread of every process of the tree as pid.tid:ns, its CPU
 * time from schedstat, after `peak=N` where the kernel keeps the tree's peak task count and
 * `forks=N`, the machine's tasks made since boot (machine_forks). Taken when a line arrives, before the next variant is written, so the
 * process is waiting on its stdin and nothing it does is in between.
 * Each thread is pid.tid:ns:delay, delay schedstat's second field: the time it sat runnable
 * waiting for a core; and `wait=N` is how long the launcher itself, woken for this line, waited
 * for a core before it read it. Both let the harness tell waiting from work hidden between two
 * lines. */
/* Each thread's run delay at the last snapshot, by tid, to take the longest wait of any one thread
 * over a repetition (wait_since_last): open addressing, an entry older than the last snapshot is
 * free. One thread's wait, not their sum: workers waiting side by side stretch the gap once. */
#define WAIT_SLOTS 131072
static struct { int tid; long long delay, generation; } waits[WAIT_SLOTS];
/* own_before_poll: the launcher's run delay as it went to sleep in poll, so that own_wait is only
 * the wait to be woken for the line: its other wake-ups (the memory samples) fall while the
 * process works, and must not be taken off a gap they did not stretch. */
static long long wait_generation = 2, longest_wait, own_wait, own_before_poll = -1;   /* 2: a slot never used (0) is free */

static long long own_run_delay(void) {
    char text[128];
    if (read_text("/proc/thread-self/schedstat", text, sizeof text) <= 0) return -1;
    char *delay = strchr(text, ' ');
    return delay ? atoll(delay + 1) : -1;
}

static void note_wait(int tid, long long delay) {
    for (unsigned i = (unsigned)tid * 2654435761u % WAIT_SLOTS, n = 0; n < WAIT_SLOTS; i = (i + 1) % WAIT_SLOTS, n++) {
        if (waits[i].tid == tid && waits[i].generation == wait_generation - 1) {
            if (delay - waits[i].delay > longest_wait) longest_wait = delay - waits[i].delay;
        } else if (waits[i].generation >= wait_generation - 1) {
            continue;
        } else if (delay > longest_wait) {
            longest_wait = delay;                   /* a thread made since the last snapshot */
        }
        waits[i].tid = tid, waits[i].delay = delay, waits[i].generation = wait_generation;
        return;
    }
}

/* The wait of the last repetition as snapshot_threads saw it: the launcher's own (woken late for
 * the line) and the longest of any thread of the tree. */
static long long wait_since_last(void) {
    return longest_wait + (own_wait > 0 ? own_wait : 0);
}

static void snapshot_threads(struct buffer *into, const struct cgroup *cg, pid_t child, long long at_ns) {
    static pid_t pids[MAX_TRACKED];
    int count = cg->version ? cgroup_members(cg, pids, MAX_TRACKED) : descendants(getpid(), pids, MAX_TRACKED);
    if (count == 0) pids[count++] = child;
    char text[96];
    int length = snprintf(text, sizeof text, "%lld %lld", at_ns, tree_cpu_ns(cg));
    append(into, text, (size_t)length);
    long long peak = cg->pids_path[0] ? read_number(cg->pids_path, "pids.peak") : -1;
    if (peak >= 0) append(into, text, (size_t)snprintf(text, sizeof text, " peak=%lld", peak));
    long long forks = machine_forks();
    if (forks >= 0) append(into, text, (size_t)snprintf(text, sizeof text, " forks=%lld", forks));
    wait_generation++, longest_wait = 0, own_wait = 0;
    long long own_now = own_run_delay();
    if (own_now >= 0 && own_before_poll >= 0) {
        own_wait = own_now - own_before_poll;
        append(into, text, (size_t)snprintf(text, sizeof text, " wait=%lld", own_wait));
    }
    own_before_poll = own_now;             /* a second line of the same wake-up waited for nothing more */
    for (int i = 0; i < count; i++) {
        char path[96];
        snprintf(path, sizeof path, "/proc/%d/task", (int)pids[i]);
        DIR *tasks = opendir(path);
        if (!tasks) continue;
        for (struct dirent *e; (e = readdir(tasks));) {
            if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
            char stat_path[320], stat[128];
            snprintf(stat_path, sizeof stat_path, "/proc/%d/task/%s/schedstat", (int)pids[i], e->d_name);
            if (read_text(stat_path, stat, sizeof stat) <= 0) continue;
            char *delay = strchr(stat, ' ');
            long long waited = delay ? atoll(delay + 1) : 0LL;
            note_wait(atoi(e->d_name), waited);
            length = snprintf(text, sizeof text, " %d.%s:%lld:%lld", (int)pids[i], e->d_name, atoll(stat), waited);
            append(into, text, (size_t)length);
        }
        closedir(tasks);
    }
    append(into, "\n", 1);
}

/* stdout: digested whole; its head kept; in protocol mode its lines kept within the caps,
 * each with the time its newline arrived. A cap that is hit stops the run (`problem`). */
struct output {
    struct sha256 digest;
    struct buffer head, lines, times;
    long long total, line_count, line_start;   /* line_start: offset of the unfinished line */
    long long bytes;                           /* every byte read, in any mode */
    const char *problem;                       /* "bytes", "line", "lines" or NULL */
};

static void take_stdout(struct output *out, const struct request *r, const char *chunk, size_t n,
                        long long at_ns) {
    sha256_update(&out->digest, (const unsigned char *)chunk, n);
    out->bytes += (long long)n;
    if ((long long)out->head.length < r->head_bytes) {
        size_t room = (size_t)(r->head_bytes - (long long)out->head.length);
        append(&out->head, chunk, n < room ? n : room);
    }
    if (!r->keep_lines || out->problem) return;
    out->total += n;
    size_t from = out->lines.length;
    if (append(&out->lines, chunk, n) != 0) {
        out->problem = "bytes";
        return;
    }
    for (size_t i = from; i < out->lines.length; i++) {
        if (out->lines.data[i] != '\n') continue;
        char stamp[32];
        int length = snprintf(stamp, sizeof stamp, "%lld ", at_ns);
        append(&out->times, stamp, (size_t)length);
        if ((long long)i - out->line_start > r->max_line_bytes) out->problem = "line";
        out->line_start = (long long)i + 1;
        out->line_count++;
    }
    if (out->total > r->max_stdout_bytes) out->problem = "bytes";
    else if ((long long)out->lines.length - out->line_start > r->max_line_bytes) out->problem = "line";
    else if (out->line_count > r->max_lines) out->problem = "lines";
}

/* stderr: only its last stderr_tail_bytes, kept in a buffer twice that size that slides. */
static void take_stderr(struct buffer *tail, const struct request *r, const char *chunk, size_t n) {
    append(tail, chunk, n);
    if ((long long)tail->length > 2 * r->stderr_tail_bytes) {
        size_t drop = tail->length - (size_t)r->stderr_tail_bytes;
        memmove(tail->data, tail->data + drop, tail->length - drop);
        tail->length -= drop;
    }
}

/* --- answers --------------------------------------------------------------------------------- */
static int write_all(int fd, const char *data, size_t n) {
    while (n) {
        ssize_t done = write(fd, data, n);
        if (done < 0 && errno == EINTR) continue;
        if (done <= 0) return -1;
        data += done, n -= (size_t)done;
    }
    return 0;
}

/* Frames are gathered and written together (their data must live until then), so that the
 * harness wakes once per answer rather than once per frame. */
#define MAX_FRAMES 8
static struct iovec gathered[2 * MAX_FRAMES];
static char frame_headers[MAX_FRAMES][64];
static int frames;

static void send_frames(void) {
    ssize_t done;
    do done = writev(1, gathered, 2 * frames); while (done < 0 && errno == EINTR);
    for (int i = 0; done >= 0 && i < 2 * frames; i++) {  /* a write cut short: the rest, piece by piece */
        size_t length = gathered[i].iov_len, skip = (size_t)done < length ? (size_t)done : length;
        done -= (ssize_t)skip;
        if (skip < length && write_all(1, (char *)gathered[i].iov_base + skip, length - skip) != 0) break;
    }
    frames = 0;
}

static void frame(const char *tag, const char *data, size_t n) {
    if (frames == MAX_FRAMES) send_frames();
    int length = snprintf(frame_headers[frames], sizeof frame_headers[frames], "%s %zu\n", tag, n);
    gathered[2 * frames] = (struct iovec){frame_headers[frames], (size_t)length};
    gathered[2 * frames + 1] = (struct iovec){(void *)data, n};
    frames++;
}

/* Output shown as it comes (exec --show-output): sent at once, before its buffer is reused. */
static void echo(const char *chunk, size_t n) {
    frame("echo", chunk, n);
    send_frames();
}

/* --- requests ------------------------------------------------------------------------------ */
static int read_exactly(int fd, char *into, size_t n) {
    while (n) {
        ssize_t got = read(fd, into, n);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return -1;
        into += got, n -= (size_t)got;
    }
    return 0;
}

/* The next request's bytes from fd, its 10-digit length header included (*size all of it);
 * NULL at end of file or on a malformed length. The caller frees it. */
static char *read_raw(int fd, size_t *size) {
    char header[11] = {0};
    if (read_exactly(fd, header, 10) != 0) return NULL;
    long long length = atoll(header);
    if (length <= 0 || length > (1LL << 30)) return NULL;
    char *raw = malloc((size_t)length + 11);
    if (!raw) return NULL;
    memcpy(raw, header, 10);
    if (read_exactly(fd, raw + 10, (size_t)length) != 0) {
        free(raw);
        return NULL;
    }
    raw[10 + length] = 0;
    *size = (size_t)length + 10;
    return raw;
}

/* The request in raw (read_raw's bytes) into `r`, whose strings point into raw; -1 if malformed. */
static int parse_request(char *raw, size_t size, struct request *r) {
    char *data = raw + 10, *end = raw + size;
    static char *field[MAX_FIELDS + 2];
    int count = 0;
    for (char *p = data; p < end && count < MAX_FIELDS; p += strlen(p) + 1) field[count++] = p;
    if (count < 17) return -1;
    long long *numbers[] = {&r->timeout_ms, &r->memory_limit_kb, &r->sample_ms, NULL, NULL,
                            &r->max_stdout_bytes, &r->max_line_bytes, &r->max_lines, &r->head_bytes,
                            &r->stderr_tail_bytes, &r->uid, &r->gid};
    for (int i = 0; i < 12; i++)
        if (numbers[i]) *numbers[i] = atoll(field[i]);
    r->keep_lines = atoi(field[3]);
    r->echo = atoi(field[4]);
    if (r->sample_ms <= 0) r->sample_ms = 10;
    r->feed = field[12];
    r->hide = field[13];
    r->writable = field[14];
    r->cwd = field[15];
    int argc = atoi(field[16]);
    if (argc < 1 || 17 + argc >= count) return -1;
    int envc = atoi(field[17 + argc]);
    if (envc < 0 || 18 + argc + envc > count) return -1;
    static char *argv[MAX_FIELDS + 1], *env[MAX_FIELDS + 1];
    memcpy(argv, field + 17, (size_t)argc * sizeof *argv);
    argv[argc] = NULL;
    memcpy(env, field + 18 + argc, (size_t)envc * sizeof *env);
    env[envc] = NULL;
    r->argv = argv, r->env = env;
    return 0;
}

/* --- the next runs' processes, made ready while the harness is busy -------------------------- */
/* Between runs the launcher forks the next runs' processes and puts each in its run's cgroups,
 * while the harness judges and stores the run before: moving a process between cgroups waits
 * for an RCU grace period (up to ~17 ms) unless another move happened just before, so the
 * processes are made PARKED at a time, which pays that wait once for PARKED runs, and none of
 * it is timed or spent between the harness's request and its run. Each waits for its request on
 * a pipe; the run's clock starts when the launcher hands the request over, so it covers exec and
 * the command, as hyperfine's does, and not the cgroup's bookkeeping. */
#define PARKED 8
struct parked {
    pid_t pid;                   /* 0: none */
    int request_fd, feed_fd, out, err;   /* the launcher's ends (feed_fd: the command's stdin) */
    struct cgroup cg;
};

/* The child becomes uid/gid, keeping one capability, CAP_DAC_READ_SEARCH, ambient so that it
 * survives exec: it can still read the project wherever it lives (under /root, a mode-700 clone)
 * but writes only what that user may, so it cannot move itself out of its cgroups (their files
 * are root's) nor signal the launcher or the harness. No new privileges: a setuid program cannot
 * give root back. Raw syscalls: no libcap. */
static int drop_root(uid_t uid, gid_t gid) {
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2] = {{0}};
    data[0].effective = data[0].permitted = data[0].inheritable = 1u << CAP_DAC_READ_SEARCH;
    if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0 || setgroups(0, NULL) != 0 ||
        setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0) return -1;
    if (syscall(SYS_capset, &header, data) != 0) return -1;
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_DAC_READ_SEARCH, 0, 0) != 0) return -1;
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

/* System calls a sealed command may not make, with EPERM, for it and everything it starts (a
 * filter is inherited and cannot be removed). Raw BPF: no libseccomp.
 * - The file-handle calls: no way around the hidden paths by file handle. CAP_DAC_READ_SEARCH,
 *   which the command keeps (drop_root), is exactly what open_by_handle_at(2) asks, and an ext4
 *   handle is little more than an inode number, readable beside a hidden folder.
 * - The kernel's keyrings: a key added to the user's keyring outlives every process of that user,
 *   so one benchmark process could leave the next a memo of variant -> answer there. */
static const int SEALED_CALLS_DENIED[] = {__NR_open_by_handle_at, __NR_name_to_handle_at,
                                          __NR_add_key, __NR_request_key, __NR_keyctl};
#define DENIED_COUNT (int)(sizeof SEALED_CALLS_DENIED / sizeof *SEALED_CALLS_DENIED)

static int deny_sealed_calls(void) {
    struct sock_filter filter[DENIED_COUNT + 7];
    int at = 0;
    filter[at++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    filter[at++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SEALED_ARCH, 1, 0);
    filter[at++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);  /* another ABI: no way to check it */
    filter[at++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    filter[at++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, DENIED_COUNT + 1, 0);  /* x32's: none is needed */
    for (int i = 0; i < DENIED_COUNT; i++)     /* each a jump over the rest and the "allow" to "deny" */
        filter[at++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)SEALED_CALLS_DENIED[i],
                                                    (unsigned char)(DENIED_COUNT - i), 0);
    filter[at++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    filter[at++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
    struct sock_fprog program = {(unsigned short)at, filter};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0);
}

/* No way round the hidden paths through another process's /proc/PID/root or /proc/PID/cwd
 * either: the kernel lets a process in there when it may trace the other, which for two
 * processes of one user comes down to holding no fewer capabilities: a build (root without a
 * capability) may enter every other such root process, a benchmark every other of its user's,
 * whose namespaces hide other paths or none. Landlock confines tracing to the caller's own
 * sandbox and those nested in it (Linux 5.13). Its ruleset handles only making device nodes,
 * which none of them may do anyway: every file stays as the mounts and the user allow. A kernel
 * without Landlock leaves this way open (docs/reliability.md, "What remains"), and says so. */
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif
#define LANDLOCK_MAKE_CHAR (1ULL << 6)
#define LANDLOCK_MAKE_BLOCK (1ULL << 11)
#define LANDLOCK_REFER (1ULL << 13)
#define LANDLOCK_RULESET_VERSION (1U << 0)
#define LANDLOCK_RULE_PATH_BENEATH 1

struct landlock_path_beneath {          /* <linux/landlock.h>'s, which the build may lack */
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

/* From Landlock's ABI 2 on, a ruleset that does not handle "refer" denies every rename or link
 * between two folders (EXDEV): cargo's rustc writes each .rmeta in a folder of its own and
 * renames it into deps/, and failed. So where the kernel knows "refer", the ruleset handles it
 * and grants it beneath "/": files move as the mounts and the user allow, as before. */
static int allow_moving_files(int ruleset) {
    int abi = (int)syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_RULESET_VERSION);
    if (abi < 2) return 0;
    struct landlock_path_beneath rule = {LANDLOCK_REFER, open("/", O_PATH | O_CLOEXEC)};
    if (rule.parent_fd < 0) return -1;
    int added = (int)syscall(__NR_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
    close(rule.parent_fd);
    return added;
}

static int confine_tracing(void) {
    int abi = (int)syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_RULESET_VERSION);
    uint64_t handled_access_fs = LANDLOCK_MAKE_CHAR | LANDLOCK_MAKE_BLOCK | (abi >= 2 ? LANDLOCK_REFER : 0);
    int ruleset = (int)syscall(__NR_landlock_create_ruleset, &handled_access_fs, sizeof handled_access_fs, 0);
    if (ruleset < 0) {
        if (errno != ENOSYS && errno != EOPNOTSUPP) return -1;
        fprintf(stderr, "parbench-launch: this kernel has no Landlock: /proc/PID/root of another process of "
                        "this user is not closed\n");
        return 0;
    }
    if (allow_moving_files(ruleset) != 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        close(ruleset);
        return -1;
    }
    int restricted = (int)syscall(__NR_landlock_restrict_self, ruleset, 0);
    close(ruleset);
    return restricted;
}

/* A sealed command's own namespaces, made while it is still root: a mount namespace, so that
 * what hide_paths and seal_writer mount is seen by it alone, and an IPC namespace, so that SysV
 * shared memory, semaphores and message queues and POSIX message queues are its tree's own and
 * go with it: nothing one process keeps there is found by the next (a memo of variant -> answer). */
static int own_namespaces(void) {
    if (unshare(CLONE_NEWNS | CLONE_NEWIPC) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
        fprintf(stderr, "parbench-launch: cannot make the namespaces that seal the command: %s\n", strerror(errno));
        return -1;
    }
    return 0;
}

/* The harness's answers and records out of the command's sight (sealed answers,
 * docs/reliability.md): in the command's own mount namespace, each path that exists becomes
 * an empty directory no one may read, or /dev/null. A path that cannot be hidden ends the run:
 * a benchmark that could read the answers must not be measured as if it could not. */
static int hide_paths(char *paths) {
    char *saveptr = NULL;
    for (char *path = strtok_r(paths, "\n", &saveptr); path; path = strtok_r(NULL, "\n", &saveptr)) {
        struct stat st;
        if (stat(path, &st) != 0) continue;
        int failed = S_ISDIR(st.st_mode)
            ? mount("tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=000")
            : mount("/dev/null", path, NULL, MS_BIND, NULL);
        if (failed) {
            fprintf(stderr, "parbench-launch: cannot hide %s from the benchmark: %s\n", path, strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* mount_setattr(2) (Linux 5.12): glibc before 2.36 has neither the call nor its structure. */
#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
struct mount_attributes { uint64_t attr_set, attr_clr, propagation, userns_fd; };
#define READ_ONLY_MOUNT 0x00000001       /* MOUNT_ATTR_RDONLY */

static int set_mount_attributes(const char *path, unsigned int flags, uint64_t set, uint64_t clear) {
    struct mount_attributes attributes = {set, clear, 0, 0};
    return (int)syscall(__NR_mount_setattr, AT_FDCWD, path, flags, &attributes, sizeof attributes);
}

/* Nothing a sealed command writes outlives it but what `writable` holds (docs/reliability.md,
 * "Sealed answers"). In the command's own mount namespace every mount becomes read-only but
 * `writable` (each bound onto itself first, recursively, so a hidden path inside stays hidden
 * and read-only): /tmp, /var/tmp, /run/lock and every world-writable folder below them are
 * read-only too, and /dev/shm is an empty tmpfs of the call's own.
 * A benchmark's `writable` is its scratch folder (its HOME and TMPDIR), which the harness removes
 * after the process: a memo of variant -> answer has nowhere to wait for the next process.
 * A build and a runtime's own tests keep the launcher's user, root, because they write the
 * registries' caches and their own folder, which root owns: their `writable`. Root could undo
 * the seal (unmount the hidden paths, remount, ptrace the harness, read it through
 * /proc/PID/root) and rewrite the harness's own code, so drop_every_capability then takes away
 * what could change any of it; a benchmark loses the same in drop_root. */
static int seal_writer(char *writable) {
    char *paths[64];
    int count = 0;
    char *saveptr = NULL;
    for (char *path = strtok_r(writable, "\n", &saveptr); path && count < 64; path = strtok_r(NULL, "\n", &saveptr)) {
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) continue;
        if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) != 0) {
            fprintf(stderr, "parbench-launch: cannot keep %s writable: %s\n", path, strerror(errno));
            return -1;
        }
        paths[count++] = path;
    }
    if (set_mount_attributes("/", AT_RECURSIVE, READ_ONLY_MOUNT, 0) != 0) {
        fprintf(stderr, "parbench-launch: cannot make the machine read-only for the command: %s\n", strerror(errno));
        return -1;
    }
    for (int i = 0; i < count; i++)
        if (set_mount_attributes(paths[i], 0, 0, READ_ONLY_MOUNT) != 0) {
            fprintf(stderr, "parbench-launch: cannot make %s writable again: %s\n", paths[i], strerror(errno));
            return -1;
        }
    /* /dev/shm only: the harness's project may live under /tmp (a fresh clone), so /tmp stays
     * as it is, read-only, and the call writes into the TMPDIR it is given (sealing.py). */
    if (mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") != 0 && errno != ENOENT) {
        fprintf(stderr, "parbench-launch: cannot give the command a /dev/shm of its own: %s\n", strerror(errno));
        return -1;
    }
    return 0;
}

/* Root without a single capability: it still owns root's files (its caches, its folder) but can
 * mount nothing, trace no process that holds more than it, read no raw memory, and no exec gives
 * a capability back (the bounding set is empty; no_new_privs follows with the seccomp filter). */
static int drop_every_capability(void) {
    for (int cap = 0; cap <= 63; cap++)
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) return -1;
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2] = {{0}};
    return (int)syscall(SYS_capset, &header, data);
}

/* In the child, between fork and exec: its request, its output to the launcher's pipes, stdin
 * the feed's pipe (protocol 3) or empty, the signals as a fresh process has them, a process group of its own (a command's
 * `kill 0`, the `trap 'kill 0' EXIT` idiom, reaches the command's processes, never this
 * launcher), the user the request names. An unreadable request (the launcher ended) ends it
 * quietly. */
static void become_command(int request_fd, int in, int out, int err, const sigset_t *mask) {
    size_t size;
    char *raw = read_raw(request_fd, &size);
    struct request r;
    if (!raw || parse_request(raw, size, &r) != 0) _exit(127);
    int null = open("/dev/null", O_RDONLY);
    dup2(r.feed[0] ? in : null, 0);
    /* park closed 1: /dev/null opens as 1 itself (no CLOEXEC, no stray descriptor), the dup2 a no-op */
    dup2(r.echo == 2 ? open("/dev/null", O_WRONLY) : out, 1);
    dup2(err, 2);
    signal(SIGPIPE, SIG_DFL);
    sigprocmask(SIG_SETMASK, mask, NULL);
    setpgid(0, 0);
    int sealed = r.hide[0] || r.writable[0];
    if (sealed && (own_namespaces() != 0 || hide_paths(r.hide) != 0)) _exit(127);
    /* A call that keeps root's user (a build) loses every capability here; one that becomes
     * another user (a benchmark) loses them in drop_root, which needs CAP_SETUID, so after. */
    if (r.writable[0] && (seal_writer(r.writable) != 0 || (r.uid < 0 && drop_every_capability() != 0))) {
        fprintf(stderr, "parbench-launch: cannot seal the command: %s\n", strerror(errno));
        _exit(127);
    }
    if (r.uid >= 0 && drop_root((uid_t)r.uid, (gid_t)r.gid) != 0) {
        fprintf(stderr, "parbench-launch: cannot become uid %lld: %s\n", r.uid, strerror(errno));
        _exit(127);
    }
    if (sealed && deny_sealed_calls() != 0) {
        fprintf(stderr, "parbench-launch: cannot deny the benchmark open_by_handle_at and the keyrings: %s\n",
                strerror(errno));
        _exit(127);
    }
    if (sealed && confine_tracing() != 0) {
        fprintf(stderr, "parbench-launch: cannot confine the benchmark's /proc/PID/root: %s\n", strerror(errno));
        _exit(127);
    }
    if (r.cwd[0] && chdir(r.cwd) != 0) {
        fprintf(stderr, "parbench-launch: cannot enter %s: %s\n", r.cwd, strerror(errno));
        _exit(127);
    }
    environ = r.env;                             /* execvp looks the command up in its PATH */
    execvp(r.argv[0], r.argv);
    fprintf(stderr, "parbench-launch: cannot run %s: %s\n", r.argv[0], strerror(errno));
    _exit(127);
}

/* `next` is made ready; `others` (already ready) keep their pipes: the new process closes its
 * copies, else a process waiting for its request would never see the launcher's end. */
static void park(struct parked *next, const struct parked *others, int count, long long run_number,
                 const sigset_t *mask) {
    int request[2], in[2], out[2], err[2];
    next->cg.run = run_number;
    cgroup_setup(&next->cg);
    if (pipe2(request, O_CLOEXEC) || pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
        perror("parbench-launch: pipe");
        exit(2);
    }
    pid_t child = fork();
    if (child < 0) {
        perror("parbench-launch: fork");
        exit(2);
    }
    if (child == 0) {
        close(request[1]), close(in[1]), close(out[0]), close(err[0]), close(0), close(1);
        for (int i = 0; i < count; i++)
            close(others[i].request_fd), close(others[i].feed_fd), close(others[i].out), close(others[i].err);
        become_command(request[0], in[0], out[1], err[1], mask);
    }
    close(request[0]), close(in[0]), close(out[1]), close(err[1]);
    char pid_text[32];
    snprintf(pid_text, sizeof pid_text, "%d", (int)child);
    if (next->cg.version) write_text(next->cg.path, "cgroup.procs", pid_text);
    if (next->cg.cpu_path[0] && next->cg.version != 2 && write_text(next->cg.cpu_path, "cgroup.procs", pid_text) != 0)
        cpu_group_release(&next->cg);
    if (next->cg.pids_path[0] && next->cg.version != 2 && write_text(next->cg.pids_path, "cgroup.procs", pid_text) != 0)
        pids_group_release(&next->cg);
    if (next->cg.kill_path[0] && write_text(next->cg.kill_path, "cgroup.procs", pid_text) != 0)
        kill_group_release(&next->cg);
    next->pid = child, next->request_fd = request[1], next->feed_fd = in[1], next->out = out[0], next->err = err[0];
}

/* The launcher ends: the parked process reads end of file and exits; its cgroups go, and the
 * kill group a used slot kept. */
static void unpark(struct parked *next) {
    if (next->pid) {
        close(next->request_fd), close(next->feed_fd), close(next->out), close(next->err);
        waitpid(next->pid, NULL, 0);
        if (next->cg.version) rmdir(next->cg.path);    /* on v2 also its kill group */
        cpu_group_release(&next->cg);
        pids_group_release(&next->cg);
        next->pid = 0;
    }
    kill_group_release(&next->cg);
}

/* The run's memory limit on its cgroup; 0 where the cgroup cannot take it (the launcher then
 * enforces the sampled sum). */
static int limit_cgroup(const struct cgroup *cg, long long limit_kb) {
    if (!cg->version || limit_kb <= 0) return 0;
    char limit[32];
    snprintf(limit, sizeof limit, "%lld", limit_kb * 1024);
    if (write_text(cg->path, cg->version == 2 ? "memory.max" : "memory.limit_in_bytes", limit) != 0) return 0;
    if (cg->version == 2) write_text(cg->path, "memory.swap.max", "0");
    return 1;
}

/* --- one run --------------------------------------------------------------------------------- */
static ssize_t drain(int fd, char *chunk, size_t size) {
    ssize_t n;
    do n = read(fd, chunk, size); while (n < 0 && errno == EINTR);
    return n;
}

/* Protocol 3 and 4's side of the conversation: the variants still to write, what was seen at
 * each line, and when to stop writing them (docs/protocol.md, "Protocol 4"). */
#define MAX_SERIES 4096
struct feed {
    char *next;                  /* the rest of the request's feed: variants, space-separated */
    int fd;                      /* the command's stdin; -1 once closed */
    long long lines_seen;        /* stdout lines answered so far */
    long long variants;          /* how many the request holds: one line each, and the ready line */
    struct buffer fed, threads;  /* when each variant was written; the tree's threads at each line */
    /* The policy, from the request's feed field ("W R budget_ms tolerance_permille;v0 v1 …"):
     * warmup < 0 is "auto", a steady state found by the window test below; else exactly
     * warmup + timed repetitions. */
    long long warmup, timed, budget_ns, tolerance_permille;
    /* The budget in repetitions too: past budget_ns, go on until min_reps, while within cap_ns
     * (a first repetition of 0.8 s must not leave no room for a second). */
    long long min_reps, cap_ns;
    /* Each repetition as this launcher's clock saw it: from writing its variant to reading its
     * line, less the longest time one of the tree's threads, or the launcher, sat waiting for a
     * core meanwhile (a busy machine's noise, not the process's). Never the line's own ns: a
     * process that chose the series would choose which of its repetitions are timed
     * (docs/protocol.md, "What a process can know"). Sent back whole ("series"). */
    long long series[MAX_SERIES];
    struct buffer series_text;
    long long reps, first_fed_ns, last_fed_ns;
    size_t line_offset;          /* where the next line to judge starts in the kept stdout */
    const char *verdict;         /* why the feed ended: steady, budget, fixed, protocol, NULL */
    long long first_timed;       /* the first timed repetition, once the verdict is in */
    char problem[400];           /* the line that broke "one line, one variant", quoted */
};

/* Where the value of the top-level member `key` of the JSON object in line[0, n) starts, or NULL.
 * A scan, not a parser: strings are stepped over whole (escapes included) and depth is counted, so
 * a "rep" inside a string or a nested object is not taken. The harness parses every line fully
 * afterwards; this only decides whether the line earns the next variant. */
static const char *top_level_member(const char *line, size_t n, const char *key) {
    size_t i = 0, key_length = strlen(key);
    while (i < n && (line[i] == ' ' || line[i] == '\t')) i++;
    if (i >= n || line[i] != '{') return NULL;
    int depth = 0;
    for (; i < n; i++) {
        char c = line[i];
        if (c == '{' || c == '[') depth++;
        else if (c == '}' || c == ']') depth--;
        else if (c == '"') {
            size_t start = ++i;
            while (i < n && line[i] != '"') i += line[i] == '\\' ? 2 : 1;
            if (i >= n) return NULL;
            if (depth != 1 || i - start != key_length || memcmp(line + start, key, key_length) != 0) continue;
            size_t j = i + 1;
            while (j < n && (line[j] == ' ' || line[j] == '\t')) j++;
            if (j >= n || line[j] != ':') continue;      /* a string value that spells the key */
            for (j++; j < n && (line[j] == ' ' || line[j] == '\t'); j++) {}
            return j < n ? line + j : NULL;
        }
    }
    return NULL;
}

/* The top-level member `key` as a non-negative decimal integer (no sign, no fraction), or -1. */
static long long top_level_integer(const char *line, size_t n, const char *key) {
    const char *value = top_level_member(line, n, key);
    if (!value) return -1;
    long long number = 0;
    const char *p = value, *end = line + n;
    for (; p < end && *p >= '0' && *p <= '9' && p - value < 18; p++) number = number * 10 + (*p - '0');
    if (p == value || (p < end && ((*p >= '0' && *p <= '9') || *p == '.' || *p == 'e' || *p == 'E'))) return -1;
    return number;
}

static int by_value(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* The window test, over the launcher's own series (analysis/steady_state.py's `stops`, the same
 * rule): the last timed + 1 repetitions (3 at least) all lie within ±tolerance of their median,
 * or the last 2 × that − 1 do but for outliers_allowed of them, so that one garbage collection
 * or preemption is an outlier rather than a reset. timed + 1, not timed: the repetition before
 * the timed ones must agree too, so that a flat process stops after one untimed repetition. */
static long long outliers_allowed(long long count) {
    return count < 5 ? 0 : ((count - 1) / 4 > 1 ? (count - 1) / 4 : 1);
}

static int steady_last(const struct feed *feed, long long count) {
    if (count < 3 || feed->reps < count || count > MAX_SERIES) return 0;
    static long long sorted[MAX_SERIES];
    memcpy(sorted, feed->series + feed->reps - count, (size_t)count * sizeof *sorted);
    qsort(sorted, (size_t)count, sizeof *sorted, by_value);
    long long median = count % 2 ? sorted[count / 2] : (sorted[count / 2 - 1] + sorted[count / 2]) / 2;
    long long allowed = median / 1000 * feed->tolerance_permille + median % 1000 * feed->tolerance_permille / 1000;
    long long outside = 0;
    for (long long i = 0; i < count; i++) outside += sorted[i] - median > allowed || median - sorted[i] > allowed;
    return outside <= outliers_allowed(count);
}

static int steady(const struct feed *feed) {
    long long window = feed->timed + 1 < 3 ? 3 : feed->timed + 1;
    return steady_last(feed, window) || steady_last(feed, 2 * window - 1);
}

/* After repetition line `reps`: whether to write another variant, and if not, why. */
static int another_repetition(struct feed *feed, long long now) {
    if (feed->warmup >= 0) {
        if (feed->reps < feed->warmup + feed->timed) return 1;
        feed->verdict = "fixed";
    } else if (steady(feed)) {
        feed->verdict = "steady";
    } else if (feed->reps < feed->timed || (feed->reps < feed->variants && feed->reps < MAX_SERIES
                                            && (now - feed->first_fed_ns < feed->budget_ns
                                                || (feed->reps < feed->min_reps
                                                    && now - feed->first_fed_ns < feed->cap_ns)))) {
        return 1;
    } else {
        feed->verdict = "budget";
    }
    feed->first_timed = feed->reps - feed->timed < 0 ? 0 : feed->reps - feed->timed;
    return 0;
}

/* Whether stdout's line `index` (0: the ready line, k: repetition k - 1's) is the line the protocol
 * expects there; if not, feed->problem quotes it. */
static int expected_line(struct feed *feed, const struct output *out, long long index, long long at) {
    /* the line's bytes: from where the line before ended to its newline */
    size_t start = feed->line_offset;
    const char *line = out->lines.data + start;
    const char *newline = memchr(line, '\n', out->lines.length - start);
    size_t n = newline ? (size_t)(newline - line) : out->lines.length - start;
    feed->line_offset = start + n + 1;
    long long rep = index ? top_level_integer(line, n, "rep") : -2;
    long long ns = index ? top_level_integer(line, n, "ns") : -2;
    int fine = index ? rep == index - 1 : top_level_member(line, n, "ready") != NULL
                                          && top_level_member(line, n, "rep") == NULL;
    /* Repetition j's own line whose ns is not a whole number of nanoseconds (negative, a
     * fraction, beyond int64) earns nothing either, but it is the harness's reader that says
     * precisely what is wrong with it: the feed just ends. */
    if (fine && index && ns < 0) {
        feed->verdict = "ended";
        return 0;
    }
    /* A limit line is the process's way to stop: it is no repetition, and ends the feed quietly. */
    if (!fine && top_level_member(line, n, "error") != NULL) {
        feed->verdict = "limit";
        return 0;
    }
    if (fine) {
        if (index && feed->reps < MAX_SERIES) {
            long long gap = at - feed->last_fed_ns, waited = wait_since_last();
            feed->series[feed->reps] = waited < gap ? gap - waited : 1;
            char value[32];
            append(&feed->series_text, value, (size_t)snprintf(value, sizeof value, "%lld ", feed->series[feed->reps]));
        }
        if (index) feed->reps++;
        return 1;
    }
    int shown = n > 200 ? 200 : (int)n;
    char expected[64];
    if (index) snprintf(expected, sizeof expected, "repetition %lld's line", index - 1);
    else snprintf(expected, sizeof expected, "the ready line");
    snprintf(feed->problem, sizeof feed->problem, "stdout line %lld is not %s: %.*s%s", index + 1, expected,
             shown, line, n > 200 ? "..." : "");
    feed->verdict = "protocol";
    return 0;
}

/* After each new line of stdout: the tree's threads, then, if the line is the one the protocol
 * expects and the policy wants another repetition, the next variant; else the process's stdin
 * is closed, which ends it (protocol 4). A variant the command does not read stays in the pipe;
 * one it can no longer read (it closed stdin or ended) is dropped: its lines tell the harness
 * what went wrong. */
static void answer_lines(struct feed *feed, const struct output *out, const struct cgroup *cg, pid_t child,
                         long long started) {
    for (; feed->lines_seen < out->line_count; feed->lines_seen++) {
        if (feed->lines_seen > feed->variants) return;   /* lines beyond the last repetition's */
        long long at = now_ns() - started;
        snapshot_threads(&feed->threads, cg, child, at);
        if (feed->fd < 0) continue;
        int more = expected_line(feed, out, feed->lines_seen, at)
                   && (feed->lines_seen == 0 || another_repetition(feed, at));
        while (*feed->next == ' ') feed->next++;
        size_t length = strcspn(feed->next, " ");
        if (more && length) {
            char variant[32], stamp[32];
            int n = snprintf(variant, sizeof variant, "%.*s\n", (int)(length < 30 ? length : 30), feed->next);
            /* Stamped before the write: the process cannot start its repetition earlier, whereas a
             * launcher preempted right after writing would stamp it late by however long it waited. */
            feed->last_fed_ns = now_ns() - started;
            int m = snprintf(stamp, sizeof stamp, "%lld ", feed->last_fed_ns);
            if (feed->lines_seen == 0) feed->first_fed_ns = at;
            append(&feed->fed, stamp, (size_t)m);
            write_all(feed->fd, variant, (size_t)n);
            feed->next += length;
            continue;
        }
        if (more && !feed->verdict) {                  /* the request held fewer variants */
            feed->verdict = "budget";
            feed->first_timed = feed->reps - feed->timed < 0 ? 0 : feed->reps - feed->timed;
        }
        close(feed->fd);
        feed->fd = -1;
    }
}

/* The request's feed field: "warmup timed budget_ms tolerance_permille [min_reps cap_ms];v0 v1 …", or the variants
 * alone (protocol 3: every one written, the harness's counts). */
static void parse_feed(struct feed *feed, char *text) {
    feed->warmup = -1, feed->timed = 1, feed->budget_ns = 0, feed->tolerance_permille = 100;
    feed->min_reps = 0, feed->cap_ns = 0;
    char *policy_end = strchr(text, ';');
    feed->next = text;
    if (policy_end) {
        long long budget_ms = 0, cap_ms = 0;
        int read = sscanf(text, "%lld %lld %lld %lld %lld %lld", &feed->warmup, &feed->timed, &budget_ms,
                          &feed->tolerance_permille, &feed->min_reps, &cap_ms);
        if (read != 4 && read != 6) feed->warmup = 0;
        feed->budget_ns = budget_ms * 1000000LL;
        feed->cap_ns = cap_ms * 1000000LL;
        if (feed->timed < 1) feed->timed = 1;
        feed->next = policy_end + 1;
    }
    feed->variants = 0;
    for (const char *p = feed->next; *p; p++)
        if (*p != ' ' && (p == feed->next || p[-1] == ' ')) feed->variants++;
    if (!policy_end) feed->warmup = feed->variants - 1, feed->timed = 1;   /* write them all */
}

/* Runs one request on the parked process to its end and answers it; returns the signal that
 * stopped it, or 0. */
static int run(const struct request *r, const char *raw, size_t raw_size, struct parked *parked, int signals) {
    static struct tree_memory tree;
    memset(&tree, 0, offsetof(struct tree_memory, pids));   /* clearing the pids too costs ~10 us a run */
    const struct cgroup cg = parked->cg;
    pid_t child = parked->pid;
    parked->pid = 0;
    int limited = limit_cgroup(&cg, r->memory_limit_kb);
    if (cg.version) frame("cgroup", cg.path, strlen(cg.path));
    if (cg.kill_path[0] && strcmp(cg.kill_path, cg.path) != 0) frame("cgroup", cg.kill_path, strlen(cg.kill_path));
    send_frames();
    static struct output output;
    static struct buffer stderr_tail;
    memset(&output, 0, sizeof output);
    sha256_init(&output.digest);
    static char chunk[1 << 16];

    static struct feed feed;
    release(&feed.fed), release(&feed.threads), release(&feed.series_text);
    feed.fd = parked->feed_fd, feed.lines_seen = 0, feed.reps = 0, feed.line_offset = 0, feed.verdict = NULL, feed.first_timed = 0;
    feed.problem[0] = 0;
    parse_feed(&feed, r->feed);
    if (!feed.variants || !r->keep_lines) {
        close(feed.fd);
        feed.fd = -1;
        feed.variants = 0;
    }

    struct machine_cpu before = machine_cpu();
    struct rusage own_before, own_after;          /* what reading the output cost this launcher */
    getrusage(RUSAGE_SELF, &own_before);
    long long started = now_ns();
    write_all(parked->request_fd, raw, raw_size);    /* the child reads it and runs */
    close(parked->request_fd);
    int status = 0, main_alive = 1, timed_out = 0, out_of_memory = 0, stopped_by = 0;
    struct usage usage = {0};
    long long deadline = r->timeout_ms > 0 ? started + r->timeout_ms * 1000000LL : 0;
    /* With a memory cgroup that keeps a peak, the kernel has the tree's exact peak and enforces
     * the limit itself, so the sampled sums (RSS, PSS) only add detail: their interval doubles
     * from sample_ms up to SPARSE_SAMPLE_MS. Each wake-up of the launcher preempts a thread of a
     * benchmark that keeps every core busy: sampling every 10 ms made Go, Node, Java and Erlang
     * programs read 3-5 % slower than under hyperfine (docs/results/exec/). Without such a cgroup
     * the sum is the only tree peak and the limit's only guard, so it stays at sample_ms. */
    int sparse = cg.version && cgroup_peak_kb(&cg) >= 0;
    long long interval_ns = r->sample_ms * 1000000LL;
    long long ended = 0, next_sample = started + interval_ns;
    struct pollfd watch[3] = {{parked->out, POLLIN, 0}, {parked->err, POLLIN, 0}, {signals, POLLIN, 0}};
    while (main_alive) {
        long long wake = deadline && deadline < next_sample ? deadline : next_sample;
        long long wait_ms = (wake - now_ns()) / 1000000LL;
        if (feed.variants) own_before_poll = own_run_delay();
        int ready = poll(watch, 3, wait_ms > 0 ? (int)wait_ms : 0);
        long long at = now_ns();
        if (ready < 0 && errno != EINTR) break;
        /* output first: what a process printed before it ended arrived before its end */
        if (watch[0].revents) {
            ssize_t n = drain(watch[0].fd, chunk, sizeof chunk);
            if (n > 0) {
                take_stdout(&output, r, chunk, (size_t)n, at - started);
                if (r->echo == 1) echo(chunk, (size_t)n);
                if (feed.variants && !output.problem) answer_lines(&feed, &output, &cg, child, started);
            } else watch[0].fd = -1;             /* end of file: stop polling it */
        }
        if (watch[1].revents) {
            ssize_t n = drain(watch[1].fd, chunk, sizeof chunk);
            if (n > 0) take_stderr(&stderr_tail, r, chunk, (size_t)n);
            else watch[1].fd = -1;
        }
        if (watch[2].revents) {
            struct signalfd_siginfo info;
            if (read(signals, &info, sizeof info) == sizeof info && info.ssi_signo != SIGCHLD) {
                stopped_by = (int)info.ssi_signo;
                break;
            }
            /* Orphans re-parented to us are reaped too, and their CPU counted. */
            reap(child, &main_alive, &status, &usage);
            if (!main_alive) ended = now_ns();
        }
        if (!main_alive || output.problem) break;
        if (deadline && at > deadline) { timed_out = 1; break; }
        if (at < next_sample) continue;
        next_sample = at + interval_ns;
        if (sparse && interval_ns < SPARSE_SAMPLE_MS * 1000000LL) interval_ns *= 2;
        long long sum = sample_tree(&tree, &cg, at - started);
        if (limited && cgroup_oom_kills(&cg) > 0) out_of_memory = 1;
        if (!limited && r->memory_limit_kb > 0 && sum > r->memory_limit_kb) out_of_memory = 1;
        if (out_of_memory) break;
    }
    if (!ended) ended = now_ns();
    if (feed.fd >= 0) close(feed.fd);
    feed.fd = -1;
    struct machine_cpu after = machine_cpu();
    getrusage(RUSAGE_SELF, &own_after);
    if (limited && cgroup_oom_kills(&cg) > 0) out_of_memory = 1;
    int leftover = kill_tree(&cg, child, &main_alive, &status, &usage);
    /* What was still in the pipes: every writer is dead now, so each ends soon. A process
     * outside the tree that holds one (none should) is given a second, not forever. */
    for (long long give_up = now_ns() + 1000000000LL; (watch[0].fd >= 0 || watch[1].fd >= 0) && now_ns() < give_up;) {
        if (poll(watch, 2, 100) <= 0) continue;
        long long at = now_ns();
        for (int i = 0; i < 2; i++) {
            if (watch[i].fd < 0 || !watch[i].revents) continue;
            ssize_t n = drain(watch[i].fd, chunk, sizeof chunk);
            if (n <= 0) watch[i].fd = -1;
            else if (i == 1) take_stderr(&stderr_tail, r, chunk, (size_t)n);
            else {
                take_stdout(&output, r, chunk, (size_t)n, at - started);
                if (r->echo == 1) echo(chunk, (size_t)n);
            }
        }
    }
    close(parked->out), close(parked->err);
    if (r->keep_lines && !output.problem && (long long)output.lines.length > output.line_start) {
        char stamp[32];                          /* the unfinished last line counts as a line */
        int length = snprintf(stamp, sizeof stamp, "%lld ", ended - started);
        append(&output.times, stamp, (size_t)length);
    }
    long long peak_cgroup = cg.version ? cgroup_peak_kb(&cg) : -1;
    long long tree_peak = tree.peak_kb > usage.max_rss_kb ? tree.peak_kb : usage.max_rss_kb;
    char digest[65], result[1024];
    sha256_hex(&output.digest, digest);
    int length = snprintf(result, sizeof result,
            "{\"wall_ns\":%lld,\"user_ns\":%lld,\"sys_ns\":%lld,\"max_rss_kb\":%lld,"
            "\"tree_peak_rss_kb\":%lld,\"tree_peak_pss_kb\":%lld,\"pss_samples\":%lld,"
            "\"cgroup_peak_kb\":%lld,\"memory_method\":\"%s\","
            "\"sample_ms\":%lld,\"samples\":%lld,\"nvcsw\":%lld,\"nivcsw\":%lld,\"status\":%d,"
            "\"timed_out\":%d,\"out_of_memory\":%d,\"memory_limit_kb\":%lld,\"limit_method\":\"%s\","
            "\"leftover\":%d,\"stopped_by_signal\":%d,\"stdout_digest\":\"%s\",\"stdout_problem\":\"%s\","
            "\"machine_busy_ns\":%lld,\"machine_steal_ns\":%lld,\"cpu_method\":\"%s\",\"hidden\":%d,"
            "\"stdout_bytes\":%lld,\"launcher_cpu_ns\":%lld}",
            ended - started, usage.user_ns, usage.sys_ns, usage.max_rss_kb, tree_peak,
            tree.pss_samples ? tree.peak_pss_kb : -1, tree.pss_samples, peak_cgroup,
            cg.version == 2 ? "cgroup-v2" : cg.version == 1 ? "cgroup-v1" : "sampled",
            r->sample_ms, tree.samples, usage.nvcsw, usage.nivcsw, status, timed_out, out_of_memory,
            r->memory_limit_kb, r->memory_limit_kb <= 0 ? "none" : limited ? "cgroup" : "sampled",
            leftover, stopped_by, digest, output.problem ? output.problem : "",
            before.busy_ns < 0 || after.busy_ns < 0 ? -1 : after.busy_ns - before.busy_ns,
            before.steal_ns < 0 || after.steal_ns < 0 ? -1 : after.steal_ns - before.steal_ns,
            cg.cpu_path[0] ? (cg.version == 2 ? "cgroup-v2" : "cgroup-v1") : "threads", r->hide[0] ? 1 : 0,
            output.bytes, tv_ns(own_after.ru_utime) + tv_ns(own_after.ru_stime)
                - tv_ns(own_before.ru_utime) - tv_ns(own_before.ru_stime));
    if (r->keep_lines) {
        frame("stdout", output.lines.data, output.lines.length);
        frame("times", output.times.data, output.times.length);
    }
    if (r->feed[0] && r->keep_lines) {
        frame("fed", feed.fed.data, feed.fed.length);
        frame("threads", feed.threads.data, feed.threads.length);
        static char steady_text[64];
        int n = snprintf(steady_text, sizeof steady_text, "%s %lld %lld", feed.verdict ? feed.verdict : "ended",
                         feed.first_timed, feed.reps);
        frame("steady", steady_text, (size_t)n);
        frame("series", feed.series_text.data, feed.series_text.length);
        frame("protocol", feed.problem, strlen(feed.problem));
    }
    frame("head", output.head.data, output.head.length);
    size_t tail = stderr_tail.length > (size_t)r->stderr_tail_bytes ? (size_t)r->stderr_tail_bytes : stderr_tail.length;
    frame("stderr", stderr_tail.data + stderr_tail.length - tail, tail);
    frame("result", result, (size_t)length);
    send_frames();
    /* After the answer, while the harness reads it: the run's memory cgroup goes (its kill
     * group stays with its slot: kill_group_setup). A big output must not stay in this
     * launcher either: the next run's process starts as a copy of it, and the kernel counts
     * that copy in the child's peak RSS. */
    if (cg.version) rmdir(cg.path);
    if (cg.cpu_path[0] && cg.version != 2) rmdir(cg.cpu_path);
    if (cg.pids_path[0] && cg.version != 2) rmdir(cg.pids_path);
    release(&output.head), release(&output.lines), release(&output.times), release(&stderr_tail);
    return stopped_by;
}

int main(int argc, char **argv) {
    pid_t parent = 0;
    if (argc == 3 && strcmp(argv[1], "--parent-pid") == 0) parent = (pid_t)atoll(argv[2]);
    else if (argc != 1) {
        fprintf(stderr, "usage: parbench-launch [--parent-pid PID] (requests on stdin, see launcher.c)\n");
        return 2;
    }
    /* Die with the harness: SIGTERM (read below, so the tree dies too) when it goes. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (parent > 0 && getppid() != parent) return 130;   /* it went before us */
    signal(SIGPIPE, SIG_IGN);                             /* a harness gone: write fails, we end */
    /* A run's output buffers are given back to the kernel when freed (glibc would otherwise
     * raise its threshold and keep them): the next runs' processes are copies of this one, and
     * the kernel counts what a copy starts with in its peak RSS. */
    mallopt(M_MMAP_THRESHOLD, 1 << 16);
    sigset_t handled, previous;
    sigemptyset(&handled);
    for (int s = 0, sigs[] = {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT}; s < 5; s++) sigaddset(&handled, sigs[s]);
    sigprocmask(SIG_BLOCK, &handled, &previous);
    int signals = signalfd(-1, &handled, SFD_CLOEXEC);
    if (signals < 0) {
        perror("parbench-launch: signalfd");
        return 2;
    }
    static struct parked ready[PARKED];
    int parked = 0;
    for (long long run_number = 0;; run_number++) {
        for (; parked == 0; parked = PARKED)
            for (int i = PARKED - 1; i >= 0; i--)
                park(&ready[i], ready + i + 1, PARKED - 1 - i, run_number + PARKED - 1 - i, &previous);
        struct pollfd idle[2] = {{0, POLLIN, 0}, {signals, POLLIN, 0}};
        int ended_by = 0;
        while (!ended_by) {                      /* between runs: a request, or the end */
            if (poll(idle, 2, -1) < 0 && errno != EINTR) ended_by = 2;
            if (idle[0].revents) break;
            struct signalfd_siginfo info;
            if (idle[1].revents && read(signals, &info, sizeof info) == sizeof info && info.ssi_signo != SIGCHLD)
                ended_by = 128 + (int)info.ssi_signo;
        }
        size_t size;
        char *raw = ended_by ? NULL : read_raw(0, &size);
        struct request r;
        if (!raw || parse_request(raw, size, &r) != 0) {
            free(raw);
            for (int i = 0; i < PARKED; i++) unpark(&ready[i]);
            return ended_by;
        }
        parked--;
        parked_pid_count = parked;
        for (int i = 0; i < parked; i++) parked_pids[i] = ready[i].pid;
        int stopped_by = run(&r, raw, size, &ready[parked], signals);
        free(raw);
        if (stopped_by) {
            for (int i = 0; i < PARKED; i++) unpark(&ready[i]);
            return 128 + stopped_by;
        }
    }
}
