/* parbench-loadgen: echo-server's load generator (docs/workloads/echo-server.md), the harness's
 * own clock and proof of work for a server it does not trust. One thread, epoll, outside the
 * server's process tree and cgroup; the same program for every runtime.
 *
 * A repetition: draw a seed from the kernel's CSPRNG (getrandom), open `connections` TCP
 * connections to 127.0.0.1:port at once (non-blocking connects), and on each run `requests`
 * closed-loop exchanges (the next request only once the reply to the one before is whole):
 *   request k of connection c (index i = c * requests + k): BE u32 id = i, BE u32 len, then
 *   SplitMix64 bytes(seed, i, len) (workloads/README.md);
 *   its reply: the same 8-byte header, then the payload reversed, every byte checked as it comes.
 * A connection is closed by this side right after its last reply. The time is from the first
 * connect to the last reply; each request is stamped (CLOCK_MONOTONIC) from its write to its
 * reply's last byte, for p50/p99/max. The digest is the order-free digest (the sum mod 2^64 of
 * FNV-1a 64) of the strings "<c>:<k>:<fnv1a64 of the whole reply as received, 16 hex>", so the
 * harness can recompute it from the seed alone for the replies the spec requires.
 *
 * After the timed region, `probes` requests on one extra connection are each sent in two parts
 * with `probe_delay_ms` between them: a reply byte that arrives before the second part is a
 * server that replied before it had read the request whole. Then the spec's test vector on the
 * same connection. They are outside the time, the latencies and the digest; probe_replies
 * counts them (the vector's included).
 *
 * Prints one JSON line; exit 0 when every reply was right, 1 when any failed (the line says
 * how many and the first one's reason), 2 on bad arguments. It never waits past --timeout-ms
 * (the whole repetition, probes included).
 *
 * usage: parbench-loadgen --port P --connections C --requests R --len L [--timeout-ms T]
 *                         [--probes N] [--probe-delay-ms D] [--seed S]
 *        parbench-loadgen --port P --vector       (the spec's test vector on one connection)
 * The line's failure_kind names the first failure's kind: refused, reset, closed (early),
 * wrong-byte, early-reply (before the request was whole), timeout, open (this side's limits).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_LEN 65536
#define HEADER 8
#define SOURCES 16                  /* source addresses 127.0.0.1-16: more than one port range's worth */

static const uint64_t FNV_OFFSET = 0xcbf29ce484222325ULL, FNV_PRIME = 0x100000001b3ULL;
static const uint64_t GOLDEN = 0x9e3779b97f4a7c15ULL;

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static uint64_t fnv1a64(uint64_t h, const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * FNV_PRIME;
    return h;
}

static void splitmix64_bytes(uint64_t seed, uint64_t index, unsigned char *out, size_t n) {
    uint64_t state = seed + index * GOLDEN;
    for (size_t at = 0; at < n; at += 8) {
        state += GOLDEN;
        uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        for (size_t b = 0; b < 8 && at + b < n; b++) out[at + b] = (unsigned char)(z >> (8 * b));
    }
}

static void put_be32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16), p[2] = (unsigned char)(v >> 8), p[3] = (unsigned char)v;
}

/* --- the first failure's reason, kept; the count of failed connections ------------------- */
static char first_failure[512];
static const char *first_kind;     /* refused, reset, closed, wrong-byte, early-reply, timeout, open */
static long long failures;
static const char *kind = "closed"; /* the kind the next fail() records, set just before it */

static void fail(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *format, ...) {
    failures++;
    if (first_failure[0]) return;
    first_kind = kind;
    va_list args;
    va_start(args, format);
    vsnprintf(first_failure, sizeof first_failure, format, args);
    va_end(args);
}

static const char *why(int error) {
    kind = error == ECONNREFUSED ? "refused" : error == ECONNRESET ? "reset" : error == EMFILE || error == ENFILE ? "open"
         : error == ETIMEDOUT ? "timeout" : "closed";
    switch (error) {
    case ECONNREFUSED: return "connection refused (nothing listens on the port)";
    case ECONNRESET: return "connection reset by the server";
    case EPIPE: return "connection closed by the server (broken pipe)";
    case EMFILE: case ENFILE: return "too many open files";
    case ETIMEDOUT: return "connect timed out";
    default: return strerror(error);
    }
}

