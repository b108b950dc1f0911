/* parbench-launch: runs one benchmark process tree, keeps it on a leash, and reports the
 * kernel's measurements of the whole tree as one JSON line on a file descriptor.
 *
 * Why it exists:
 * - Linux keeps a process's peak RSS (ru_maxrss) across fork and exec, so a benchmark forked
 *   straight from the Python harness would report the harness's ~40 MiB as its own peak. The
 *   benchmark is forked from this small program instead.
 * - ru_maxrss is the largest single process, not the tree: a pool of 40 worker processes would
 *   look as cheap as one. The tree's memory is sampled here (the sum of every process's RSS at
 *   the same moment), and read from a memory cgroup's peak where the machine gives one.
 * - A benchmark must never outlive its case or the harness: this launcher is a child subreaper
 *   (orphans, setsid() escapees included, are re-parented to it), puts the tree in its own
 *   cgroup where it can, dies with the harness (PR_SET_PDEATHSIG), and kills every process of
 *   the tree when the benchmark's main process ends, times out, runs out of memory or when it
 *   is told to stop.
 * - A memory limit per case: a cgroup limit where possible (the kernel's OOM killer then picks
 *   inside the case, never elsewhere on the machine), else the sampled sum is enforced here.
 *
 * The report fd first gets a line "cgroup PATH" per cgroup made for the tree, then the JSON line.
 *
 * usage: parbench-launch --report-fd N [--timeout-ms MS] [--memory-limit-kb KB]
 *                        [--sample-ms MS] [--parent-pid PID] -- CMD ARGS...
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_TRACKED 65536

struct options {
    int report_fd;
    long long timeout_ms;        /* 0: none */
    long long memory_limit_kb;   /* 0: none */
    long long sample_ms;
    pid_t parent_pid;
    char **command;
};

struct cgroup {
    int version;                 /* 0: none, 1 or 2 */
    char path[PATH_MAX - 128];   /* room for a file name after it */
    char kill_path[PATH_MAX - 128];  /* a v2 cgroup with cgroup.kill holding the tree, or "" */
};

