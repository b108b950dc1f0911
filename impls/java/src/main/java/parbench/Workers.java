package parbench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;
import java.util.stream.IntStream;

/**
 * The ways a model runs a pass of chunks. A cold pass starts its own workers, hands out every
 * chunk, and ends every worker (pool shut down, its threads joined) before it returns, so a
 * pass timed from outside includes the whole cost of going parallel; a warm pass hands its
 * chunks to workers a {@link Team} started once, before the ready line.
 */
public final class Workers {
    private Workers() {}

    /** What --list says the two pool models make in each start mode. */
    public static final Protocol.Starts PARALLEL_STREAM_STARTS = Protocol.Starts.coldOrWarm(
            "a ForkJoinPool of workers threads made for every pass of chunks (the work's, and the ceiling's "
                    + "after it), shut down, awaited and its threads joined inside the pass",
            "one ForkJoinPool of workers threads, every thread started, before the ready line; every pass (the "
                    + "work's and the ceiling's) submits its parallel stream to it: pool.submit(...).get()");
    public static final Protocol.Starts THREAD_POOL_STARTS = Protocol.Starts.coldOrWarm(
            "a ThreadPoolExecutor of workers threads made for every pass of chunks (the work's, and the "
                    + "ceiling's after it where there is one), shut down, awaited and its threads joined inside "
                    + "the pass",
            "one ThreadPoolExecutor of workers threads, prestarted, before the ready line; every pass hands it "
                    + "one task per chunk with invokeAll");

    /** Virtual-thread models: warm only, since their carriers are the JVM's own pool. */
    public static Protocol.Starts virtualThreadStarts(String unit) {
        return Protocol.Starts.warmOnly(
                "the JVM's virtual-thread scheduler with all its workers carrier threads started before the ready "
                        + "line; each repetition makes and joins one virtual thread per " + unit,
                "virtual threads run on the JVM's one carrier ForkJoinPool, which lives as long as the JVM and "
                        + "cannot be shut down or made anew in a repetition; what a repetition makes and ends is "
                        + "the virtual threads themselves, and that is the model");
    }

    /** Models whose units are OS threads made for the work (a chain's links, a swarm's tasks): no pool to start. */
    public static Protocol.Starts unitsAreTheWork(String unit) {
        return Protocol.Starts.neither(
                "each " + unit + " is an OS thread made and joined in the repetition in any case: the " + unit
                        + "s are the work itself, and no pool apart from them exists to make per repetition",
                "a " + unit + " made before the ready line would be work done before the clock, and no pool "
                        + "of OS threads apart from the " + unit + "s exists to keep warm");
    }

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

