package parbench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.Set;
import parbench.workloads.BatchJob;
import parbench.workloads.CoroutineSwarm;
import parbench.workloads.EchoServer;
import parbench.workloads.Keygen;
import parbench.workloads.Noop;
import parbench.workloads.SdesEcb;
import parbench.workloads.SpawnChain;

/** The `run` entry point: answers `--list`, or runs one workload case and prints its JSON lines. */
public final class Main {
    private Main() {}

    /**
     * The JVM ignores TMPDIR (java.io.tmpdir is /tmp), which parbench's seal makes read-only: a
     * benchmark may write only its scratch folder, where TMPDIR points. sqlite-jdbc unpacks its
     * native library into java.io.tmpdir on first use, so it is set here, before anything reads it,
     * and not as a flag, which every result would then record with a path of its process's own.
     */
    static void followTmpdir() {
        String tmpdir = System.getenv("TMPDIR");
        if (tmpdir != null && !tmpdir.isEmpty() && !Protocol.jvmFlags().contains("-Djava.io.tmpdir=")) {
            System.setProperty("java.io.tmpdir", tmpdir);
        }
    }

    private static final List<Workload> WORKLOADS = List.of(
            new Noop(), new Keygen(), new SdesEcb(), new BatchJob(), new SpawnChain(), new CoroutineSwarm(),
            new EchoServer());

    public static void main(String[] argv) {
        followTmpdir();
        try {
            if (argv.length == 1 && argv[0].equals("--list")) {
                System.out.println(Protocol.json(describe()));
                return;
            }
            runCase(argv);
        } catch (Protocol.BadArguments e) {
            System.err.println(e.getMessage());
            System.exit(Protocol.EXIT_BAD_ARGUMENTS);
        } catch (Throwable failure) {
            Throwable limit = resourceLimit(failure);
            if (limit == null) {
                failure.printStackTrace();
                System.exit(1);
            }
            System.out.println(Protocol.limitLine(limit.getClass().getName() + ": " + limit.getMessage()));
            System.out.flush();
            // halt, not exit: threads still blocked in a half-built chain must not delay the answer.
            Runtime.getRuntime().halt(Protocol.EXIT_LIMIT);
        }
    }

    private static void runCase(String[] argv) throws Exception {
        if (argv.length == 0) {
            throw new Protocol.BadArguments("usage: run <workload> --model <model> [--<param> <value> ...] "
                    + "[--workers N] [--start cold|warm] (one variant per line on stdin, until it ends) "
                    + "| run --list; workloads: " + workloadNames());
        }
        Workload workload = WORKLOADS.stream().filter(w -> w.name().equals(argv[0])).findFirst()
                .orElseThrow(() -> new Protocol.BadArguments(
                        "unknown workload '" + argv[0] + "'; valid: " + workloadNames()));
        Protocol.Args args = Protocol.Args.parse(Arrays.asList(argv).subList(1, argv.length));
        String model = chooseModel(workload, args);
        Protocol.ModelInfo info = workload.models().get(model);

        // No --warmup or --repeat (protocol 4): the launcher alone decides how many repetitions run.
        Set<String> allowed = new HashSet<>(Set.of("model"));
        workload.params().forEach(param -> allowed.add(param.replace('_', '-')));
        if (!workload.kernels().isEmpty()) {
            allowed.add("kernel");
        }
        if (info.takesWorkers()) {
            allowed.add("workers");
        }
        if (info.starts().mentioned()) {
            allowed.add("start");
        }
        String context = workload.name() + " model " + model;
        args.allowOnly(allowed, context);

        int workers = args.count("workers", Runtime.getRuntime().availableProcessors(), 1);
        if (info.takesWorkers()) {
            sizeSharedPools(workers);
        }
        String start = info.starts().choose(args, context);
        if (workload instanceof Server server) {
            server.serve(model, args, workers, new BufferedReader(new InputStreamReader(System.in,
                    StandardCharsets.US_ASCII)), System.out);
            System.exit(0); // its connections' threads must not keep the JVM alive
        }
        if (!workload.kernels().isEmpty()) {
            // A kernel class this runtime lacks is a bad argument, never a silent stand-in.
            args.choice("kernel", "portable", List.copyOf(workload.kernels().keySet()));
        }

        Workers.Team team = new Workers.Team(workers, start);
        Workload.PreparedCase prepared = workload.prepare(model, args, team);
        Map<String, Object> extra = new LinkedHashMap<>(prepared.extra());
        Map<String, Object> readyExtra = new LinkedHashMap<>();
        if (info.takesWorkers()) {
            readyExtra.put("workers", workers);
            extra.putAll(Protocol.poolSettings(info.family(), workers));
        }
        if (!start.equals("none")) {
            extra.put("start", start);
        }
        extra.put("jvm_flags", Protocol.jvmFlags());
        extra.put("jvm_defaults", Protocol.jvmDefaults());
        extra.put("cpu_clock", Protocol.Cpu.source());
        // Linked here, not at its first use in repetition 0, where the lambda's bootstrap would be
        // time outside every clock.
        Protocol.RepetitionBody body = prepared::run;
        Protocol.loadTheUntimedPath();
        System.out.println(Protocol.readyLine(start, team.startNs(), readyExtra));
        System.out.flush();

        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        // One repetition per variant until stdin ends (protocol 4): the process never knows how
        // many there will be, nor which the harness times, so every one prints the same rep line.
        for (int j = 0; ; j++) {
            Long variant = Protocol.readVariant(stdin, j);
            if (variant == null) {
                break;
            }
            Protocol.Repetition repetition = Protocol.runRepetition(body, variant);
            System.out.println(Protocol.repetitionLine(j, repetition, extra));
            // The launcher writes the next variant when this line arrives: it leaves now, not at exit.
            System.out.flush();
        }
        // End of file: the case is over. Warm pools, parked carriers and JDBC timers must not keep
        // the JVM alive.
        System.exit(0);
    }