struct tree_memory {
    pid_t pids[MAX_TRACKED];
    int count;
    long long peak_kb;
    long long samples;
    int rescans;                 /* ticks until the next /proc scan (no cgroup) */
};

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long long tv_ns(struct timeval t) {
    return (long long)t.tv_sec * 1000000000LL + (long long)t.tv_usec * 1000LL;
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
static int cgroup_v1(struct cgroup *cg) {
    char text[8192], *line, *saveptr = NULL;
    if (read_text("/proc/self/cgroup", text, sizeof text) <= 0) return -1;
    for (line = strtok_r(text, "\n", &saveptr); line; line = strtok_r(NULL, "\n", &saveptr)) {
        char *controllers = strchr(line, ':');
        char *path = controllers ? strchr(controllers + 1, ':') : NULL;
        if (!path) continue;
        *path++ = 0;
        if (strcmp(controllers + 1, "memory") != 0) continue;
        snprintf(cg->path, sizeof cg->path, "/sys/fs/cgroup/memory%s/parbench-%d",
                 strcmp(path, "/") == 0 ? "" : path, (int)getpid());
        if (mkdir(cg->path, 0755) != 0) return -1;
        cg->version = 1;
        return 0;
    }
    return -1;
}

static int cgroup_v2(struct cgroup *cg) {
    char text[512];
    if (read_text("/sys/fs/cgroup/cgroup.controllers", text, sizeof text) <= 0 || !strstr(text, "memory"))
        return -1;
    if (mkdir("/sys/fs/cgroup/parbench", 0755) != 0 && errno != EEXIST) return -1;
    write_text("/sys/fs/cgroup", "cgroup.subtree_control", "+memory");
    if (write_text("/sys/fs/cgroup/parbench", "cgroup.subtree_control", "+memory") != 0) return -1;
    snprintf(cg->path, sizeof cg->path, "/sys/fs/cgroup/parbench/%d", (int)getpid());
    if (mkdir(cg->path, 0755) != 0) return -1;
    cg->version = 2;
    return 0;
}

/* The group the tree is killed by, in one write that a forking process cannot outrun
 * (cgroup.kill): the memory cgroup itself on v2; on a v1 machine with a v2 hierarchy mounted
 * beside it (systemd's hybrid layout, /sys/fs/cgroup/unified), a cgroup there with no
 * controllers. Without it the tree is killed by a loop over its members. */
static void kill_group_setup(struct cgroup *cg) {
    char probe[PATH_MAX];
    cg->kill_path[0] = 0;
    if (cg->version == 2) {
        snprintf(probe, sizeof probe, "%s/cgroup.kill", cg->path);
        if (access(probe, W_OK) == 0) snprintf(cg->kill_path, sizeof cg->kill_path, "%s", cg->path);
        return;
    }
    if (mkdir("/sys/fs/cgroup/unified/parbench", 0755) != 0 && errno != EEXIST) return;
    snprintf(cg->kill_path, sizeof cg->kill_path, "/sys/fs/cgroup/unified/parbench/%d", (int)getpid());
    snprintf(probe, sizeof probe, "%s/cgroup.kill", cg->kill_path);
    if (mkdir(cg->kill_path, 0755) != 0 || access(probe, W_OK) != 0) {
        rmdir(cg->kill_path);
        cg->kill_path[0] = 0;
    }
}

static void cgroup_setup(struct cgroup *cg, long long limit_kb) {
    cg->version = 0;
    cg->kill_path[0] = 0;
    if (getenv("PARBENCH_NO_CGROUP")) return;      /* tests of the sampled fallback */
    if (cgroup_v2(cg) != 0 && cgroup_v1(cg) != 0) {
        cg->version = 0;
        return;
    }
    if (limit_kb > 0) {
        char limit[32];
        snprintf(limit, sizeof limit, "%lld", limit_kb * 1024);
        if (write_text(cg->path, cg->version == 2 ? "memory.max" : "memory.limit_in_bytes", limit) != 0) {
            rmdir(cg->path);
            cg->version = 0;
        } else if (cg->version == 2) {
            write_text(cg->path, "memory.swap.max", "0");
        }
    }
    kill_group_setup(cg);
}

static long long cgroup_peak_kb(const struct cgroup *cg) {
    long long bytes = read_number(cg->path, cg->version == 2 ? "memory.peak" : "memory.max_usage_in_bytes");
    return bytes < 0 ? -1 : bytes / 1024;
}

static long long cgroup_oom_kills(const struct cgroup *cg) {
    return cg->version == 2 ? read_keyed(cg->path, "memory.events", "oom_kill")
                            : read_keyed(cg->path, "memory.oom_control", "oom_kill");
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

/* Every live descendant of `root`, found by one scan of /proc (used without a cgroup). */
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
            if (ppid[j] == out[i]) out[count++] = pid[j];
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

/* One sample: the sum of the tree's RSS now. Without a cgroup the list of processes is
 * refreshed by a /proc scan every 10th sample, which is the expensive part. */
static long long sample_tree(struct tree_memory *tree, const struct cgroup *cg) {
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
    return sum;
}

/* Reaps every child that has ended; the main child's status and rusage are kept. */
static void reap(pid_t main_child, int *main_alive, int *status, struct rusage *usage) {
    struct rusage ended_usage;
    int ended_status;
    pid_t done;
    while ((done = wait4(-1, &ended_status, WNOHANG, &ended_usage)) > 0)
        if (done == main_child) {
            *main_alive = 0;
            *status = ended_status;
            *usage = ended_usage;
        }
}

/* Kills every process of the tree and reaps them; returns how many besides the main child
 * were still alive (setsid() escapees, forgotten children). The tree is every member of the
 * case's cgroups and every descendant of this launcher (a subreaper: orphans come back to it),
 * so a process that moved itself out of the memory cgroup is still found by its ancestry. */
static int kill_tree(const struct cgroup *cg, pid_t main_child, int *main_alive, int *status,
                     struct rusage *usage) {
    static pid_t pids[MAX_TRACKED];
    int killed = 0;
    if (*main_alive) kill(main_child, SIGKILL);
    for (int round = 0; round < 1000; round++) {
        if (cg->kill_path[0]) write_text(cg->kill_path, "cgroup.kill", "1");
        int count = descendants(getpid(), pids, MAX_TRACKED);
        if (cg->version) count += cgroup_members(cg, pids + count, MAX_TRACKED - count);
        if (cg->kill_path[0]) count += members_of(cg->kill_path, pids + count, MAX_TRACKED - count);
        for (int i = 0; i < count; i++)
            if (pids[i] != main_child && pids[i] != getpid() && kill(pids[i], SIGKILL) == 0) killed++;
        reap(main_child, main_alive, status, usage);
        if (count == 0 && !*main_alive) break;
        usleep(2000);
    }
    return killed;
}

/* --- arguments ---------------------------------------------------------------------------- */
static int parse(int argc, char **argv, struct options *o) {
    memset(o, 0, sizeof *o);
    o->report_fd = -1;
    o->sample_ms = 10;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            o->command = argv + i + 1;
            return argv[i + 1] && o->report_fd >= 0 ? 0 : -1;
        }
        if (i + 1 >= argc) return -1;
        long long value = atoll(argv[i + 1]);
        if (strcmp(argv[i], "--report-fd") == 0) o->report_fd = (int)value;
        else if (strcmp(argv[i], "--timeout-ms") == 0) o->timeout_ms = value;
        else if (strcmp(argv[i], "--memory-limit-kb") == 0) o->memory_limit_kb = value;
        else if (strcmp(argv[i], "--sample-ms") == 0) o->sample_ms = value > 0 ? value : 10;
        else if (strcmp(argv[i], "--parent-pid") == 0) o->parent_pid = (pid_t)value;
        else return -1;
        i++;
    }
    return -1;
}