/* --- options ------------------------------------------------------------------------------ */
struct options {
    int port, vector;
    long long connections, requests, len, timeout_ms, probes, probe_delay_ms;
    int seed_given;
    uint64_t seed;
};

static int number(const char *text, long long low, long long high, long long *out) {
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end || v < low || v > high) return -1;
    *out = v;
    return 0;
}

static int parse(int argc, char **argv, struct options *o) {
    *o = (struct options){.port = -1, .connections = -1, .requests = -1, .len = -1, .timeout_ms = 60000,
                          .probes = 2, .probe_delay_ms = 20};
    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i];
        if (strcmp(flag, "--vector") == 0) { o->vector = 1; continue; }
        if (i + 1 >= argc) { fprintf(stderr, "parbench-loadgen: %s needs a value\n", flag); return -1; }
        const char *value = argv[++i];
        long long v;
        struct { const char *name; long long low, high, *into; } known[] = {
            {"--connections", 1, 10000000, &o->connections}, {"--requests", 1, 1000000000, &o->requests},
            {"--len", 0, MAX_LEN, &o->len}, {"--timeout-ms", 1, 86400000, &o->timeout_ms},
            {"--probes", 0, 1000, &o->probes}, {"--probe-delay-ms", 0, 10000, &o->probe_delay_ms}};
        int found = 0;
        for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
            if (strcmp(flag, known[k].name) != 0) continue;
            found = 1;
            if (number(value, known[k].low, known[k].high, known[k].into) != 0) {
                fprintf(stderr, "parbench-loadgen: %s %s: not an integer in [%lld, %lld]\n", flag, value,
                        known[k].low, known[k].high);
                return -1;
            }
        }
        if (found) continue;
        if (strcmp(flag, "--port") == 0 && number(value, 1, 65535, &v) == 0) { o->port = (int)v; continue; }
        if (strcmp(flag, "--seed") == 0) {
            char *end;
            errno = 0;
            o->seed = strtoull(value, &end, 10);
            if (errno || end == value || *end || value[0] == '-') {
                fprintf(stderr, "parbench-loadgen: --seed %s: not an unsigned 64-bit integer\n", value);
                return -1;
            }
            o->seed_given = 1;
            continue;
        }
        fprintf(stderr, "parbench-loadgen: unknown or bad argument %s %s\n", flag, value);
        return -1;
    }
    if (o->port < 0 || (!o->vector && (o->connections < 0 || o->requests < 0 || o->len < 0))) {
        fprintf(stderr, "usage: parbench-loadgen --port P --connections C --requests R --len L [--timeout-ms T] "
                        "[--probes N] [--probe-delay-ms D] [--seed S] | --port P --vector\n");
        return -1;
    }
    if (!o->vector && o->connections * o->requests > 2000000000LL) {
        fprintf(stderr, "parbench-loadgen: connections x requests above 2e9\n");
        return -1;
    }
    return 0;
}

/* --- sockets ------------------------------------------------------------------------------ */
/* A non-blocking socket connecting to 127.0.0.1:port from source address 127.0.0.(1 + c % SOURCES)
 * (the kernel picks the port at connect, per destination: IP_BIND_ADDRESS_NO_PORT), or -errno. */
static int open_connection(int port, long long c) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
    struct sockaddr_in source = {.sin_family = AF_INET, .sin_port = 0,
                                 .sin_addr.s_addr = htonl(0x7f000001u + (uint32_t)(c % SOURCES))};
    bind(fd, (struct sockaddr *)&source, sizeof source);     /* refused: the kernel's own choice */
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(0x7f000001u)};
    if (connect(fd, (struct sockaddr *)&to, sizeof to) != 0 && errno != EINPROGRESS) {
        int error = errno;
        close(fd);
        return -error;
    }
    return fd;
}

static int socket_error(int fd) {
    int error = 0;
    socklen_t size = sizeof error;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size);
    return error;
}

/* --- the timed repetition ------------------------------------------------------------------- */
enum { CONNECTING, SENDING, RECEIVING, DONE };

struct connection {
    int fd, state;
    long long request;           /* the exchange in progress, 0 … requests - 1 */
    uint32_t sent, got;          /* bytes of the request written, of the reply read */
    long long started_ns;        /* when the request's write began */
    unsigned char *out, *in;     /* the request, the reply as it arrives (HEADER + len each) */
};

