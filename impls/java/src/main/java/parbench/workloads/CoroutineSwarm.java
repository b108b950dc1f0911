package parbench.workloads;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import parbench.Digest;
import parbench.Protocol;
import parbench.Workers;
import parbench.Workload;

/** coroutine-swarm: many tasks that each yield (or sleep) before every step, folding FizzBuzz lines into a digest. */
public final class CoroutineSwarm implements Workload {
    @Override
    public String name() {
        return "coroutine-swarm";
    }

    @Override
    public List<String> params() {
        return List.of("tasks", "steps", "sleep_ms");
    }

    @Override
    public SequencedMap<String, Protocol.ModelInfo> models() {
        SequencedMap<String, Protocol.ModelInfo> models = new LinkedHashMap<>();
        models.put("seq", new Protocol.ModelInfo("seq", false, "the same lines in a plain loop, no yields"));
        models.put("virtual-threads", new Protocol.ModelInfo("green", true,
                "one virtual thread per task on workers carriers, all started behind a start gate (a latch "
                        + "opened once every thread exists); Thread.yield() for sleep_ms 0, "
                        + "Thread.sleep(ms) otherwise", Workers.virtualThreadStarts("task")));
        models.put("platform-threads", new Protocol.ModelInfo("threads", false,
                "one OS thread per task (Thread.ofPlatform, default stack), the same start gate, yields and sleeps; "
                        + "for comparison with virtual threads, thread creation failure is the limit result",
                Workers.unitsAreTheWork("task")));
        return models;
    }

    static String fizzbuzz(int i) {
        if (i % 15 == 0) {
            return "FizzBuzz";
        }
        if (i % 5 == 0) {
            return "Buzz";
        }
        if (i % 3 == 0) {
            return "Fizz";
        }
        return Integer.toString(i);
    }

    /** The hash of task `id`'s line at `step`; `id` is the task's index plus the repetition's salt. */
    static long lineHash(long id, int step) {
        return Digest.fnv1a64(id + ":" + step + ":" + fizzbuzz(step));
    }

    /** No task has run a step yet: the first step is not a switch. */
    private static final long NONE = -1;

    /**
     * The digest, protocol 2's count of passes from one task to another, step by step, and
     * protocol 4's proof of interleaving: every ticket drawn and the probe tasks' [task, first, last].
     */
    record SwarmResult(String checksum, long spawnNs, long switches, long tickets, List<List<Long>> ticketProbes) {}

    /**
     * Protocol 4's proof of interleaving: every step draws the next ticket (a fetch-add: tasks
     * step on several carriers or OS threads), so tickets number the steps in the order they ran;
     * about 16 probe tasks, picked by the salt ((task + salt) % stride == 0), keep their first
     * and last tickets (under a lock, once a probe task).
     */
    static final class Tickets {
        private final AtomicLong drawn = new AtomicLong();
        private final long stride;
        private final long salt;
        private final List<List<Long>> probes = new ArrayList<>();

        Tickets(int tasks, long salt) {
            this.stride = Math.max(1, tasks / 16);
            this.salt = salt;
        }

        long draw() {
            return drawn.getAndIncrement();
        }

        synchronized void finished(long task, long first, long last) {
            if ((task + salt) % stride == 0) {
                probes.add(List.of(task, first, last));
            }
        }

        synchronized List<List<Long>> probes() {
            return new ArrayList<>(probes);
        }
    }

    /**
     * seq: the same lines in a plain loop, task after task. Its switches are counted the same way
     * as the swarm's (a plain variable, one thread), which gives tasks - 1.
     */
    static SwarmResult sequential(int tasks, int steps, long salt) {
        long sum = 0;
        long last = NONE;
        long switches = 0;
        for (int t = 0; t < tasks; t++) {
            for (int s = 0; s < steps; s++) {
                if (last != t && last != NONE) {
                    switches++;
                }
                last = t;
                sum += lineHash(t + salt, s);
            }
        }
        return new SwarmResult(Digest.digestHex(sum), 0, switches, 0, List.of());
    }

    static String sequential(int tasks, int steps) {
        return sequential(tasks, steps, 0).checksum();
    }

