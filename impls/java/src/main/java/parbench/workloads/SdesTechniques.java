package parbench.workloads;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import parbench.Protocol;

/**
 * Which technique the tuned sdes-ecb kernel runs, per cipher: the fastest this JVM and CPU can
 * run, checked when a case is prepared, or the one PARBENCH_SDES_TECHNIQUE names (for the tests
 * and for comparing techniques by hand); one asked for but not available is a bad argument
 * (exit 2), never quietly replaced by the next.
 */
final class SdesTechniques {
    private SdesTechniques() {}

    static final String ENVIRONMENT_VARIABLE = "PARBENCH_SDES_TECHNIQUE";

    /**
     * A technique and what it needs. The byte lookups (selectFrom) of the vector techniques compile
     * to one vpermb/vpermi2b per vector only with AVX-512 VBMI when the preferred vectors are 512
     * bits; without VBMI C2 cannot intrinsify a 512-bit byte rearrange and runs it lane by lane in
     * Java, hundreds of times slower. Below 128 bits there is nothing to gain over scalar code.
     */
    enum Technique {
        VECTOR_NIBBLE_MATRICES("vector-nibble-matrices", "bitwise", true),
        VECTOR_SELECT_FROM("vector-select-from", "table", true),
        SCALAR("scalar", null, false);

        final String label;
        /** The cipher it serves, or null for both. */
        final String cipher;
        final boolean vectors;

        Technique(String label, String cipher, boolean vectors) {
            this.label = label;
            this.cipher = cipher;
            this.vectors = vectors;
        }

        boolean serves(String kind) {
            return cipher == null || cipher.equals(kind);
        }
    }

    /** Fastest first: each cipher's order of fallback (measured on a 2-core AMD EPYC with AVX-512; docs/runtimes/java.md). */
    static List<Technique> preference(String kind) {
        return Stream.of(Technique.values()).filter(t -> t.serves(kind)).toList();
    }

    /** What this JVM offers the vector techniques: the preferred vector width and the CPU's flags. */
    record Machine(boolean vectorModule, int vectorBits, Set<String> cpuFlags) {
        static Machine current() {
            boolean module = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();
            return new Machine(module, module ? SdesVectors.SPECIES.vectorBitSize() : 0, readCpuFlags());
        }
    }

    /** Why `technique` cannot run on `machine`, or null when it can. */
    static String unavailableReason(Technique technique, Machine machine) {
        if (!technique.vectors) {
            return null;
        }
        if (!machine.vectorModule()) {
            return "it needs the jdk.incubator.vector module (--add-modules jdk.incubator.vector)";
        }
        if (machine.vectorBits() < 128) {
            return "it needs vectors of at least 128 bits; this JVM prefers " + machine.vectorBits();
        }
        if (machine.vectorBits() >= 512 && !machine.cpuFlags().contains("avx512vbmi")) {
            return "its 512-bit byte lookups need AVX-512 VBMI, which this CPU lacks";
        }
        return null;
    }

    /** The technique a case runs: `requested` (a label, or null for the best available). */
    static Technique choose(String kind, String requested, Machine machine) {
        if (requested == null || requested.isEmpty()) {
            return preference(kind).stream().filter(t -> unavailableReason(t, machine) == null).findFirst()
                    .orElseThrow();
        }
        Technique technique = preference(kind).stream().filter(t -> t.label.equals(requested)).findFirst()
                .orElseThrow(() -> new Protocol.BadArguments(ENVIRONMENT_VARIABLE + "=" + requested
                        + " is not a technique of the " + kind + " cipher; it has "
                        + preference(kind).stream().map(t -> t.label).collect(Collectors.joining(", "))));
        String reason = unavailableReason(technique, machine);
        if (reason != null) {
            throw new Protocol.BadArguments(ENVIRONMENT_VARIABLE + "=" + requested + " cannot run here: " + reason);
        }
        return technique;
    }

    static Technique choose(String kind) {
        return choose(kind, System.getenv(ENVIRONMENT_VARIABLE), Machine.current());
    }

    /** extra.kernel_detail: the technique's label, then how it works. */
    static String describe(String kind, Technique technique) {
        return technique.label + ": " + switch (technique) {
            case VECTOR_NIBBLE_MATRICES -> SdesNibbleMatrices.describe();
            case VECTOR_SELECT_FROM -> SdesVectors.describe();
            case SCALAR -> kind.equals("table")
                    ? "the key's 256-byte table looked up one byte at a time"
                    : "the reference rounds one byte at a time (no vector technique runs here)";
        };
    }

    /** The CPU's feature flags as Linux lists them; none elsewhere (the vector techniques then need narrower vectors). */
    private static Set<String> readCpuFlags() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/cpuinfo"))) {
            return lines.filter(line -> line.startsWith("flags")).findFirst()
                    .map(line -> Set.of(line.substring(line.indexOf(':') + 1).trim().split("\\s+")))
                    .orElse(Set.of());
        } catch (IOException | RuntimeException unreadable) {
            return Set.of();
        }
    }
}
