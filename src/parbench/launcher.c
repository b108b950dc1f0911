/* parbench-launch: runs a command and reports the kernel's measurements of it on fd 3.
 *
 * Why it exists: Linux keeps a process's peak RSS (ru_maxrss) across fork and exec, so a
 * benchmark forked straight from the Python harness would report the harness's own ~40 MiB
 * as its peak. This launcher is small, and the benchmark is forked from it after its exec,
 * so the peak RSS reported is the benchmark's own. It also takes the wall time next to the
 * fork, leaving the harness's Python start-up costs out of it.
 *
 * usage: parbench-launch REPORT_FD CMD ARGS...
 * REPORT_FD receives one line: wall_ns user_ns sys_ns maxrss_kb nvcsw nivcsw wait_status
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long long tv_ns(struct timeval t) {
    return (long long)t.tv_sec * 1000000000LL + (long long)t.tv_usec * 1000LL;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: parbench-launch REPORT_FD CMD ARGS...\n");
        return 2;
    }
    int report_fd = atoi(argv[1]);
    FILE *report = fdopen(report_fd, "w");
    if (!report) {
        perror("parbench-launch: report fd");
        return 2;
    }
    long long started = now_ns();
    pid_t child = fork();
    if (child < 0) {
        perror("parbench-launch: fork");
        return 2;
    }
    if (child == 0) {
        close(report_fd);
        execvp(argv[2], argv + 2);
        fprintf(stderr, "parbench-launch: cannot run %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    int status = 0;
    struct rusage usage;
    while (wait4(child, &status, 0, &usage) < 0) {
        /* EINTR: keep waiting; the harness ends us by killing the whole session. */
    }
    long long wall = now_ns() - started;
    fprintf(report, "%lld %lld %lld %ld %ld %ld %d\n", wall, tv_ns(usage.ru_utime),
            tv_ns(usage.ru_stime), usage.ru_maxrss, usage.ru_nvcsw, usage.ru_nivcsw, status);
    fclose(report);
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 128 + WTERMSIG(status);
}