    /**
     * One thread per task, all started behind a start gate (a latch opened once every thread
     * exists: without it the carriers run each task to its end while the next is still being
     * made, and the tasks never take turns); each yields (or sleeps) before every step, then
     * counts a switch if another task ran the step before (`last.getAndSet(me)`, the spec's
     * swap), draws its ticket, then folds its line. `busy` (may be null) records each task's
     * worker and span.
     */
    static SwarmResult swarm(int tasks, int steps, int sleepMs, long salt, Thread.Builder builder,
            Protocol.Busy busy) throws InterruptedException {
        long start = System.nanoTime();
        AtomicLong digest = new AtomicLong();
        AtomicLong last = new AtomicLong(NONE);
        LongAdder switches = new LongAdder();
        Tickets tickets = new Tickets(tasks, salt);
        CountDownLatch gate = new CountDownLatch(1);
        Thread[] threads = new Thread[tasks];
        for (int t = 0; t < tasks; t++) {
            int task = t;
            threads[t] = builder.start(() -> {
                long sum = 0;
                long first = -1;
                long ticket = -1;
                try {
                    gate.await();
                    if (busy != null) {
                        busy.begin(task, Workers.currentWorker());
                    }
                    for (int s = 0; s < steps; s++) {
                        if (sleepMs == 0) {
                            Thread.yield();
                        } else {
                            Thread.sleep(sleepMs);
                        }
                        long previous = last.getAndSet(task);
                        if (previous != task && previous != NONE) {
                            switches.increment();
                        }
                        ticket = tickets.draw();
                        if (s == 0) {
                            first = ticket;
                        }
                        sum += lineHash(task + salt, s);
                    }
                    if (steps > 0) {
                        tickets.finished(task, first, ticket);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } finally {
                    if (busy != null) {
                        busy.end(task);
                    }
                }
                digest.addAndGet(sum);
            });
        }
        long spawnNs = System.nanoTime() - start;
        gate.countDown();
        for (Thread thread : threads) {
            thread.join();
        }
        return new SwarmResult(Digest.digestHex(digest.get()), spawnNs, switches.sum(), tickets.drawn.get(),
                tickets.probes());
    }

    static SwarmResult swarm(int tasks, int steps, int sleepMs, Thread.Builder builder) throws InterruptedException {
        return swarm(tasks, steps, sleepMs, 0, builder, null);
    }

    /**
     * The ceiling: one thread of the swarm's kind yields `yields` times with the same bare
     * Thread.yield() and forms no lines; returns the nanoseconds of the loop, timed on that thread.
     */
    static long yieldNs(long yields, Thread.Builder builder) throws InterruptedException {
        long[] ns = new long[1];
        Thread alone = builder.start(() -> {
            long start = System.nanoTime();
            for (long i = 0; i < yields; i++) {
                Thread.yield();
            }
            ns[0] = System.nanoTime() - start;
        });
        alone.join();
        return ns[0];
    }

    @Override
    public PreparedCase prepare(String model, Protocol.Args args, Workers.Team team) {
        int tasks = args.count("tasks", 1);
        int steps = args.count("steps", 0);
        int sleepMs = args.count("sleep-ms", 0, 0);
        Map<String, Object> extra = new LinkedHashMap<>();
        if (model.equals("virtual-threads")) {
            team.startCarriers();
            extra.put("workers", team.size());
        }
        return new PreparedCase() {
            @Override
            public Protocol.Repetition run(Protocol.Rep rep) throws Exception {
                long salt = rep.variant(0);
                Map<String, Object> figures = new LinkedHashMap<>();
                figures.put("salt", salt);
                if (model.equals("seq")) {
                    rep.start();
                    SwarmResult result = sequential(tasks, steps, salt);
                    long ns = rep.stop();
                    figures.put("switches", result.switches());
                    return new Protocol.Repetition(ns, tasks, result.checksum(), figures);
                }
                boolean virtual = model.equals("virtual-threads");
                Thread.Builder builder = virtual ? Thread.ofVirtual() : Thread.ofPlatform().daemon(true);
                // Only the model with workers (carriers) reports busy intervals; its slots are
                // allocated here, off the clock (prepare_ns).
                Protocol.Busy busy = virtual ? new Protocol.Busy(tasks) : null;
                rep.start();
                // A thread that cannot start throws OutOfMemoryError, which Main turns into exit 3.
                SwarmResult result = swarm(tasks, steps, sleepMs, salt, builder, busy);
                long ns = rep.stop();
                figures.put("spawn_ns", result.spawnNs());
                figures.put("switches", result.switches());
                figures.put("tickets", result.tickets());
                figures.put("ticket_probes", result.ticketProbes());
                if (busy != null) {
                    figures.put("workers_used", busy.workersUsed());
                    figures.put("busy", busy.intervals(rep.origin()));
                }
                rep.checksummed();
                if (sleepMs == 0) {
                    figures.put("ceiling", "yield");
                    figures.put("ceiling_ns", yieldNs((long) tasks * steps, builder));
                }
                rep.cleanup();
                return new Protocol.Repetition(ns, tasks, result.checksum(), figures);
            }

            @Override
            public Map<String, Object> extra() {
                return extra;
            }
        };
    }
}
