package parbench.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One case run in a JVM of its own, started as impls/java/run starts one but with the given JVM
 * flags (-XX:UseAVX=2 to run the AVX2 paths on an AVX-512 machine): the tuned kernels choose
 * their path once per JVM, from its preferred vectors, so another path needs another JVM.
 */
final class ChildJvm {
    private ChildJvm() {}

    /** The case's last line (one variant on stdin: one repetition, protocol 4); fails on a non-zero exit. */
    static String lastLine(List<String> jvmFlags, String variant, String... caseArguments) throws Exception {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"));
        command.addAll(jvmFlags);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), "parbench.Main"));
        command.addAll(List.of(caseArguments));
        ProcessBuilder builder = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.PIPE);
        builder.environment().remove(SdesTechniques.ENVIRONMENT_VARIABLE);
        Process process = builder.start();
        process.getOutputStream().write((variant + "\n").getBytes(StandardCharsets.US_ASCII));
        process.getOutputStream().close();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "the JVM did not finish");
        assertEquals(0, process.exitValue(), new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
        List<String> lines = out.lines().toList();
        return lines.get(lines.size() - 1);
    }

    /** Whether this CPU has `flag` in /proc/cpuinfo (the AVX2 paths are skipped where it lacks avx2). */
    static boolean cpuHas(String flag) throws IOException {
        Path cpuinfo = Path.of("/proc/cpuinfo");
        if (!Files.exists(cpuinfo)) {
            return false;
        }
        try (Stream<String> lines = Files.lines(cpuinfo)) {
            return lines.filter(line -> line.startsWith("flags")).findFirst()
                    .map(line -> List.of(line.substring(line.indexOf(':') + 1).trim().split("\\s+")).contains(flag))
                    .orElse(false);
        }
    }

    /** The value of a JSON line's string field `name` (the fields here hold no escaped quotes before it ends). */
    static String field(String line, String name) {
        String key = "\"" + name + "\":\"";
        int start = line.indexOf(key);
        assertTrue(start >= 0, name + " missing in " + line);
        start += key.length();
        int end = start;
        while (line.charAt(end) != '"' || line.charAt(end - 1) == '\\') {
            end++;
        }
        return line.substring(start, end);
    }
}
