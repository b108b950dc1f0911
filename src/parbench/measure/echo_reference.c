/* parbench-echo-reference: echo-server's ceiling, the native reference server the load generator
 * runs against in the same sitting as every runtime's (docs/workloads/echo-server.md): the most
 * a server can do on this machine under this load. One thread, epoll, edge-triggered, the
 * protocol of docs/protocol.md ("echo-server"): a ready line with the port, one line per
 * repetition on stdin answered with the replies written since, exit 0 at end of file.
 *
 * Per connection: read exactly the 8-byte header, then exactly len payload bytes (never ahead
 * of its reply), wait `--wait-us` (one timerfd for all: every wait is as long, so the waiting
 * connections form a FIFO ordered by deadline), then write the header and the payload reversed.
 *
 * usage: parbench-echo-reference --wait-us W [--port P]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define HEADER 8
#define MAX_LEN 65536
#define LISTENER_TAG (-1LL)
#define STDIN_TAG (-2LL)
#define TIMER_TAG (-3LL)

enum { READING, WAITING, WRITING };

struct connection {
    int open, state;
    uint32_t generation;         /* bumped when the fd closes: a queued wait for an old one is stale */
    uint32_t have, need;         /* bytes of the request read so far; of the reply written */
    unsigned char *buffer;       /* HEADER + MAX_LEN: the request, reversed in place into the reply */
};

static struct connection *table;   /* by fd */
static size_t table_size;
static long long accepted, replies;
static long long wait_ns;
static int epoll_fd, timer_fd, listener = -1;

struct waiting { int fd; uint32_t generation; long long due; };
static struct waiting *queue;      /* a ring: every wait is as long, so dues only grow */
static size_t queue_head, queue_count, queue_size;

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static struct connection *slot(int fd) {
    if ((size_t)fd >= table_size) {
        size_t size = table_size ? table_size : 1024;
        while (size <= (size_t)fd) size *= 2;
        table = realloc(table, size * sizeof *table);
        if (!table) { perror("parbench-echo-reference"); exit(1); }
        memset(table + table_size, 0, (size - table_size) * sizeof *table);
        table_size = size;
    }
    return &table[fd];
}

static void close_connection(int fd) {
    struct connection *k = slot(fd);
    k->open = 0;
    k->generation++;
    close(fd);
}

static void arm_timer(void) {
    struct itimerspec at = {0};
    if (queue_count) {
        long long due = queue[queue_head].due;
        at.it_value.tv_sec = due / 1000000000LL, at.it_value.tv_nsec = due % 1000000000LL;
        if (!at.it_value.tv_sec && !at.it_value.tv_nsec) at.it_value.tv_nsec = 1;
    }
    timerfd_settime(timer_fd, TFD_TIMER_ABSTIME, &at, NULL);
}

static void enqueue(int fd) {
    if (queue_count == queue_size) {
        size_t size = queue_size ? queue_size * 2 : 1024;
        struct waiting *grown = malloc(size * sizeof *grown);
        if (!grown) { perror("parbench-echo-reference"); exit(1); }
        for (size_t i = 0; i < queue_count; i++) grown[i] = queue[(queue_head + i) % queue_size];
        free(queue);
        queue = grown, queue_head = 0, queue_size = size;
    }
    queue[(queue_head + queue_count++) % queue_size] = (struct waiting){fd, slot(fd)->generation, now_ns() + wait_ns};
    if (queue_count == 1) arm_timer();
}

static void drive(int fd);

/* The request is whole: reverse the payload into the reply, then write it (after the wait). */
static void request_read(int fd, struct connection *k) {
    uint32_t len = k->have - HEADER;
    for (uint32_t i = 0, j = len ? len - 1 : 0; i < j; i++, j--) {
        unsigned char t = k->buffer[HEADER + i];
        k->buffer[HEADER + i] = k->buffer[HEADER + j];
        k->buffer[HEADER + j] = t;
    }
    k->need = 0;
    if (wait_ns > 0) {
        k->state = WAITING;
        enqueue(fd);
    } else k->state = WRITING;
}

/* As far as the socket allows (edge-triggered: until EAGAIN). */
static void drive(int fd) {
    struct connection *k = slot(fd);
    while (k->open) {
        if (k->state == WAITING) return;
        if (k->state == WRITING) {
            uint32_t size = k->have;
            ssize_t n = send(fd, k->buffer + k->need, size - k->need, MSG_NOSIGNAL);
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
            if (n < 0) { close_connection(fd); return; }
            k->need += (uint32_t)n;
            if (k->need == size) {
                replies++;
                k->state = READING, k->have = 0;
            }
            continue;
        }
        uint32_t want = HEADER;          /* exactly the header, then exactly the payload */
        if (k->have >= HEADER) {
            unsigned char *h = k->buffer + 4;
            uint32_t len = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
            if (len > MAX_LEN) { close_connection(fd); return; }
            want = HEADER + len;
            if (k->have == want) { request_read(fd, k); continue; }
        }
        ssize_t n = recv(fd, k->buffer + k->have, want - k->have, 0);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (n <= 0) { close_connection(fd); return; }   /* EOF (between requests or short): close */
        k->have += (uint32_t)n;
    }
}