struct run {
    const struct options *o;
    struct connection *connections;
    long long *latencies;        /* one per reply, in arrival order */
    long long replies, open, last_reply_ns;
    uint64_t digest;
    int epoll;
};

static void prepare_request(struct run *run, struct connection *k, long long c) {
    long long i = c * run->o->requests + k->request;
    put_be32(k->out, (uint32_t)i);
    put_be32(k->out + 4, (uint32_t)run->o->len);
    splitmix64_bytes(run->o->seed, (uint64_t)i, k->out + HEADER, (size_t)run->o->len);
    k->sent = k->got = 0;
}

static void finish(struct run *run, struct connection *k) {
    if (k->fd >= 0) close(k->fd);
    k->fd = -1;
    k->state = DONE;
    run->open--;
}

static void failed(struct run *run, struct connection *k, long long c, const char *what) {
    fail("connection %lld, request %lld: %s", c, k->request, what);
    finish(run, k);
}

/* The reply byte at `offset` of request k->request is right (header echoed, payload reversed). */
static int reply_byte_problem(struct run *run, struct connection *k, long long c, uint32_t offset) {
    uint32_t len = (uint32_t)run->o->len;
    unsigned char want = offset < HEADER ? k->out[offset] : k->out[HEADER + (len - 1 - (offset - HEADER))];
    if (k->in[offset] == want) return 0;
    char what[200];
    kind = "wrong-byte";
    snprintf(what, sizeof what, "wrong byte at offset %u of the %u-byte reply: 0x%02x, expected 0x%02x%s", offset,
             HEADER + len, k->in[offset], want, offset < HEADER ? " (in the header)" : "");
    failed(run, k, c, what);
    return 1;
}

static void replied(struct run *run, struct connection *k, long long c) {
    long long at = now_ns();
    run->latencies[run->replies++] = at - k->started_ns;
    run->last_reply_ns = at;
    char text[64];
    uint64_t reply = fnv1a64(FNV_OFFSET, k->in, HEADER + (size_t)run->o->len);
    int n = snprintf(text, sizeof text, "%lld:%lld:%016" PRIx64, c, k->request, reply);
    run->digest += fnv1a64(FNV_OFFSET, (const unsigned char *)text, (size_t)n);
    if (++k->request == run->o->requests) {
        finish(run, k);                              /* this side closes, right after the last reply */
        return;
    }
    prepare_request(run, k, c);
    k->state = SENDING;
}

/* Drives connection c as far as its socket allows (edge-triggered: until EAGAIN). */
static void drive(struct run *run, long long c, uint32_t events) {
    struct connection *k = &run->connections[c];
    uint32_t size = HEADER + (uint32_t)run->o->len;
    if (k->state == CONNECTING) {
        int error = socket_error(k->fd);
        if (error) { failed(run, k, c, why(error)); return; }
        if (!(events & (EPOLLOUT | EPOLLIN | EPOLLERR | EPOLLHUP))) return;
        k->state = SENDING;
    }
    while (k->state == SENDING || k->state == RECEIVING) {
        if (k->state == SENDING) {
            if (k->sent == 0) k->started_ns = now_ns();
            ssize_t n = send(k->fd, k->out + k->sent, size - k->sent, MSG_NOSIGNAL);
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
            if (n < 0) { failed(run, k, c, why(errno)); return; }
            k->sent += (uint32_t)n;
            if (k->sent == size) k->state = RECEIVING;
            continue;
        }
        ssize_t n = recv(k->fd, k->in + k->got, size - k->got, 0);   /* never more than this reply */
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (n < 0) { failed(run, k, c, why(errno)); return; }
        if (n == 0) {
            char what[160];
            kind = "closed";
            snprintf(what, sizeof what, "connection closed early by the server, after %u of the reply's %u bytes",
                     k->got, size);
            failed(run, k, c, what);
            return;
        }
        for (uint32_t offset = k->got; offset < k->got + (uint32_t)n; offset++)
            if (reply_byte_problem(run, k, c, offset)) return;
        k->got += (uint32_t)n;
        if (k->got == size) replied(run, k, c);
    }
}

