package parbench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;
import java.util.stream.IntStream;

/**
 * The ways a model runs a pass of chunks. Each pass starts its own workers, hands out every
 * chunk, and ends every worker (pool shut down, its threads joined) before it returns, so a
 * pass timed from outside includes the whole cost of going parallel.
 */
public final class Workers {
    private Workers() {}

    /** A model's way of running `chunks` chunks through `body`; returns who ran each one. */
    @FunctionalInterface
    public interface ChunkRunner {
        Log run(int chunks, IntConsumer body) throws Exception;
    }

    /**
     * Which worker ran each chunk and when (protocol 2's busy intervals), written as the pass
     * runs, each chunk in its own slot, and read after the clock stops.
     */
    public static final class Log {
        private final Protocol.Busy busy;

        Log(int chunks) {
            busy = new Protocol.Busy(chunks);
        }

        void begin(int chunk) {
            busy.begin(chunk, currentWorker());
        }

        void end(int chunk) {
            busy.end(chunk);
        }

        /** Distinct workers that ran at least one chunk. */
        public int workersUsed() {
            return busy.workersUsed();
        }

        /** Each worker's busy interval, relative to the repetition's clock start. */
        public List<List<Long>> busy(long origin) {
            return busy.intervals(origin);
        }
    }

    /**
     * The worker the current code runs on, as `--workers` counts them: a platform thread is its
     * own worker; a virtual thread's worker is the carrier it is mounted on, which the JDK only
     * names in the virtual thread's toString ("VirtualThread[#23]/runnable@ForkJoinPool-1-worker-1").
     */
    public static Object currentWorker() {
        Thread thread = Thread.currentThread();
        if (!thread.isVirtual()) {
            return thread;
        }
        String described = thread.toString();
        int at = described.lastIndexOf('@');
        String carrier = at < 0 ? described : described.substring(at + 1);
        // One String per carrier is kept, not one per unit (a million-link chain records each link).
        String known = CARRIERS.putIfAbsent(carrier, carrier);
        return known == null ? carrier : known;
    }

    private static final java.util.concurrent.ConcurrentHashMap<String, String> CARRIERS =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** One loop on the calling thread. */
    public static ChunkRunner sequential() {
        return (chunks, body) -> {
            Log log = new Log(chunks);
            for (int c = 0; c < chunks; c++) {
                log.begin(c);
                body.accept(c);
                log.end(c);
            }
            return log;
        };
    }

    /** A parallel stream over chunk indices, run inside a ForkJoinPool of `workers` made for this pass. */
    public static ChunkRunner parallelStream(int workers) {
        return (chunks, body) -> {
            Log log = new Log(chunks);
            List<Thread> started = new ArrayList<>();
            ForkJoinPool pool = new ForkJoinPool(workers, recordingForkJoinFactory(started), null, false);
            try {
                pool.submit(() -> IntStream.range(0, chunks).parallel().forEach(c -> {
                    log.begin(c);
                    body.accept(c);
                    log.end(c);
                })).get();
            } finally {
                endPool(pool, started);
            }
            return log;
        };
    }

    /** Executors.newFixedThreadPool(workers) made for this pass, one task per chunk. */
    public static ChunkRunner fixedThreadPool(int workers) {
        return (chunks, body) -> {
            Log log = new Log(chunks);
            List<Thread> started = new ArrayList<>();
            ExecutorService pool = Executors.newFixedThreadPool(workers, recordingFactory(started));
            try {
                List<Future<?>> done = new ArrayList<>(chunks);
                for (int c = 0; c < chunks; c++) {
                    int chunk = c;
                    done.add(pool.submit(() -> {
                        log.begin(chunk);
                        body.accept(chunk);
                        log.end(chunk);
                    }));
                }
                for (Future<?> future : done) {
                    future.get();
                }
            } finally {
                endPool(pool, started);
            }
            return log;
        };
    }

    /** One virtual thread per chunk, each joined; they run on the JVM's carrier threads. */
    public static ChunkRunner virtualThreadPerChunk() {
        return (chunks, body) -> {
            Log log = new Log(chunks);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread[] threads = new Thread[chunks];
            for (int c = 0; c < chunks; c++) {
                int chunk = c;
                threads[c] = Thread.ofVirtual().start(() -> {
                    try {
                        log.begin(chunk);
                        body.accept(chunk);
                        log.end(chunk);
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                });
            }
            joinAll(Arrays.asList(threads));
            if (failure.get() != null) {
                throw new ExecutionException("a chunk's virtual thread failed", failure.get());
            }
            return log;
        };
    }

    /** A thread factory that remembers every thread it made, so the pool's end can join them. */
    public static ThreadFactory recordingFactory(List<Thread> started) {
        ThreadFactory plain = Executors.defaultThreadFactory();
        return task -> {
            Thread thread = plain.newThread(task);
            synchronized (started) {
                started.add(thread);
            }
            return thread;
        };
    }

    private static ForkJoinPool.ForkJoinWorkerThreadFactory recordingForkJoinFactory(List<Thread> started) {
        return pool -> {
            ForkJoinWorkerThread thread = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
            synchronized (started) {
                started.add(thread);
            }
            return thread;
        };
    }

    /** Shuts the pool down, waits for it to terminate, then joins every thread it ever started. */
    public static void endPool(ExecutorService pool, List<Thread> started) throws InterruptedException {
        pool.shutdown();
        while (!pool.awaitTermination(1, TimeUnit.MINUTES)) {
            // A pass's tasks are all done by now; a pool slower than a minute to stop is still waited for.
        }
        synchronized (started) {
            joinAll(started);
        }
    }

    private static void joinAll(List<Thread> threads) throws InterruptedException {
        for (Thread thread : threads) {
            thread.join();
        }
    }
}