static void accept_all(void) {
    for (;;) {
        int fd = accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK) fprintf(stderr, "parbench-echo-reference: accept: %s\n", strerror(errno));
            return;
        }
        accepted++;
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        struct connection *k = slot(fd);
        if (!k->buffer && !(k->buffer = malloc(HEADER + MAX_LEN))) { close(fd); continue; }
        k->open = 1, k->state = READING, k->have = 0;
        struct epoll_event event = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.u64 = (uint64_t)fd};
        epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event);
        drive(fd);
    }
}

static void waits_over(void) {
    uint64_t expirations;
    if (read(timer_fd, &expirations, sizeof expirations) < 0 && errno != EAGAIN) return;
    long long now = now_ns();
    while (queue_count && queue[queue_head].due <= now) {
        struct waiting w = queue[queue_head];
        queue_head = (queue_head + 1) % queue_size, queue_count--;
        struct connection *k = slot(w.fd);
        if (!k->open || k->generation != w.generation) continue;
        k->state = WRITING;
        drive(w.fd);
    }
    arm_timer();
}

/* One decimal j a line: the repetition the load generator just finished; answered with what was
 * served since the last such line. Returns 0 at end of file. */
static int read_stdin(void) {
    static char line[64];
    static size_t used;
    char chunk[4096];
    ssize_t n = read(0, chunk, sizeof chunk);
    if (n < 0) return errno == EAGAIN || errno == EINTR;
    if (n == 0) return 0;
    for (ssize_t i = 0; i < n; i++) {
        if (chunk[i] != '\n') {
            if (used < sizeof line - 1) line[used++] = chunk[i];
            continue;
        }
        line[used] = 0, used = 0;
        printf("{\"rep\":%lld,\"items\":%lld,\"checksum\":\"served\",\"extra\":{\"accepted\":%lld,\"replies\":%lld,"
               "\"threads_peak\":1}}\n", atoll(line), replies, accepted, replies);
        fflush(stdout);
        accepted = replies = 0;
    }
    return 1;
}

int main(int argc, char **argv) {
    long long wait_us = -1, port = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        char *end;
        long long v = strtoll(argv[i + 1], &end, 10);
        if (*end || end == argv[i + 1]) v = -1;
        if (strcmp(argv[i], "--wait-us") == 0 && v >= 0 && v <= 10000000) wait_us = v;
        else if (strcmp(argv[i], "--port") == 0 && v >= 0 && v <= 65535) port = v;
        else { fprintf(stderr, "parbench-echo-reference: bad argument %s %s\n", argv[i], argv[i + 1]); return 2; }
    }
    if (wait_us < 0 || argc % 2 == 0) {
        fprintf(stderr, "usage: parbench-echo-reference --wait-us W [--port P]\n");
        return 2;
    }
    wait_ns = wait_us * 1000;
    struct rlimit files;
    getrlimit(RLIMIT_NOFILE, &files);
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);

    listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in at = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(0x7f000001u)};
    socklen_t size = sizeof at;
    if (bind(listener, (struct sockaddr *)&at, sizeof at) != 0 || listen(listener, SOMAXCONN) != 0
        || getsockname(listener, (struct sockaddr *)&at, &size) != 0) {
        fprintf(stderr, "parbench-echo-reference: cannot listen on 127.0.0.1:%lld: %s\n", port, strerror(errno));
        return 1;
    }
    epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    struct epoll_event event = {.events = EPOLLIN | EPOLLET, .data.u64 = (uint64_t)LISTENER_TAG};
    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, listener, &event);
    event = (struct epoll_event){.events = EPOLLIN, .data.u64 = (uint64_t)TIMER_TAG};
    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, timer_fd, &event);
    event = (struct epoll_event){.events = EPOLLIN, .data.u64 = (uint64_t)STDIN_TAG};
    int stdin_polled = epoll_ctl(epoll_fd, EPOLL_CTL_ADD, 0, &event) == 0;   /* a file (/dev/null): read at once */
    printf("{\"ready\":\"none\",\"port\":%d,\"extra\":{\"model_detail\":\"the harness's C reference: one thread, "
           "epoll (edge-triggered), one timerfd for the waits\"}}\n", ntohs(at.sin_port));
    fflush(stdout);
    if (!stdin_polled && !read_stdin()) return 0;
    struct epoll_event events[1024];
    for (;;) {
        int n = epoll_wait(epoll_fd, events, 1024, -1);
        if (n < 0 && errno != EINTR) { perror("parbench-echo-reference: epoll_wait"); return 1; }
        for (int e = 0; e < n; e++) {
            long long tag = (long long)events[e].data.u64;
            if (tag == LISTENER_TAG) accept_all();
            else if (tag == TIMER_TAG) waits_over();
            else if (tag == STDIN_TAG) {
                if (!read_stdin()) { close(listener); return 0; }
            } else if (slot((int)tag)->open) drive((int)tag);
        }
    }
}
