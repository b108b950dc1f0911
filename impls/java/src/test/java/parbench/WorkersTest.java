package parbench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The chunk runners: every chunk runs once, workers_used counts distinct workers, and every
 * worker has ended when a pass returns. Chunks that wait (spinning, never parking, so a virtual
 * thread keeps its carrier) until all have started force each onto its own worker, whatever the
 * timing; a runner that cannot do that never gets past the wait and the test fails.
 */
class WorkersTest {
    private static final int WORKERS = 3;
    /** The test JVM's virtual-thread carriers, at most (pom.xml's argLine, as impls/java/run sets them). */
    private static final int CARRIERS = 4;

    /** Cold pool runners (each pass makes and ends its pool) and the virtual-thread runner. */
    private static Map<String, Workers.ChunkRunner> parallelRunners() {
        return Map.of(
                "parallel-stream", Workers.parallelStream(WORKERS),
                "threads", Workers.fixedThreadPool(WORKERS),
                "virtual-threads", Workers.virtualThreadPerChunk());
    }

    /** Every parallel runner in both start modes, as a case's team makes them. */
    private static Map<String, Workers.ChunkRunner> everyParallelRunner() {
        Map<String, Workers.ChunkRunner> runners = new java.util.HashMap<>();
        for (String start : new String[] {"cold", "warm"}) {
            Workers.Team team = new Workers.Team(WORKERS, start);
            runners.put("parallel-stream " + start, team.parallelStream());
            runners.put("threads " + start, team.fixedThreadPool());
        }
        runners.put("virtual-threads warm", new Workers.Team(WORKERS, "warm").virtualThreadPerChunk());
        return runners;
    }

    /** The threads of this JVM now alive, by id. */
    private static Set<Long> liveThreadIds() {
        Set<Long> ids = new java.util.HashSet<>();
        for (long id : java.lang.management.ManagementFactory.getThreadMXBean().getAllThreadIds()) {
            ids.add(id);
        }
        return ids;
    }

    /** A chunk body that returns only once `parties` chunks have started (or fails after a minute). */
    private static java.util.function.IntConsumer waitForAll(int parties, AtomicInteger started) {
        return chunk -> {
            started.incrementAndGet();
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
            while (started.get() < parties) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("only " + started.get() + " of " + parties + " chunks started");
                }
                Thread.onSpinWait();
            }
        };
    }

    @Test
    void everyParallelRunnerUsesAsManyWorkersAsItWasGiven() throws Exception {
        for (var runner : everyParallelRunner().entrySet()) {
            Workers.Log log = runner.getValue().run(WORKERS, waitForAll(WORKERS, new AtomicInteger()));
            assertEquals(WORKERS, log.workersUsed(), runner.getKey());
        }
    }

    @Test
    void sequentialRunsEveryChunkOnOneWorker() throws Exception {
        assertEquals(1, Workers.sequential().run(5, chunk -> {}).workersUsed());
    }

    @Test
    void everyRunnerRunsEveryChunkOnce() throws Exception {
        Map<String, Workers.ChunkRunner> runners = new java.util.HashMap<>(everyParallelRunner());
        runners.put("seq", Workers.sequential());
        for (var runner : runners.entrySet()) {
            int[] runs = new int[100];
            runner.getValue().run(runs.length, chunk -> runs[chunk]++);
            for (int c = 0; c < runs.length; c++) {
                assertEquals(1, runs[c], runner.getKey() + " chunk " + c);
            }
        }
    }

    @Test
    void everyPoolThreadHasEndedWhenAPassReturns() throws Exception {
        for (var runner : parallelRunners().entrySet()) {
            Set<Thread> ranOn = ConcurrentHashMap.newKeySet();
            runner.getValue().run(WORKERS * 4, chunk -> ranOn.add(Thread.currentThread()));
            for (Thread thread : ranOn) {
                assertFalse(thread.isAlive(), runner.getKey() + ": " + thread + " still alive");
            }
        }
    }

    @Test
    void aFailingChunkFailsThePass() {
        for (var runner : everyParallelRunner().entrySet()) {
            assertThrows(ExecutionException.class, () -> runner.getValue().run(4, chunk -> {
                if (chunk == 2) {
                    throw new IllegalStateException("chunk 2 fails");
                }
            }), runner.getKey());
        }
    }

    /** A cold pass's threads are its own: none of them ran a chunk of the pass before it. */
    @Test
    void coldPassesNeverShareAThread() throws Exception {
        for (var runner : parallelRunners().entrySet()) {
            if (runner.getKey().equals("virtual-threads")) {
                continue;
            }
            Set<Thread> first = ConcurrentHashMap.newKeySet();
            Set<Thread> second = ConcurrentHashMap.newKeySet();
            runner.getValue().run(WORKERS * 4, chunk -> first.add(Thread.currentThread()));
            runner.getValue().run(WORKERS * 4, chunk -> second.add(Thread.currentThread()));
            second.retainAll(first);
            assertTrue(second.isEmpty(), runner.getKey() + " reused " + second);
        }
    }

    /**
     * A warm team starts every thread of its pool when it makes the runner (before the ready
     * line); its passes then start no thread and end none, and run on those same threads.
     */
    @Test
    void aWarmPoolIsStartedOnceAndReusedByEveryPass() throws Exception {
        for (String model : new String[] {"parallel-stream", "threads", "virtual-threads"}) {
            Set<Long> before = liveThreadIds();
            // The virtual-thread team starts every carrier the JVM may have, so that no pass can start one.
            Workers.Team team = new Workers.Team(model.equals("virtual-threads") ? CARRIERS : WORKERS, "warm");
            Workers.ChunkRunner runner = switch (model) {
                case "parallel-stream" -> team.parallelStream();
                case "threads" -> team.fixedThreadPool();
                default -> team.virtualThreadPerChunk();
            };
            assertTrue(team.startNs() > 0, model);
            Set<Long> started = liveThreadIds();
            Set<Object> ranOn = ConcurrentHashMap.newKeySet();
            for (int pass = 0; pass < 3; pass++) {
                runner.run(WORKERS, chunk -> ranOn.add(Workers.currentWorker()));
                runner.run(WORKERS, waitForAll(WORKERS, new AtomicInteger()));
                assertEquals(started, liveThreadIds(), model + " pass " + pass + " started or ended a thread");
            }
            if (!model.equals("virtual-threads")) {
                started.removeAll(before);
                assertEquals(WORKERS, started.size(), model + ": the warm pool's threads");
                for (Object worker : ranOn) {
                    assertTrue(started.contains(((Thread) worker).threadId()), model + ": ran on " + worker);
                }
            }
        }
    }

    @Test
    void aVirtualThreadsWorkerIsItsCarrier() throws Exception {
        Object[] worker = new Object[1];
        Thread.ofVirtual().start(() -> worker[0] = Workers.currentWorker()).join();
        if (!(worker[0] instanceof String carrier) || !carrier.startsWith("ForkJoinPool")) {
            fail("expected a carrier thread's name, got " + worker[0]);
        }
    }
}
