package parbench.workloads;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.concurrent.atomic.AtomicLong;
import parbench.Checksums;
import parbench.Protocol;
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
                "one virtual thread per task on workers carriers; Thread.yield() for sleep_ms 0, "
                        + "Thread.sleep(ms) otherwise"));
        models.put("platform-threads", new Protocol.ModelInfo("threads", false,
                "one OS thread per task (Thread.ofPlatform, default stack), the same yields and sleeps; "
                        + "for comparison with virtual threads, thread creation failure is the limit result"));
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

    static long lineHash(int task, int step) {
        return Checksums.fnv1a64(task + ":" + step + ":" + fizzbuzz(step));
    }

    static String sequential(int tasks, int steps) {
        long sum = 0;
        for (int t = 0; t < tasks; t++) {
            for (int s = 0; s < steps; s++) {
                sum += lineHash(t, s);
            }
        }
        return Checksums.digestHex(sum);
    }

    /** The swarm's result and how long it took until every task existed. */
    record SwarmResult(String checksum, long spawnNs) {}

    static SwarmResult swarm(int tasks, int steps, int sleepMs, Thread.Builder builder) throws InterruptedException {
        long start = System.nanoTime();
        AtomicLong digest = new AtomicLong();
        Thread[] threads = new Thread[tasks];
        for (int t = 0; t < tasks; t++) {
            int task = t;
            threads[t] = builder.start(() -> {
                long sum = 0;
                try {
                    for (int s = 0; s < steps; s++) {
                        if (sleepMs == 0) {
                            Thread.yield();
                        } else {
                            Thread.sleep(sleepMs);
                        }
                        sum += lineHash(task, s);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                digest.addAndGet(sum);
            });
        }
        long spawnNs = System.nanoTime() - start;
        for (Thread thread : threads) {
            thread.join();
        }
        return new SwarmResult(Checksums.digestHex(digest.get()), spawnNs);
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
    public PreparedCase prepare(String model, Protocol.Args args, int workers) {
        int tasks = args.count("tasks", 1);
        int steps = args.count("steps", 0);
        int sleepMs = args.count("sleep-ms", 0, 0);
        Map<String, Object> extra = new LinkedHashMap<>();
        if (model.equals("virtual-threads")) {
            extra.put("workers", workers);
        }
        return new PreparedCase() {
            @Override
            public Protocol.Repetition run() throws Exception {
                if (model.equals("seq")) {
                    long start = System.nanoTime();
                    String checksum = sequential(tasks, steps);
                    return new Protocol.Repetition(System.nanoTime() - start, tasks, checksum);
                }
                Thread.Builder builder = model.equals("virtual-threads")
                        ? Thread.ofVirtual()
                        : Thread.ofPlatform().daemon(true);
                long start = System.nanoTime();
                // A thread that cannot start throws OutOfMemoryError, which Main turns into exit 3.
                SwarmResult result = swarm(tasks, steps, sleepMs, builder);
                long ns = System.nanoTime() - start;
                Map<String, Object> figures = new LinkedHashMap<>();
                figures.put("spawn_ns", result.spawnNs());
                if (sleepMs == 0) {
                    figures.put("ceiling", "yield");
                    figures.put("ceiling_ns", yieldNs((long) tasks * steps, builder));
                }
                return new Protocol.Repetition(ns, tasks, result.checksum(), figures);
            }

            @Override
            public Map<String, Object> extra() {
                return extra;
            }
        };
    }
}
