package parbench.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import parbench.Protocol;
import parbench.workloads.SdesTechniques.Machine;
import parbench.workloads.SdesTechniques.Technique;

/** The tuned sdes-ecb kernel's choice of technique: the best available, a fallback, or exit 2 when forced. */
class SdesTechniquesTest {
    private static final Machine AVX512_VBMI = new Machine(true, 512, Set.of("avx512f", "avx512bw", "avx512vbmi"));
    private static final Machine AVX512_WITHOUT_VBMI = new Machine(true, 512, Set.of("avx512f", "avx512bw"));
    private static final Machine AVX2 = new Machine(true, 256, Set.of("avx2"));
    private static final Machine NO_VECTOR_MODULE = new Machine(false, 0, Set.of("avx512vbmi"));

    @Test
    void eachCipherPrefersItsVectorTechniqueAndFallsBackToScalar() {
        assertEquals(List.of(Technique.VECTOR_NIBBLE_MATRICES, Technique.SCALAR), SdesTechniques.preference("bitwise"));
        assertEquals(List.of(Technique.VECTOR_SELECT_FROM, Technique.SCALAR), SdesTechniques.preference("table"));
    }

    @Test
    void vectorsRunWith512BitVbmiOrNarrowerVectors() {
        for (Machine machine : List.of(AVX512_VBMI, AVX2)) {
            assertEquals(Technique.VECTOR_NIBBLE_MATRICES, SdesTechniques.choose("bitwise", null, machine));
            assertEquals(Technique.VECTOR_SELECT_FROM, SdesTechniques.choose("table", null, machine));
        }
    }

    @Test
    void withoutVbmiOrTheVectorModuleTheScalarFallbackRuns() {
        for (Machine machine : List.of(AVX512_WITHOUT_VBMI, NO_VECTOR_MODULE, new Machine(true, 64, Set.of()))) {
            assertEquals(Technique.SCALAR, SdesTechniques.choose("bitwise", null, machine), machine.toString());
            assertEquals(Technique.SCALAR, SdesTechniques.choose("table", "", machine), machine.toString());
        }
    }

    @Test
    void aForcedTechniqueThatCannotRunIsABadArgumentNamingWhy() {
        Protocol.BadArguments refused = assertThrows(Protocol.BadArguments.class,
                () -> SdesTechniques.choose("bitwise", "vector-nibble-matrices", AVX512_WITHOUT_VBMI));
        assertTrue(refused.getMessage().contains("AVX-512 VBMI"), refused.getMessage());
        assertNotNull(SdesTechniques.unavailableReason(Technique.VECTOR_SELECT_FROM, NO_VECTOR_MODULE));
    }

    @Test
    void aForcedTechniqueOfTheOtherCipherOrAnUnknownNameIsABadArgument() {
        assertThrows(Protocol.BadArguments.class, () -> SdesTechniques.choose("table", "vector-nibble-matrices", AVX512_VBMI));
        assertThrows(Protocol.BadArguments.class, () -> SdesTechniques.choose("bitwise", "gfni", AVX512_VBMI));
        assertEquals(Technique.SCALAR, SdesTechniques.choose("bitwise", "scalar", AVX512_VBMI));
    }

    @Test
    void theNibbleTablesRunOn128BitVectorsWhereTheJvmPrefers256() {
        assertEquals(jdk.incubator.vector.ByteVector.SPECIES_128,
                SdesNibbleMatrices.speciesFor(jdk.incubator.vector.ByteVector.SPECIES_256));
        assertEquals(jdk.incubator.vector.ByteVector.SPECIES_512,
                SdesNibbleMatrices.speciesFor(jdk.incubator.vector.ByteVector.SPECIES_512));
        assertEquals(jdk.incubator.vector.ByteVector.SPECIES_128,
                SdesNibbleMatrices.speciesFor(jdk.incubator.vector.ByteVector.SPECIES_128));
    }

    @Test
    void scalarRunsEverywhere() {
        assertNull(SdesTechniques.unavailableReason(Technique.SCALAR, NO_VECTOR_MODULE));
    }

    @Test
    void kernelDetailNamesTheTechniqueThatRan() {
        assertTrue(SdesTechniques.describe("bitwise", Technique.VECTOR_NIBBLE_MATRICES).startsWith("vector-nibble-matrices: "));
        assertTrue(SdesTechniques.describe("table", Technique.SCALAR).startsWith("scalar: "));
    }

    /** The test JVM's own choice: this is what makes the agreement tests compare vector code, not scalar with itself. */
    @Test
    void thisMachineRunsTheTechniqueItsCpuAllows() {
        Machine machine = Machine.current();
        Technique expected = SdesTechniques.unavailableReason(Technique.VECTOR_NIBBLE_MATRICES, machine) == null
                ? Technique.VECTOR_NIBBLE_MATRICES : Technique.SCALAR;
        assertEquals(expected, SdesTechniques.choose("bitwise", null, machine));
    }

