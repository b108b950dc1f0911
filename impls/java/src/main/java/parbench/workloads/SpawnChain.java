package parbench.workloads;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import parbench.Protocol;
import parbench.Workers;
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
                        + "per link, every link joined; thread creation failure is the limit result",
                Workers.unitsAreTheWork("link")));
        models.put("virtual-threads", new Protocol.ModelInfo("green", true,
                "one virtual thread per link (Thread.ofVirtual) on workers carriers, a SynchronousQueue "
                        + "handoff per link, every link joined", Workers.virtualThreadStarts("link")));
        return models;
    }

    /** What one pass through the chain answered, and what it counted on the way. */
    record Pass(long answer, int liveUnits) {}

    /**
     * Builds the chain, waits until every link is running, sends `start` through it and joins
     * every link; the answer must be start + n. Link k takes from its own inbox and puts into link
     * k-1's; link 0 puts into the caller's. `liveUnits` is protocol 2's count of links that had
     * started and not ended when `start` was sent: each link counts itself in when it starts
     * running and out when it ends, so a true chain reports n. `busy` (may be null) records the
     * worker each link starts on and when it starts and ends.
     */
    static Pass passThroughChain(int n, long start, ThreadFactory threads, Protocol.Busy busy)
            throws InterruptedException {
        SynchronousQueue<Long> answer = new SynchronousQueue<>();
        SynchronousQueue<Long> next = answer;
        AtomicInteger running = new AtomicInteger();
        CountDownLatch allRunning = new CountDownLatch(1);
        Thread[] links = new Thread[n];
        for (int k = 0; k < n; k++) {
            SynchronousQueue<Long> inbox = new SynchronousQueue<>();
            SynchronousQueue<Long> outbox = next;
            int link = k;
            links[k] = threads.newThread(() -> {
                if (busy != null) {
                    busy.begin(link, Workers.currentWorker());
                }
                if (running.incrementAndGet() == n) {
                    allRunning.countDown();
                }
                try {
                    outbox.put(inbox.take() + 1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    running.decrementAndGet();
                    if (busy != null) {
                        busy.end(link);
                    }
                }
            });
            links[k].start();
            next = inbox;
        }
        allRunning.await();
        int live = running.get();
        next.put(start);
        long result = answer.take();
        for (Thread link : links) {
            link.join();
        }
        return new Pass(result, live);
    }

    /** The chain's answer for start 0 (the spec's first form). */
    static long passThroughChain(int n, ThreadFactory threads) throws InterruptedException {
        return passThroughChain(n, 0, threads, null).answer();
    }

    /** Stands for "stop" in the hand-off: no count is negative. */
    private static final long STOP = -1;

    /**
     * The ceiling: two threads of the chain's kind, created before the clock starts, pass a
     * counter (a Long, as the chain passes) back and forth through SynchronousQueues until it has been handed over n times.
     * Returns the nanoseconds of the passing alone; the two threads are joined after it.
     */
    static long handOffNs(int n, ThreadFactory threads) throws InterruptedException {
        SynchronousQueue<Long> toFirst = new SynchronousQueue<>();
        SynchronousQueue<Long> toSecond = new SynchronousQueue<>();
        SynchronousQueue<Long> done = new SynchronousQueue<>();
        Thread first = threads.newThread(() -> passBackAndForth(n, toFirst, toSecond, done));
        Thread second = threads.newThread(() -> passBackAndForth(n, toSecond, toFirst, done));
        first.start();
        second.start();
        long start = System.nanoTime();
        toFirst.put(0L);
        long handed = done.take();
        long ns = System.nanoTime() - start;
        first.join();
        second.join();
        if (handed != n) {
            throw new IllegalStateException("hand-off counted " + handed + ", expected " + n);
        }
        return ns;
    }

    /** One side of the hand-off: take the count, pass it on plus one, until it reaches n. */
    private static void passBackAndForth(int n, SynchronousQueue<Long> inbox, SynchronousQueue<Long> outbox,
            SynchronousQueue<Long> done) {
        try {
            while (true) {
                long count = inbox.take();
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
    public PreparedCase prepare(String model, Protocol.Args args, Workers.Team team) {
        int n = args.count("n", 1);
        Map<String, Object> extra = new LinkedHashMap<>();
        if (model.equals("virtual-threads")) {
            team.startCarriers();
            extra.put("workers", team.size());
        } else {
            extra.put("thread_stack", threadStackSetting());
        }
        return new PreparedCase() {
            @Override
            public Protocol.Repetition run(Protocol.Rep rep) throws Exception {
                long startValue = rep.variant(0);
                boolean virtual = model.equals("virtual-threads");
                ThreadFactory threads = virtual
                        ? Thread.ofVirtual().factory()
                        : Thread.ofPlatform().daemon(true).factory();
                // Only the model with workers (carriers) reports busy intervals; its slots are
                // allocated here, off the clock (prepare_ns).
                Protocol.Busy busy = virtual ? new Protocol.Busy(n) : null;
                rep.start();
                // A thread that cannot start throws OutOfMemoryError, which Main turns into exit 3.
                Pass pass = passThroughChain(n, startValue, threads, busy);
                long ns = rep.stop();
                String checksum = Long.toString(pass.answer());
                Map<String, Object> figures = new LinkedHashMap<>();
                // Not "start": that field echoes the start mode (protocol 3).
                figures.put("start_value", startValue);
                figures.put("live_units", pass.liveUnits());
                if (busy != null) {
                    figures.put("workers_used", busy.workersUsed());
                    figures.put("busy", busy.intervals(rep.origin()));
                }
                rep.checksummed();
                long ceilingNs = handOffNs(n, threads);
                rep.cleanup();
                figures.put("ceiling", "hand-off");
                figures.put("ceiling_ns", ceilingNs);
                return new Protocol.Repetition(ns, n, checksum, figures);
            }

            @Override
            public Map<String, Object> extra() {
                return extra;
            }
        };
    }
}
