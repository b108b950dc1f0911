package parbench.workloads;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import parbench.Protocol;
import parbench.Workload;

/** spawn-chain: `n` threads in a chain, each passing one integer plus one to the unit before it. */
public final class SpawnChain implements Workload {
    @Override
    public String name() {
        return "spawn-chain";
    }

    @Override
    public List<String> params() {
        return List.of("n");
    }

    @Override
    public SequencedMap<String, Protocol.ModelInfo> models() {
        SequencedMap<String, Protocol.ModelInfo> models = new LinkedHashMap<>();
        models.put("platform-threads", new Protocol.ModelInfo("threads", false,
                "one OS thread per link (Thread.ofPlatform, default stack size), a SynchronousQueue handoff "
                        + "per link, every link joined; thread creation failure is the limit result"));
        models.put("virtual-threads", new Protocol.ModelInfo("green", true,
                "one virtual thread per link (Thread.ofVirtual) on workers carriers, a SynchronousQueue "
                        + "handoff per link, every link joined"));
        return models;
    }

    /**
     * Builds the chain, passes 0 through it and joins every link; returns the answer, which must
     * be n. Link k takes from its own inbox and puts into link k-1's; link 0 puts into the caller's.
     */
    static int passThroughChain(int n, ThreadFactory threads) throws InterruptedException {
        SynchronousQueue<Integer> answer = new SynchronousQueue<>();
        SynchronousQueue<Integer> next = answer;
        Thread[] links = new Thread[n];
        for (int k = 0; k < n; k++) {
            SynchronousQueue<Integer> inbox = new SynchronousQueue<>();
            SynchronousQueue<Integer> outbox = next;
            links[k] = threads.newThread(() -> {
                try {
                    outbox.put(inbox.take() + 1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            links[k].start();
            next = inbox;
        }
        next.put(0);
        int result = answer.take();
        for (Thread link : links) {
            link.join();
        }
        return result;
    }

    /** Stands for "stop" in the hand-off: no count is negative. */
    private static final int STOP = -1;

    /**
     * The ceiling: two threads of the chain's kind, created before the clock starts, pass a
     * counter back and forth through SynchronousQueues until it has been handed over n times.
     * Returns the nanoseconds of the passing alone; the two threads are joined after it.
     */
    static long handOffNs(int n, ThreadFactory threads) throws InterruptedException {
        SynchronousQueue<Integer> toFirst = new SynchronousQueue<>();
        SynchronousQueue<Integer> toSecond = new SynchronousQueue<>();
        SynchronousQueue<Integer> done = new SynchronousQueue<>();
        Thread first = threads.newThread(() -> passBackAndForth(n, toFirst, toSecond, done));
        Thread second = threads.newThread(() -> passBackAndForth(n, toSecond, toFirst, done));
        first.start();
        second.start();
        long start = System.nanoTime();
        toFirst.put(0);
        int handed = done.take();
        long ns = System.nanoTime() - start;
        first.join();
        second.join();
        if (handed != n) {
            throw new IllegalStateException("hand-off counted " + handed + ", expected " + n);
        }
        return ns;
    }

    /** One side of the hand-off: take the count, pass it on plus one, until it reaches n. */
    private static void passBackAndForth(int n, SynchronousQueue<Integer> inbox, SynchronousQueue<Integer> outbox,
            SynchronousQueue<Integer> done) {
        try {
            while (true) {
                int count = inbox.take();
                if (count == STOP) {
                    return;
                }
                if (count == n) {
                    done.put(count);
                    outbox.put(STOP);
                    return;
                }
                outbox.put(count + 1);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A platform thread's stack size comes from -Xss (or -XX:ThreadStackSize) when given. */
    static String threadStackSetting() {
        return java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(flag -> flag.startsWith("-Xss") || flag.startsWith("-XX:ThreadStackSize"))
                .reduce((first, last) -> last)
                .orElse("default (1 MiB reserved on linux-x64)");
    }

    @Override
    public PreparedCase prepare(String model, Protocol.Args args, int workers) {
        int n = args.count("n", 1);
        Map<String, Object> extra = new LinkedHashMap<>();
        if (model.equals("virtual-threads")) {
            extra.put("workers", workers);
        } else {
            extra.put("thread_stack", threadStackSetting());
        }
        return new PreparedCase() {
            @Override
            public Protocol.Repetition run() throws Exception {
                ThreadFactory threads = model.equals("virtual-threads")
                        ? Thread.ofVirtual().factory()
                        : Thread.ofPlatform().daemon(true).factory();
                long start = System.nanoTime();
                // A thread that cannot start throws OutOfMemoryError, which Main turns into exit 3.
                int answer = passThroughChain(n, threads);
                long ns = System.nanoTime() - start;
                Map<String, Object> figures = new LinkedHashMap<>();
                figures.put("ceiling", "hand-off");
                figures.put("ceiling_ns", handOffNs(n, threads));
                return new Protocol.Repetition(ns, n, Integer.toString(answer), figures);
            }

            @Override
            public Map<String, Object> extra() {
                return extra;
            }
        };
    }
}