    /** A JVM whose vectors are 8 bytes wide, run as the harness runs one, with the environment variable forcing a technique. */
    private static Process runSdes(Path dir, String technique, String... jvmFlags) throws Exception {
        Path input = Files.write(dir.resolve("plain"), "The quick brown fox jumps over the lazy dog\n".getBytes(StandardCharsets.US_ASCII));
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"));
        command.addAll(List.of(jvmFlags));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), "parbench.Main", "sdes-ecb",
                "--model", "seq", "--input", input.toString(), "--key", "642", "--cipher", "bitwise",
                "--kernel", "tuned"));          // one variant on stdin: one repetition (protocol 4)
        ProcessBuilder builder = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.PIPE);
        if (technique != null) {
            builder.environment().put(SdesTechniques.ENVIRONMENT_VARIABLE, technique);
        } else {
            builder.environment().remove(SdesTechniques.ENVIRONMENT_VARIABLE);
        }
        Process process = builder.start();
        process.getOutputStream().write("642\n".getBytes(StandardCharsets.US_ASCII));
        process.getOutputStream().close();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the JVM did not finish");
        return process;
    }

    @Test
    void withoutWideVectorsTheRuntimeFallsBackAndSaysSo(@TempDir Path dir) throws Exception {
        Process run = runSdes(dir, null, "-XX:MaxVectorSize=8");
        String out = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, run.exitValue(), new String(run.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
        assertTrue(out.contains("\"kernel_detail\":\"scalar: "), out);
        assertTrue(out.contains("914675d0c7b2f71113578ca02139eb35d6432c8e7d5da3684487415877b391cf"), out);
    }

    @Test
    void aForcedVectorTechniqueWithoutWideVectorsExits2(@TempDir Path dir) throws Exception {
        Process run = runSdes(dir, "vector-nibble-matrices", "-XX:MaxVectorSize=8");
        String err = new String(run.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(Protocol.EXIT_BAD_ARGUMENTS, run.exitValue(), err);
        assertTrue(err.contains("PARBENCH_SDES_TECHNIQUE=vector-nibble-matrices cannot run here"), err);
    }

    @Test
    void aForcedTechniqueThatCanRunRunsAndIsNamed(@TempDir Path dir) throws Exception {
        Process run = runSdes(dir, "scalar");
        String out = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, run.exitValue(), new String(run.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
        assertTrue(out.contains("\"kernel_detail\":\"scalar: "), out);
    }

    /**
     * The AVX2 path, what a CPU without AVX-512 (AMD Zen 1-3, Intel client cores) runs: a JVM told
     * -XX:UseAVX=2 prefers 256-bit vectors, and the vector technique must still run (named in
     * kernel_detail) and agree with the portable kernel on random bytes under a random key.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"bitwise", "table"})
    void withAvx2TheVectorTechniqueRunsAt256BitsAndAgreesWithThePortableKernel(String cipher, @TempDir Path dir)
            throws Exception {
        Assumptions.assumeTrue(ChildJvm.cpuHas("avx2"), "this CPU lacks AVX2, which -XX:UseAVX=2 needs");
        Random random = new Random(61);
        byte[] plain = new byte[100_003];
        random.nextBytes(plain);
        Path input = Files.write(dir.resolve("plain"), plain);
        String key = Integer.toString(random.nextInt(1024));
        String[] arguments = {"sdes-ecb", "--model", "seq", "--input", input.toString(), "--key", key, "--cipher", cipher,
                "--kernel"};
        String tuned = ChildJvm.lastLine(List.of("-XX:UseAVX=2"), key, append(arguments, "tuned"));
        String portable = ChildJvm.lastLine(List.of(), key, append(arguments, "portable"));
        String label = cipher.equals("bitwise") ? "vector-nibble-matrices" : "vector-select-from";
        assertTrue(ChildJvm.field(tuned, "kernel_detail").startsWith(label + ": "), tuned);
        // The bitwise kernel's 16-entry lookups run on 128-bit vectors there (SdesNibbleMatrices.speciesFor).
        String lanes = cipher.equals("bitwise") ? "the preferred are 256-bit) (128-bit, 16 byte lanes)" : "(256-bit, 32 byte lanes)";
        assertTrue(ChildJvm.field(tuned, "kernel_detail").contains(lanes), tuned);
        assertEquals(ChildJvm.field(portable, "checksum"), ChildJvm.field(tuned, "checksum"));
    }

    private static String[] append(String[] arguments, String last) {
        String[] all = java.util.Arrays.copyOf(arguments, arguments.length + 1);
        all[arguments.length] = last;
        return all;
    }
}