/* Why the repetition ran out of time: how far it got and the first connection still waiting. */
static void timed_out(struct run *run) {
    const struct options *o = run->o;
    long long waiting = -1, connecting = 0;
    for (long long c = 0; c < o->connections; c++) {
        struct connection *k = &run->connections[c];
        if (k->state == DONE) continue;
        if (k->state == CONNECTING) connecting++;
        if (waiting < 0) waiting = c;
    }
    if (waiting < 0) return;
    struct connection *k = &run->connections[waiting];
    char what[300];
    snprintf(what, sizeof what, "timeout after %lld ms: %lld of %lld replies, %lld connections unfinished "
             "(%lld not yet connected); the first, connection %lld, was at request %lld with %u reply bytes read",
             o->timeout_ms, run->replies, o->connections * o->requests, run->open, connecting, waiting, k->request,
             k->got);
    long long open_before = run->open;
    kind = "timeout";
    fail("%s", what);
    failures += open_before - 1;
    for (long long c = 0; c < o->connections; c++)
        if (run->connections[c].state != DONE) finish(run, &run->connections[c]);
}

static void run_repetition(struct run *run, long long deadline) {
    const struct options *o = run->o;
    size_t size = HEADER + (size_t)o->len;
    run->connections = calloc((size_t)o->connections, sizeof *run->connections);
    unsigned char *buffers = malloc((size_t)o->connections * 2 * size + 1);
    run->latencies = malloc((size_t)(o->connections * o->requests) * sizeof *run->latencies + 1);
    run->epoll = epoll_create1(EPOLL_CLOEXEC);
    if (!run->connections || !buffers || !run->latencies || run->epoll < 0) {
        kind = "open";
        fail("the load generator could not allocate %lld connections' buffers", o->connections);
        exit(2);
    }
    for (long long c = 0; c < o->connections; c++) {
        struct connection *k = &run->connections[c];
        k->out = buffers + (size_t)c * 2 * size, k->in = k->out + size;
        k->state = CONNECTING;
        prepare_request(run, k, c);
        k->fd = open_connection(o->port, c);
        run->open++;
        if (k->fd < 0) {
            char what[200];
            snprintf(what, sizeof what, "could not open it: %s", why(-k->fd));
            k->fd = -1;
            failed(run, k, c, what);
            continue;
        }
        struct epoll_event event = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.u64 = (uint64_t)c};
        epoll_ctl(run->epoll, EPOLL_CTL_ADD, k->fd, &event);
    }
    struct epoll_event events[1024];
    while (run->open > 0) {
        long long left_ms = (deadline - now_ns()) / 1000000LL;
        if (left_ms <= 0) { timed_out(run); break; }
        int n = epoll_wait(run->epoll, events, 1024, left_ms > 1000 ? 1000 : (int)left_ms);
        if (n < 0 && errno != EINTR) { kind = "open"; fail("epoll_wait: %s", strerror(errno)); break; }
        for (int e = 0; e < n; e++) {
            long long c = (long long)events[e].data.u64;
            if (run->connections[c].state != DONE) drive(run, c, events[e].events);
        }
    }
    close(run->epoll);
    free(buffers);
}

/* --- the probes: a server that replies before it has read the request whole --------------- */
static int wait_readable(int fd, long long until_ns) {
    for (;;) {
        long long left_ms = (until_ns - now_ns() + 999999) / 1000000LL;
        if (left_ms <= 0) return 0;
        struct pollfd p = {fd, POLLIN, 0};
        int n = poll(&p, 1, (int)left_ms);
        if (n > 0) return 1;
        if (n < 0 && errno != EINTR) return -1;
    }
}

static int send_all(int fd, const unsigned char *p, size_t n, long long deadline) {
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd q = {fd, POLLOUT, 0};
            long long left_ms = (deadline - now_ns()) / 1000000LL;
            if (left_ms <= 0 || poll(&q, 1, (int)left_ms) <= 0) { errno = ETIMEDOUT; return -1; }
            continue;
        }
        if (w < 0) return -1;
        p += w, n -= (size_t)w;
    }
    return 0;
}

