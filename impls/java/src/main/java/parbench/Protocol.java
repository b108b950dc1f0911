package parbench;

import java.io.BufferedReader;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.Set;

/** The harness protocol's small pieces: command-line arguments, one JSON line per result, exit codes. */
public final class Protocol {
    private Protocol() {}

    public static final int EXIT_BAD_ARGUMENTS = 2;
    public static final int EXIT_LIMIT = 3;

    /** Wrong or missing arguments: exit 2 with one line saying what is valid. */
    public static final class BadArguments extends RuntimeException {
        public BadArguments(String message) {
            super(message);
        }
    }

    /** One timed repetition: what the JSON line reports. */
    public record Repetition(long ns, long items, String checksum, Map<String, Object> extra) {
        public Repetition(long ns, long items, String checksum) {
            this(ns, items, checksum, Map.of());
        }
    }

    /** How a model runs: its family, whether it takes --workers, what stands in for what, its start modes. */
    public record ModelInfo(String family, boolean takesWorkers, String note, Starts starts, String detail) {
        /** A model without start modes (seq): its ready line says "none" and it takes no --start. */
        public ModelInfo(String family, boolean takesWorkers, String note) {
            this(family, takesWorkers, note, Starts.NONE);
        }

        /** A timed workload's model; `detail` is what a server's model runs (--list, its ready line). */
        public ModelInfo(String family, boolean takesWorkers, String note, Starts starts) {
            this(family, takesWorkers, note, starts, "");
        }
    }

    /**
     * Protocol 3's start modes of a model: what each offered mode makes and where (`--list`'s
     * "start"), and why a mode cannot apply ("start_unavailable"). A model offering none runs
     * with the ready line "none".
     */
    public record Starts(SequencedMap<String, String> offered, SequencedMap<String, String> unavailable) {
        public static final Starts NONE = new Starts(new LinkedHashMap<>(), new LinkedHashMap<>());

        public static Starts coldOrWarm(String cold, String warm) {
            return new Starts(modes("cold", cold, "warm", warm), new LinkedHashMap<>());
        }

        public static Starts warmOnly(String warm, String whyNoCold) {
            return new Starts(modes("warm", warm), modes("cold", whyNoCold));
        }

        /** The units are the work itself: nothing of a repetition's could be made before it or kept. */
        public static Starts neither(String whyNoCold, String whyNoWarm) {
            return new Starts(new LinkedHashMap<>(), modes("cold", whyNoCold, "warm", whyNoWarm));
        }

        private static SequencedMap<String, String> modes(String... namesAndTexts) {
            SequencedMap<String, String> modes = new LinkedHashMap<>();
            for (int i = 0; i < namesAndTexts.length; i += 2) {
                modes.put(namesAndTexts[i], namesAndTexts[i + 1]);
            }
            return modes;
        }

        /** Whether `--start` means anything to the model (offered, or refused with a reason). */
        public boolean mentioned() {
            return !offered.isEmpty() || !unavailable.isEmpty();
        }

        /** cold where offered, else the only mode offered, else "none". */
        public String byDefault() {
            return offered.containsKey("cold") ? "cold" : offered.isEmpty() ? "none" : offered.firstEntry().getKey();
        }

        /** The mode `--start` asks for, or the default; a mode the model cannot run is a bad argument, with why. */
        public String choose(Args args, String context) {
            if (!args.has("start")) {
                return byDefault();
            }
            String asked = args.string("start");
            if (offered.containsKey(asked)) {
                return asked;
            }
            String valid = offered.isEmpty() ? "it takes no --start" : "valid: " + String.join(", ", offered.keySet());
            if (unavailable.containsKey(asked)) {
                throw new BadArguments("--start " + asked + " is not offered by " + context + ": "
                        + unavailable.get(asked) + "; " + valid);
            }
            throw new BadArguments("unknown --start '" + asked + "' for " + context + "; " + valid);
        }
    }

    /** The `--name value` pairs after the workload name, read by name with their types checked. */
    public static final class Args {
        private final Map<String, String> values;

        private Args(Map<String, String> values) {
            this.values = values;
        }

