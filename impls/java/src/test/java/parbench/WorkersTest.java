package parbench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
    private static final int WORKERS = 3; // the test JVM runs 4 virtual-thread carriers (pom.xml argLine)

    private static Map<String, Workers.ChunkRunner> parallelRunners() {
        return Map.of(
                "parallel-stream", Workers.parallelStream(WORKERS),
                "threads", Workers.fixedThreadPool(WORKERS),
                "virtual-threads", Workers.virtualThreadPerChunk());
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
        for (var runner : parallelRunners().entrySet()) {
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
        Map<String, Workers.ChunkRunner> runners = new java.util.HashMap<>(parallelRunners());
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
        for (var runner : parallelRunners().entrySet()) {
            assertThrows(ExecutionException.class, () -> runner.getValue().run(4, chunk -> {
                if (chunk == 2) {
                    throw new IllegalStateException("chunk 2 fails");
                }
            }), runner.getKey());
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