/* Reads exactly n bytes by `deadline`; 0, or a reason. */
static const char *recv_all(int fd, unsigned char *p, size_t n, long long deadline) {
    static char reason[160];
    size_t got = 0;
    while (got < n) {
        int ready = wait_readable(fd, deadline);
        if (ready <= 0) {
            kind = "timeout";
            snprintf(reason, sizeof reason, "timeout waiting for the reply (%zu of %zu bytes read)", got, n);
            return reason;
        }
        ssize_t r = recv(fd, p + got, n - got, MSG_DONTWAIT);
        if (r < 0 && (errno == EAGAIN || errno == EINTR)) continue;
        if (r < 0) return why(errno);
        if (r == 0) {
            kind = "closed";
            snprintf(reason, sizeof reason, "connection closed early by the server, after %zu of the reply's %zu bytes",
                     got, n);
            return reason;
        }
        got += (size_t)r;
    }
    return NULL;
}

static int connect_blocking(int port, long long deadline) {
    int fd = open_connection(port, 0);
    if (fd < 0) { errno = -fd; return -1; }
    struct pollfd p = {fd, POLLOUT, 0};
    long long left_ms = (deadline - now_ns()) / 1000000LL;
    if (left_ms <= 0 || poll(&p, 1, (int)left_ms) <= 0) { close(fd); errno = ETIMEDOUT; return -1; }
    int error = socket_error(fd);
    if (error) { close(fd); errno = error; return -1; }
    return fd;
}

/* One exchange whose request is written in two parts, `delay_ms` apart; its reply checked
 * against `expected`. Returns NULL or the reason it failed. */
static const char *split_exchange(int fd, const unsigned char *request, size_t size, const unsigned char *expected,
                                  size_t split, long long delay_ms, long long deadline) {
    static char reason[200];
    unsigned char reply[HEADER + MAX_LEN];
    if (send_all(fd, request, split, deadline) != 0) return why(errno);
    if (wait_readable(fd, now_ns() + delay_ms * 1000000LL) > 0) {
        ssize_t early = recv(fd, reply, sizeof reply, MSG_DONTWAIT | MSG_PEEK);
        kind = early > 0 ? "early-reply" : "closed";
        snprintf(reason, sizeof reason, early > 0
                 ? "replied before it had read the request whole (reply bytes came after %zu of its %zu bytes)"
                 : "connection closed by the server before the request was whole (after %zu of its %zu bytes)",
                 split, size);
        return reason;
    }
    if (send_all(fd, request + split, size - split, deadline) != 0) return why(errno);
    const char *problem = recv_all(fd, reply, size, deadline);
    if (problem) return problem;
    for (size_t i = 0; i < size; i++)
        if (reply[i] != expected[i]) {
            kind = "wrong-byte";
            snprintf(reason, sizeof reason, "wrong byte at offset %zu of the %zu-byte reply: 0x%02x, expected 0x%02x", i,
                     size, reply[i], expected[i]);
            return reason;
        }
    return NULL;
}

static void expected_reply(const unsigned char *request, size_t len, unsigned char *reply) {
    memcpy(reply, request, HEADER);
    for (size_t i = 0; i < len; i++) reply[HEADER + i] = request[HEADER + len - 1 - i];
}

/* The spec's test vector: request id 1, len 3, "abc" → the same header, then "cba". */
static const unsigned char VECTOR_REQUEST[] = {0, 0, 0, 1, 0, 0, 0, 3, 'a', 'b', 'c'};
static const unsigned char VECTOR_REPLY[] = {0, 0, 0, 1, 0, 0, 0, 3, 'c', 'b', 'a'};

/* The probes, then the spec's vector on the same connection; the replies it got right. */
static long long run_probes(const struct options *o, long long deadline) {
    if (o->probes == 0) return 0;
    int fd = connect_blocking(o->port, deadline);
    if (fd < 0) { fail("probe connection: %s", why(errno)); return 0; }
    size_t size = HEADER + (size_t)o->len;
    static unsigned char request[HEADER + MAX_LEN], expected[HEADER + MAX_LEN];
    long long done = 0;
    for (long long p = 0; p < o->probes; p++) {
        long long i = o->connections * o->requests + p;
        put_be32(request, (uint32_t)i);
        put_be32(request + 4, (uint32_t)o->len);
        splitmix64_bytes(o->seed, (uint64_t)i, request + HEADER, (size_t)o->len);
        expected_reply(request, (size_t)o->len, expected);
        /* all but the payload's last byte (half the header where there is no payload) */
        size_t split = o->len ? size - 1 : HEADER / 2;
        const char *problem = split_exchange(fd, request, size, expected, split, o->probe_delay_ms, deadline);
        if (problem) { fail("probe request %lld (sent in two parts %lld ms apart): %s", p, o->probe_delay_ms, problem); break; }
        done++;
    }
    if (done == o->probes) {
        const char *problem = split_exchange(fd, VECTOR_REQUEST, sizeof VECTOR_REQUEST, VECTOR_REPLY,
                                             sizeof VECTOR_REQUEST, 0, deadline);
        if (problem) fail("the spec's test vector (id 1, len 3, \"abc\" -> \"cba\"): %s", problem);
        else done++;
    }
    close(fd);
    return done;
}

