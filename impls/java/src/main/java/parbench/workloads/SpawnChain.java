package parbench.workloads;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.concurrent.SynchronousQueue;
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
                        + "per link; thread creation failure is the limit result"));
        models.put("virtual-threads", new Protocol.ModelInfo("green", true,
                "one virtual thread per link (Thread.ofVirtual) on workers carriers, a SynchronousQueue "
                        + "handoff per link"));
        return models;
    }

    /**
     * Builds the chain and passes 0 through it; returns the answer, which must be n.
     * Link k takes from its own inbox and puts into link k-1's; link 0 puts into the caller's.
     */
    static int passThroughChain(int n, Thread.Builder threads) throws InterruptedException {
        SynchronousQueue<Integer> answer = new SynchronousQueue<>();
        SynchronousQueue<Integer> next = answer;
        for (int k = 0; k < n; k++) {
            SynchronousQueue<Integer> inbox = new SynchronousQueue<>();
            SynchronousQueue<Integer> outbox = next;
            threads.start(() -> {
                try {
                    outbox.put(inbox.take() + 1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            next = inbox;
        }
        next.put(0);
        return answer.take();
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
                Thread.Builder threads = model.equals("virtual-threads")
                        ? Thread.ofVirtual()
                        : Thread.ofPlatform().daemon(true);
                long start = System.nanoTime();
                // A thread that cannot start throws OutOfMemoryError, which Main turns into exit 3.
                int answer = passThroughChain(n, threads);
                long ns = System.nanoTime() - start;
                return new Protocol.Repetition(ns, n, Integer.toString(answer));
            }

            @Override
            public Map<String, Object> extra() {
                return extra;
            }
        };
    }
}