        /** Runs one chunk, recording the worker it ran on and when. */
        void run(int chunk, IntConsumer body) {
            busy.begin(chunk, currentWorker());
            body.accept(chunk);
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
                log.run(c, body);
            }
            return log;
        };
    }

    /** Cold: a parallel stream over chunk indices inside a ForkJoinPool of `workers` made and ended in this pass. */
    public static ChunkRunner parallelStream(int workers) {
        return (chunks, body) -> {
            List<Thread> started = new ArrayList<>();
            ForkJoinPool pool = forkJoinPool(workers, started);
            try {
                return inForkJoinPool(pool).run(chunks, body);
            } finally {
                endPool(pool, started);
            }
        };
    }

    /** Cold: a fixed pool of `workers` threads made and ended in this pass, one task per chunk. */
    public static ChunkRunner fixedThreadPool(int workers) {
        return (chunks, body) -> {
            List<Thread> started = new ArrayList<>();
            ExecutorService pool = threadPool(workers, started);
            try {
                return inThreadPool(pool).run(chunks, body);
            } finally {
                endPool(pool, started);
            }
        };
    }

    /** The parallel stream of a pass, handed to `pool` (which the pass may or may not own). */
    private static ChunkRunner inForkJoinPool(ForkJoinPool pool) {
        return (chunks, body) -> {
            Log log = new Log(chunks);
            pool.submit(() -> IntStream.range(0, chunks).parallel().forEach(c -> log.run(c, body))).get();
            return log;
        };
    }

    /** One task per chunk through `pool.invokeAll`, which returns once every task is done. */
    private static ChunkRunner inThreadPool(ExecutorService pool) {
        return (chunks, body) -> {
            Log log = new Log(chunks);
            List<Callable<Void>> tasks = new ArrayList<>(chunks);
            for (int c = 0; c < chunks; c++) {
                int chunk = c;
                tasks.add(() -> {
                    log.run(chunk, body);
                    return null;
                });
            }
            for (Future<Void> done : pool.invokeAll(tasks)) {
                done.get();
            }
            return log;
        };
    }

    /**
     * Exactly `workers` threads, the same in both start modes: no spare thread is ever added
     * (a saturated pool goes on with the threads it has), and an idle thread is never retired,
     * so a warm pool is the same threads in every repetition however long the gap between them.
     */
    private static ForkJoinPool forkJoinPool(int workers, List<Thread> started) {
        return new ForkJoinPool(workers, recordingForkJoinFactory(started), null, false, workers, workers, 1,
                pool -> true, 365, TimeUnit.DAYS);
    }

    private static ThreadPoolExecutor threadPool(int workers, List<Thread> started) {
        return new ThreadPoolExecutor(workers, workers, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                recordingFactory(started));
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
                        log.run(chunk, body);
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

    /**
     * The workers of one case in its start mode (protocol 3). Cold runners make their pool in
     * every pass and end it before the pass returns. Warm runners get their pool here, once,
     * with every thread already started (pools start threads lazily, and a thread started in a
     * repetition is not warm), and each pass only hands its chunks over; `startNs` is the time
     * spent so, which the ready line reports. Virtual threads are warm by nature: their carriers
     * are the JVM's own pool, started here.
     */
    public static final class Team {
        private final int size;
        private final String start;
        private long startNs;
        private boolean carriersStarted;

        public Team(int size, String start) {
            this.size = size;
            this.start = start;
        }

        public int size() {
            return size;
        }

        /** "cold", "warm", or "none" for models without a start mode. */
        public String start() {
            return start;
        }

        public boolean warm() {
            return start.equals("warm");
        }

        /** The time spent making and starting warm workers: the ready line's start_ns. */
        public long startNs() {
            return startNs;
        }

        public ChunkRunner parallelStream() {
            if (!warm()) {
                return Workers.parallelStream(size);
            }
            long begin = System.nanoTime();
            ForkJoinPool pool = forkJoinPool(size, new ArrayList<>());
            startEveryThread(pool);
            startNs += System.nanoTime() - begin;
            return inForkJoinPool(pool);
        }

        public ChunkRunner fixedThreadPool() {
            if (!warm()) {
                return Workers.fixedThreadPool(size);
            }
            long begin = System.nanoTime();
            ThreadPoolExecutor pool = threadPool(size, new ArrayList<>());
            pool.prestartAllCoreThreads();
            startNs += System.nanoTime() - begin;
            return inThreadPool(pool);
        }

        public ChunkRunner virtualThreadPerChunk() {
            startCarriers();
            return Workers.virtualThreadPerChunk();
        }

        /**
         * Starts the JVM's virtual-thread scheduler with all `size` carriers (its ForkJoinPool
         * starts them as virtual threads need them) and its delay scheduler thread (started on
         * the first timed park, and the one that wakes every sleeping virtual thread), so that no
         * repetition starts either.
         */
        public void startCarriers() {
            if (carriersStarted) {
                return;
            }
            long begin = System.nanoTime();
            AtomicInteger mounted = new AtomicInteger();
            List<Thread> starters = new ArrayList<>(size + 1);
            for (int i = 0; i < size; i++) {
                starters.add(Thread.ofVirtual().start(() -> spinUntilAll(size, mounted)));
            }
            starters.add(Thread.ofVirtual().start(Team::sleepBriefly));
            try {
                joinAll(starters);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting the carriers", e);
            }
            carriersStarted = true;
            startNs += System.nanoTime() - begin;
        }

        private static void sleepBriefly() {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** Tasks that each hold a thread until all hold one: the pool must start every thread to finish them. */
        private void startEveryThread(ForkJoinPool pool) {
            AtomicInteger running = new AtomicInteger();
            List<ForkJoinTask<?>> holders = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                holders.add(pool.submit(() -> spinUntilAll(size, running)));
            }
            holders.forEach(ForkJoinTask::join);
        }
    }

    /**
     * Counts the caller in and spins (never parks, so a virtual thread keeps its carrier) until
     * `parties` have come; a minute without them means the pool cannot run them side by side.
     */
    private static void spinUntilAll(int parties, AtomicInteger arrived) {
        arrived.incrementAndGet();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (arrived.get() < parties) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("only " + arrived.get() + " of " + parties
                        + " workers started; a pool smaller than --workers cannot run them side by side");
            }
            Thread.onSpinWait();
        }
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