/* --- the spec's test vector ----------------------------------------------------------------- */
static int run_vector(const struct options *o) {
    long long deadline = now_ns() + o->timeout_ms * 1000000LL;
    int fd = connect_blocking(o->port, deadline);
    const char *problem = fd < 0 ? why(errno) : split_exchange(fd, VECTOR_REQUEST, sizeof VECTOR_REQUEST, VECTOR_REPLY,
                                                                sizeof VECTOR_REQUEST, 0, deadline);
    if (fd >= 0) close(fd);
    printf("{\"vector\":\"%s\",\"failure\":", problem ? "failed" : "ok");
    if (problem) printf("\"%s\"}\n", problem); else printf("null}\n");
    return problem ? 1 : 0;
}

/* --- the report ------------------------------------------------------------------------------ */
static int by_value(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

static long long percentile(const long long *sorted, long long n, int permille) {
    if (n == 0) return -1;
    long long rank = (n * permille + 999) / 1000;       /* nearest rank */
    return sorted[(rank < 1 ? 1 : rank) - 1];
}

static void json_text(const char *text) {
    putchar('"');
    for (const char *p = text; *p; p++) {
        if (*p == '"' || *p == '\\') printf("\\%c", *p);
        else if ((unsigned char)*p < 0x20) printf("\\u%04x", *p);
        else putchar(*p);
    }
    putchar('"');
}

int main(int argc, char **argv) {
    struct options o;
    if (parse(argc, argv, &o) != 0) return 2;
    /* Many connections at once: this side holds one descriptor each. */
    struct rlimit files;
    getrlimit(RLIMIT_NOFILE, &files);
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
    getrlimit(RLIMIT_NOFILE, &files);
    if (o.vector) return run_vector(&o);
    if (!o.seed_given && getrandom(&o.seed, sizeof o.seed, 0) != (ssize_t)sizeof o.seed) {
        fprintf(stderr, "parbench-loadgen: getrandom: %s\n", strerror(errno));
        return 2;
    }
    long long deadline = now_ns() + o.timeout_ms * 1000000LL;
    struct run run = {.o = &o};
    long long first_connect = now_ns();
    run_repetition(&run, deadline);
    long long ns = run.last_reply_ns ? run.last_reply_ns - first_connect : now_ns() - first_connect;
    long long probes = failures ? 0 : run_probes(&o, deadline);
    qsort(run.latencies, (size_t)run.replies, sizeof *run.latencies, by_value);
    printf("{\"ns\":%lld,\"replies\":%lld,\"expected_replies\":%lld,\"failures\":%lld,\"failure\":", ns, run.replies,
           o.connections * o.requests, failures);
    if (first_failure[0]) json_text(first_failure); else printf("null");
    printf(",\"failure_kind\":");
    if (first_kind) json_text(first_kind); else printf("null");
    printf(",\"p50_ns\":%lld,\"p99_ns\":%lld,\"max_ns\":%lld,\"digest\":\"%016" PRIx64 "\",\"seed\":\"%" PRIu64 "\","
           "\"seed_source\":\"%s\",\"connections\":%lld,\"requests\":%lld,\"len\":%lld,\"probes\":%lld,"
           "\"probe_replies\":%lld,\"nofile_limit\":%llu}\n",
           percentile(run.latencies, run.replies, 500), percentile(run.latencies, run.replies, 990),
           run.replies ? run.latencies[run.replies - 1] : -1, run.digest, o.seed, o.seed_given ? "given" : "getrandom",
           o.connections, o.requests, o.len, o.probes, probes, (unsigned long long)files.rlim_cur);
    return failures ? 1 : 0;
}