int main(int argc, char **argv) {
    struct options o;
    if (parse(argc, argv, &o) != 0) {
        fprintf(stderr, "usage: parbench-launch --report-fd N [--timeout-ms MS] [--memory-limit-kb KB] "
                        "[--sample-ms MS] [--parent-pid PID] -- CMD ARGS...\n");
        return 2;
    }
    FILE *report = fdopen(o.report_fd, "w");
    if (!report) {
        perror("parbench-launch: report fd");
        return 2;
    }
    /* Die with the harness: SIGTERM (caught below, so the tree dies too) when it goes. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (o.parent_pid > 0 && getppid() != o.parent_pid) return 130;   /* it went before us */

    sigset_t handled, previous;
    sigemptyset(&handled);
    for (int s = 0, sigs[] = {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT}; s < 5; s++) sigaddset(&handled, sigs[s]);
    sigprocmask(SIG_BLOCK, &handled, &previous);

    static struct cgroup cg;
    cgroup_setup(&cg, o.memory_limit_kb);
    /* Told to the harness at once, so that it can kill the groups itself should this launcher
     * be killed or stopped by the tree it watches. */
    if (cg.version) fprintf(report, "cgroup %s\n", cg.path);
    if (cg.kill_path[0] && strcmp(cg.kill_path, cg.path) != 0) fprintf(report, "cgroup %s\n", cg.kill_path);
    fflush(report);
    static struct tree_memory tree;

    /* The child waits at a gate until it is in the case's cgroup: moving a process between
     * cgroups costs up to ~10 ms on cgroup v1 (an RCU grace period), which must not be
     * timed. The clock starts when the gate opens, so it covers exec and the command, as
     * hyperfine's does, and not the cgroup's bookkeeping. */
    int gate[2];
    if (pipe(gate) != 0) {
        perror("parbench-launch: pipe");
        return 2;
    }
    pid_t child = fork();
    if (child < 0) {
        perror("parbench-launch: fork");
        return 2;
    }
    if (child == 0) {
        char opened;
        close(gate[1]);
        while (read(gate[0], &opened, 1) < 0 && errno == EINTR) {}
        close(gate[0]);
        sigprocmask(SIG_SETMASK, &previous, NULL);
        prctl(PR_SET_PDEATHSIG, 0);
        /* A process group of its own: a command's `kill 0` (the `trap 'kill 0' EXIT` idiom)
         * reaches the command's processes, never this launcher. */
        setpgid(0, 0);
        fclose(report);
        execvp(o.command[0], o.command);
        fprintf(stderr, "parbench-launch: cannot run %s: %s\n", o.command[0], strerror(errno));
        _exit(127);
    }

    close(gate[0]);
    char pid_text[32];
    snprintf(pid_text, sizeof pid_text, "%d", (int)child);
    if (cg.version) write_text(cg.path, "cgroup.procs", pid_text);
    if (cg.kill_path[0] && write_text(cg.kill_path, "cgroup.procs", pid_text) != 0) {
        rmdir(cg.kill_path);
        cg.kill_path[0] = 0;
    }
    long long started = now_ns();
    close(gate[1]);                              /* the child reads end-of-file: it runs */

    int status = 0, main_alive = 1, timed_out = 0, out_of_memory = 0, stopped_by = 0;
    struct rusage main_usage;
    memset(&main_usage, 0, sizeof main_usage);
    long long deadline = o.timeout_ms > 0 ? started + o.timeout_ms * 1000000LL : 0;
    long long ended = 0;
    while (main_alive) {
        struct timespec tick = {o.sample_ms / 1000, (o.sample_ms % 1000) * 1000000L};
        siginfo_t info;
        int sig = sigtimedwait(&handled, &info, &tick);
        if (sig == SIGCHLD || sig < 0) {
            /* Orphans re-parented to us are reaped too; RUSAGE_CHILDREN counts their CPU. */
            reap(child, &main_alive, &status, &main_usage);
            if (!main_alive) ended = now_ns();
        } else if (sig > 0) {
            stopped_by = sig;
            break;
        }
        if (!main_alive) break;
        long long sum = sample_tree(&tree, &cg);
        if (cg.version && o.memory_limit_kb > 0 && cgroup_oom_kills(&cg) > 0) out_of_memory = 1;
        if (!cg.version && o.memory_limit_kb > 0 && sum > o.memory_limit_kb) out_of_memory = 1;
        if (deadline && now_ns() > deadline) timed_out = 1;
        if (out_of_memory || timed_out) break;
    }
    if (!ended) ended = now_ns();
    if (cg.version && o.memory_limit_kb > 0 && cgroup_oom_kills(&cg) > 0) out_of_memory = 1;
    int leftover = kill_tree(&cg, child, &main_alive, &status, &main_usage);
    struct rusage all;
    getrusage(RUSAGE_CHILDREN, &all);
    long long peak_cgroup = cg.version ? cgroup_peak_kb(&cg) : -1;
    if (cg.version) rmdir(cg.path);
    if (cg.kill_path[0]) rmdir(cg.kill_path);
    long long tree_peak = tree.peak_kb > all.ru_maxrss ? tree.peak_kb : all.ru_maxrss;
    fprintf(report,
            "{\"wall_ns\":%lld,\"user_ns\":%lld,\"sys_ns\":%lld,\"max_rss_kb\":%ld,"
            "\"tree_peak_rss_kb\":%lld,\"cgroup_peak_kb\":%lld,\"memory_method\":\"%s\","
            "\"sample_ms\":%lld,\"samples\":%lld,\"nvcsw\":%ld,\"nivcsw\":%ld,\"status\":%d,"
            "\"timed_out\":%d,\"out_of_memory\":%d,\"memory_limit_kb\":%lld,\"limit_method\":\"%s\","
            "\"leftover\":%d,\"stopped_by_signal\":%d}\n",
            ended - started, tv_ns(all.ru_utime), tv_ns(all.ru_stime), all.ru_maxrss, tree_peak,
            peak_cgroup, cg.version == 2 ? "cgroup-v2" : cg.version == 1 ? "cgroup-v1" : "sampled",
            o.sample_ms, tree.samples, all.ru_nvcsw, all.ru_nivcsw, status, timed_out, out_of_memory,
            o.memory_limit_kb, o.memory_limit_kb <= 0 ? "none" : cg.version ? "cgroup" : "sampled",
            leftover, stopped_by);
    fclose(report);
    (void)main_usage;
    if (stopped_by) return 128 + stopped_by;
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