        public static Args parse(List<String> words) {
            Map<String, String> values = new HashMap<>();
            for (int i = 0; i < words.size(); i += 2) {
                String flag = words.get(i);
                if (!flag.startsWith("--") || i + 1 >= words.size()) {
                    throw new BadArguments("expected '--name value' pairs, got '" + flag + "'");
                }
                values.put(flag.substring(2), words.get(i + 1));
            }
            return new Args(values);
        }

        public boolean has(String name) {
            return values.containsKey(name);
        }

        public String string(String name) {
            String value = values.get(name);
            if (value == null) {
                throw new BadArguments("missing --" + name);
            }
            return value;
        }

        public String string(String name, String fallback) {
            return values.getOrDefault(name, fallback);
        }

        public String choice(String name, String fallback, List<String> valid) {
            String value = values.getOrDefault(name, fallback);
            if (value == null) {
                throw new BadArguments("missing --" + name + "; valid: " + String.join(", ", valid));
            }
            if (!valid.contains(value)) {
                throw new BadArguments("unknown --" + name + " '" + value + "'; valid: " + String.join(", ", valid));
            }
            return value;
        }

        public long number(String name) {
            return parseNumber(name, string(name));
        }

        public long number(String name, long fallback) {
            return has(name) ? parseNumber(name, values.get(name)) : fallback;
        }

        /** A 64-bit value given as a decimal from 0 to 2^64 - 1 (keygen's --seed), as its 64 bits. */
        public long unsigned64(String name, long fallback) {
            if (!has(name)) {
                return fallback;
            }
            try {
                return parseUnsigned64(values.get(name));
            } catch (NumberFormatException e) {
                throw new BadArguments("--" + name + " must be an integer from 0 to 2^64 - 1, got '" + values.get(name)
                        + "'");
            }
        }

        /** A count that must be at least `minimum` (sizes, workers). */
        public int count(String name, int fallback, int minimum) {
            long value = number(name, fallback);
            if (value < minimum || value > Integer.MAX_VALUE) {
                throw new BadArguments("--" + name + " must be an integer from " + minimum + " to " + Integer.MAX_VALUE
                        + ", got " + value);
            }
            return (int) value;
        }

        public int count(String name, int minimum) {
            if (!has(name)) {
                throw new BadArguments("missing --" + name);
            }
            return count(name, 0, minimum);
        }

        /** Rejects any flag outside `allowed`, so a typo is an error and never a silent default. */
        public void allowOnly(Set<String> allowed, String context) {
            for (String name : values.keySet()) {
                if (!allowed.contains(name)) {
                    throw new BadArguments("unknown parameter --" + name + " for " + context + "; valid: --"
                            + String.join(", --", allowed.stream().sorted().toList()));
                }
            }
        }

        private static long parseNumber(String name, String text) {
            try {
                return text.startsWith("0b") ? Long.parseLong(text.substring(2), 2) : Long.parseLong(text);
            } catch (NumberFormatException e) {
                throw new BadArguments("--" + name + " must be an integer, got '" + text + "'");
            }
        }
    }

    /** The JVM's own flags as the process received them, recorded with every result. */
    public static String jvmFlags() {
        List<String> flags = ManagementFactory.getRuntimeMXBean().getInputArguments();
        return flags.isEmpty() ? "(none)" : String.join(" ", flags);
    }

    /** What the JVM chose by itself (collector, heap ceiling), since no flag pins them. */
    public static String jvmDefaults() {
        String collectors = String.join(" + ", ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(java.lang.management.GarbageCollectorMXBean::getName).toList());
        return collectors + ", max heap " + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MiB, "
                + Runtime.getRuntime().availableProcessors() + " CPUs seen";
    }

    /**
     * The JVM-wide pool size a model with workers runs under, as the -D flags it amounts to:
     * virtual threads run on the JVM's carrier threads, exactly `workers` of them. (Pools of the
     * other models are made with `workers` threads and need no flag.)
     */
    public static Map<String, Object> poolSettings(String family, int workers) {
        Map<String, Object> settings = new LinkedHashMap<>();
        if (family.equals("green")) {
            settings.put("vthread_parallelism", workers);
            settings.put("vthread_max_pool_size", workers);
        }
        return settings;
    }