    private static String chooseModel(Workload workload, Protocol.Args args) {
        List<String> names = List.copyOf(workload.models().keySet());
        String fallback = workload instanceof Noop ? names.getFirst() : null;
        String model = args.string("model", fallback);
        if (model == null || !names.contains(model)) {
            throw new Protocol.BadArguments((model == null ? "missing --model" : "unknown model '" + model + "'")
                    + " for " + workload.name() + "; valid: " + String.join(", ", names));
        }
        return model;
    }

    /**
     * The virtual-thread scheduler reads its size once, when the first virtual thread starts, so
     * it is set before any work; its carriers then live as long as the JVM. Its maximum is the
     * same: by default it adds carriers (up to 256) while a virtual thread is blocked in file I/O
     * or class loading, and such a carrier, started in some repetition, would be a worker beyond
     * --workers and one the warm start never made.
     */
    private static void sizeSharedPools(int workers) {
        System.setProperty("jdk.virtualThreadScheduler.parallelism", String.valueOf(workers));
        System.setProperty("jdk.virtualThreadScheduler.maxPoolSize", String.valueOf(workers));
    }

    /** An OutOfMemoryError (heap, or "unable to create native thread") anywhere in the cause chain. */
    private static Throwable resourceLimit(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof OutOfMemoryError) {
                return t;
            }
        }
        return null;
    }

    private static String workloadNames() {
        return String.join(", ", WORKLOADS.stream().map(Workload::name).toList());
    }

    private static Map<String, Object> describe() {
        Map<String, Object> list = new LinkedHashMap<>();
        list.put("runtime", "java");
        list.put("version", "java " + Runtime.version() + " (" + System.getProperty("java.vm.name") + ", "
                + System.getProperty("java.vendor") + ")");
        list.put("flags", "JVM flags: " + Protocol.jvmFlags() + "; defaults: " + Protocol.jvmDefaults()
                + "; virtual-thread models set -Djdk.virtualThreadScheduler.parallelism=workers and "
                + "-Djdk.virtualThreadScheduler.maxPoolSize=workers; other models make pools of exactly workers "
                + "threads (in every repetition when cold, once before the ready line when warm)");
        list.put("sources", Map.of("strong", Keygen.strongSourceName()));
        Map<String, Object> workloads = new LinkedHashMap<>();
        for (Workload workload : WORKLOADS) {
            Map<String, Object> models = new LinkedHashMap<>();
            SequencedMap<String, Protocol.ModelInfo> offered = workload.models();
            offered.forEach((name, info) -> {
                Map<String, Object> entry = new LinkedHashMap<>();
                entry.put("family", info.family());
                if (info.takesWorkers()) {
                    entry.put("workers", true);
                }
                if (info.note() != null && !info.note().isEmpty()) {
                    entry.put("note", info.note());
                }
                if (!info.detail().isEmpty()) {
                    entry.put("detail", info.detail());
                }
                if (!info.starts().offered().isEmpty()) {
                    entry.put("start", info.starts().offered());
                }
                if (!info.starts().unavailable().isEmpty()) {
                    entry.put("start_unavailable", info.starts().unavailable());
                }
                models.put(name, entry);
            });
            Map<String, Object> offer = new LinkedHashMap<>();
            offer.put("params", workload.params());
            offer.put("models", models);
            if (!workload.kernels().isEmpty()) {
                offer.put("kernels", workload.kernels());
            }
            workloads.put(workload.name(), offer);
        }
        list.put("workloads", workloads);
        return list;
    }
}
