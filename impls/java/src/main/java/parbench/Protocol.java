package parbench;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

    /** How a model runs: its family, whether it takes --workers, what stands in for what. */
    public record ModelInfo(String family, boolean takesWorkers, String note) {}

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

        /** A count that must be at least `minimum` (sizes, workers, repetitions). */
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
     * The JVM-wide pool size a model with workers runs under, as the -D flag it amounts to:
     * virtual threads run on the JVM's carrier threads. (Pools of the other models are made
     * per repetition with `workers` threads and need no flag.)
     */
    public static Map<String, Object> poolSettings(String family, int workers) {
        Map<String, Object> settings = new LinkedHashMap<>();
        if (family.equals("green")) {
            settings.put("vthread_parallelism", workers);
        }
        return settings;
    }

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