    /**
     * Repetition j's line, `{"rep": j, ...}`: every repetition prints one (protocol 4: no warm-up
     * lines; which repetitions were warm-ups is the harness's decision, after the fact).
     */
    public static String repetitionLine(int rep, Repetition repetition, Map<String, Object> caseExtra) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("rep", rep);
        line.put("ns", repetition.ns());
        line.put("items", repetition.items());
        line.put("checksum", repetition.checksum());
        Map<String, Object> extra = new LinkedHashMap<>(caseExtra);
        extra.putAll(repetition.extra());
        if (!extra.isEmpty()) {
            line.put("extra", extra);
        }
        return json(line);
    }

    /**
     * Protocol 3's late variant: one line from stdin before repetition `repetition`, a decimal
     * integer from 0 to 2^64 - 1 (keygen's seeds take all 64 bits) used in place of the
     * workload's base value (key, seed, start value, salt), returned as its 64 bits; null at end
     * of file, where the launcher wants no further repetition (protocol 4). Read before the
     * repetition's clock, so never inside `ns`.
     */
    public static Long readVariant(BufferedReader stdin, int repetition) throws IOException {
        String line = stdin.readLine();
        if (line == null) {
            return null;
        }
        try {
            return parseUnsigned64(line.trim());
        } catch (NumberFormatException e) {
            throw new BadArguments("the variant of repetition " + repetition
                    + " must be a decimal integer from 0 to 2^64 - 1 on its own line, got '" + line + "'");
        }
    }

    /**
     * Runs once, before the ready line, the code that runs outside every clock around a
     * repetition: the first call of {@link #parseUnsigned64} loads and links the stream and lambda
     * machinery, which in repetition 0 left 3-9 ms that the launcher saw and no phase held.
     */
    public static void loadTheUntimedPath() {
        parseUnsigned64("0");
    }

    /** Decimal digits only (no sign), at most 2^64 - 1, as the 64 bits of a long. */
    static long parseUnsigned64(String digits) {
        if (digits.isEmpty() || !digits.chars().allMatch(Character::isDigit)) {
            throw new NumberFormatException("not decimal digits: '" + digits + "'");
        }
        return Long.parseUnsignedLong(digits);
    }

    /**
     * The ready line (protocol 3), printed once the arguments are checked and the inputs loaded:
     * the start mode that runs ("cold", "warm", or "none" for a model without one) and, for warm,
     * the time spent making its workers before it.
     */
    public static String readyLine(String start, long startNs, Map<String, Object> extra) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("ready", start);
        if (start.equals("warm")) {
            line.put("start_ns", startNs);
        }
        if (!extra.isEmpty()) {
            line.put("extra", extra);
        }
        return json(line);
    }

    /** A comma-separated list of integers (keygen's --probes), each from `minimum` to `maximum`. */
    public static int[] integerList(Args args, String name, long minimum, long maximum) {
        if (!args.has(name)) {
            return new int[0];
        }
        String[] words = args.string(name).split(",");
        int[] values = new int[words.length];
        for (int i = 0; i < words.length; i++) {
            long value;
            try {
                value = Long.parseLong(words[i].trim());
            } catch (NumberFormatException e) {
                throw new BadArguments("--" + name + " must be integers separated by commas, got '" + words[i] + "'");
            }
            if (value < minimum || value > maximum) {
                throw new BadArguments("--" + name + " values must be from " + minimum + " to " + maximum + ", got "
                        + value);
            }
            values[i] = (int) value;
        }
        return values;
    }

    /**
     * One repetition's clock and the evidence that goes with it (protocol 2). Main makes one per
     * repetition and the workload marks its phases on it; everything between two lines is then
     * either `ns`, a ceiling the workload times itself, or one of the phases reported here:
     * prepare (from the repetition's start to the clock), checksum (from the clock's stop to
     * `checksummed()`) and cleanup (from `cleanup()`, after the ceiling, to the workload's return).
     * CPU time is the process's (every thread: JIT compiler and GC threads included) from just
     * before the clock starts to just after it stops.
     */
    public static final class Rep {
        private final Long variant;
        private final long begin = System.nanoTime();
        private long start;
        private long stop;
        private long checksummed;
        private long cleanupFrom;
        private long[] cpuAtStart;
        private long[] cpuAtStop;

        public Rep(Long variant) {
            this.variant = variant;
        }

        /** The repetition's variant, or the workload's base value when none was given (unit tests). */
        public long variant(long base) {
            return variant == null ? base : variant;
        }

        /** Starts the clock (the process's CPU time is read first, so the read is outside `ns`). */
        public void start() {
            cpuAtStart = Cpu.read();
            start = System.nanoTime();
        }

        /** Stops the clock; returns `ns`. */
        public long stop() {
            stop = System.nanoTime();
            cpuAtStop = Cpu.read();
            checksummed = stop;
            return stop - start;
        }

        /** The clock's origin, for busy intervals read from the same System.nanoTime. */
        public long origin() {
            return start;
        }

        /** The checksum (and whatever else is read off the result, such as probes) is done. */
        public void checksummed() {
            checksummed = System.nanoTime();
        }

        /** From here on the repetition only drops what it made. */
        public void cleanup() {
            cleanupFrom = System.nanoTime();
        }

        /** The fields every line carries, measured when the workload has returned. */
        Map<String, Object> evidence() {
            long end = System.nanoTime();
            Map<String, Object> fields = new LinkedHashMap<>();
            fields.put("cpu_user_ns", Math.max(0, cpuAtStop[0] - cpuAtStart[0]));
            fields.put("cpu_sys_ns", Math.max(0, cpuAtStop[1] - cpuAtStart[1]));
            fields.put("prepare_ns", start - begin);
            fields.put("checksum_ns", checksummed - stop);
            fields.put("cleanup_ns", cleanupFrom == 0 ? 0 : end - cleanupFrom);
            return fields;
        }
    }

    /** Runs one repetition and adds the protocol-2 evidence to its line's extra. */
    public static Repetition runRepetition(RepetitionBody body, Long variant) throws Exception {
        Rep rep = new Rep(variant);
        Repetition repetition = body.run(rep);
        if (rep.cpuAtStop == null) {
            throw new IllegalStateException("the workload never started and stopped its clock");
        }
        Map<String, Object> extra = new LinkedHashMap<>(repetition.extra());
        extra.putAll(rep.evidence());
        return new Repetition(repetition.ns(), repetition.items(), repetition.checksum(), extra);
    }

    /** What a workload's repetition is, seen from the protocol. */
    @FunctionalInterface
    public interface RepetitionBody {
        Repetition run(Rep rep) throws Exception;
    }

    /**
     * The process's user and system CPU time: getrusage(RUSAGE_SELF) through the FFM API (the
     * JDK has no getrusage of its own, and its OperatingSystemMXBean gives only user + system as
     * one sum). Should the call be unavailable, that sum stands in as user time and system is 0.
     */
    public static final class Cpu {
        private Cpu() {}

        private static final MethodHandle GETRUSAGE;
        private static final MemorySegment USAGE;
        /** struct rusage on Linux: ru_utime, ru_stime (struct timeval: tv_sec, tv_usec as longs), 14 longs. */
        private static final long RUSAGE_BYTES = 144;

        static {
            MethodHandle handle = null;
            MemorySegment usage = null;
            try {
                Linker linker = Linker.nativeLinker();
                handle = linker.downcallHandle(linker.defaultLookup().find("getrusage").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
                usage = Arena.global().allocate(RUSAGE_BYTES, 8);
            } catch (Throwable unavailable) {
                handle = null;
            }
            GETRUSAGE = handle;
            USAGE = usage;
        }

        /** What `cpu_user_ns` / `cpu_sys_ns` are read with, for --list and the runtime page. */
        public static String source() {
            return GETRUSAGE != null
                    ? "getrusage(RUSAGE_SELF) via java.lang.foreign, microseconds, every thread of the JVM"
                    : "OperatingSystemMXBean.getProcessCpuTime (user + system as one sum, reported as user)";
        }

        /** {user ns, system ns} of the whole process so far. */
        public static synchronized long[] read() {
            if (GETRUSAGE != null) {
                try {
                    int rc = (int) GETRUSAGE.invokeExact(0, USAGE);
                    if (rc == 0) {
                        return new long[] {timeval(0), timeval(16)};
                    }
                } catch (Throwable failed) {
                    // falls through to the MXBean's sum
                }
            }
            var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            return new long[] {os.getProcessCpuTime(), 0};
        }

        private static long timeval(long offset) {
            return USAGE.get(ValueLayout.JAVA_LONG, offset) * 1_000_000_000L
                    + USAGE.get(ValueLayout.JAVA_LONG, offset + 8) * 1_000L;
        }
    }

    /**
     * Busy intervals (protocol 2's `extra.busy`): each unit of work (a chunk, a document, a link,
     * a task) records the worker it runs on and when it began and ended, each in its own slot (no
     * shared counter on the hot path). After the clock stops, each worker's interval is its
     * first begin to its last end, and workers are numbered 0, 1, ... in the order they began.
     */
    public static final class Busy {
        private final Object[] worker;
        private final long[] began;
        private final long[] ended;

        public Busy(int units) {
            worker = new Object[units];
            began = new long[units];
            ended = new long[units];
        }

        public void begin(int unit, Object on) {
            worker[unit] = on;
            began[unit] = System.nanoTime();
        }

        public void end(int unit) {
            ended[unit] = System.nanoTime();
        }

        /** Distinct workers that began at least one unit. */
        public int workersUsed() {
            Set<Object> distinct = new java.util.HashSet<>();
            for (Object on : worker) {
                if (on != null) {
                    distinct.add(on);
                }
            }
            return distinct.size();
        }

        /** `[[worker, start_ns, end_ns], ...]` relative to `origin`, the repetition's clock start. */
        public List<List<Long>> intervals(long origin) {
            Map<Object, long[]> spans = new HashMap<>();
            for (int u = 0; u < worker.length; u++) {
                if (worker[u] == null) {
                    continue;
                }
                long[] span = spans.computeIfAbsent(worker[u], w -> new long[] {Long.MAX_VALUE, Long.MIN_VALUE});
                span[0] = Math.min(span[0], began[u]);
                span[1] = Math.max(span[1], Math.max(ended[u], began[u]));
            }
            List<long[]> ordered = new ArrayList<>(spans.values());
            ordered.sort(Comparator.comparingLong(span -> span[0]));
            List<List<Long>> out = new ArrayList<>(ordered.size());
            for (int w = 0; w < ordered.size(); w++) {
                long[] span = ordered.get(w);
                out.add(List.of((long) w, Math.max(0, span[0] - origin), Math.max(0, span[1] - origin)));
            }
            return out;
        }
    }

    public static String limitLine(String detail) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("error", "limit");
        line.put("detail", detail);
        return json(line);
    }

    /** Writes maps, lists, strings, numbers and booleans as JSON; enough for every line we print. */
    public static String json(Object value) {
        StringBuilder out = new StringBuilder();
        writeJson(out, value);
        return out.toString();
    }

    private static void writeJson(StringBuilder out, Object value) {
        switch (value) {
            case null -> out.append("null");
            case Number number -> out.append(number);
            case Boolean bool -> out.append(bool);
            case Map<?, ?> map -> {
                out.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> entry : map.entrySet()) {
                    if (!first) {
                        out.append(',');
                    }
                    first = false;
                    writeString(out, entry.getKey().toString());
                    out.append(':');
                    writeJson(out, entry.getValue());
                }
                out.append('}');
            }
            case List<?> list -> {
                out.append('[');
                for (int i = 0; i < list.size(); i++) {
                    if (i > 0) {
                        out.append(',');
                    }
                    writeJson(out, list.get(i));
                }
                out.append(']');
            }
            default -> writeString(out, value.toString());
        }
    }

    private static void writeString(StringBuilder out, String text) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
