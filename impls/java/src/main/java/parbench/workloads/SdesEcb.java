package parbench.workloads;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.stream.Collectors;
import parbench.Chunking;
import parbench.Protocol;
import parbench.Workers;
import parbench.Workload;

/** sdes-ecb: every byte of a file encrypted on its own with S-DES under a 10-bit key. */
public final class SdesEcb implements Workload {
    @Override
    public String name() {
        return "sdes-ecb";
    }

    @Override
    public List<String> params() {
        return List.of("input", "key", "cipher", "chunk");
    }

    /** The portable kernel of both ciphers: SdesReference, the spec's reference procedure as written. */
    static final String PORTABLE_DETAIL = "reference, transliterated";

    /** What `tuned` runs on this JVM and CPU, per cipher, with the fallbacks it skipped (--list). */
    static String tunedListing(String kind) {
        SdesTechniques.Technique best = SdesTechniques.choose(kind, null, SdesTechniques.Machine.current());
        return kind + ": " + SdesTechniques.describe(kind, best) + " (in order of preference: "
                + SdesTechniques.preference(kind).stream().map(t -> t.label).collect(Collectors.joining(", "))
                + "; " + SdesTechniques.ENVIRONMENT_VARIABLE + " picks one)";
    }

    @Override
    public SequencedMap<String, String> kernels() {
        SequencedMap<String, String> kernels = new LinkedHashMap<>();
        kernels.put("portable", PORTABLE_DETAIL);
        kernels.put("tuned", tunedListing("bitwise") + "; " + tunedListing("table")
                + ". The Vector API has no GF2P8AFFINEQB: each bit permutation is two nibble-table selectFroms");
        return kernels;
    }

    @Override
    public SequencedMap<String, Protocol.ModelInfo> models() {
        SequencedMap<String, Protocol.ModelInfo> models = new LinkedHashMap<>();
        models.put("seq", new Protocol.ModelInfo("seq", false, "one loop over the whole buffer"));
        models.put("parallel-stream", new Protocol.ModelInfo("data-parallel", true,
                "IntStream over chunk indices .parallel() inside a ForkJoinPool of exactly workers threads "
                        + "(pool.submit(...).get())", Workers.PARALLEL_STREAM_STARTS));
        models.put("threads", new Protocol.ModelInfo("threads", true,
                "a fixed pool of workers threads, one task per chunk (invokeAll)", Workers.THREAD_POOL_STARTS));
        return models;
    }

    /** A key's 256-byte table, as the table cipher derives it (the spec gives key 642's). */
    static byte[] table(int key) {
        int[] keys = SdesReference.subkeys(key);
        return SdesReference.table(keys[0], keys[1]);
    }

    /** Encrypts plain[from, to) into cipher[from, to); each model calls it on its own ranges. */
    interface RangeCipher {
        void encrypt(byte[] plain, byte[] cipher, int from, int to);
    }

    /**
     * The cipher of `key` (its key schedule done here, inside the timed region) by `technique`:
     * null for the portable kernel, else one of the tuned kernel's techniques.
     */
    static RangeCipher cipherOf(String kind, int key, SdesTechniques.Technique technique) {
        int[] keys = SdesReference.subkeys(key);
        int k1 = keys[0];
        int k2 = keys[1];
        if (kind.equals("table")) {
            byte[] table = SdesReference.table(k1, k2);
            if (technique == SdesTechniques.Technique.VECTOR_SELECT_FROM) {
                var pieces = SdesVectors.pieces(table);
                return (plain, cipher, from, to) -> SdesVectors.lookup(table, pieces, plain, cipher, from, to);
            }
            return (plain, cipher, from, to) -> SdesReference.lookUp(table, plain, cipher, from, to);
        }
        RangeCipher reference =
                (plain, cipher, from, to) -> SdesReference.encryptBitwise(k1, k2, plain, cipher, from, to);
        if (technique == SdesTechniques.Technique.VECTOR_NIBBLE_MATRICES) {
            return (plain, cipher, from, to) ->
                    SdesNibbleMatrices.encryptBitwise(k1, k2, plain, cipher, from, to, reference);
        }
        return reference;
    }

    /** The model's way of running chunks, with the team's workers (made per pass when cold). */
    static Workers.ChunkRunner runnerOf(String model, Workers.Team team) {
        return switch (model) {
            case "seq" -> Workers.sequential();
            case "parallel-stream" -> team.parallelStream();
            case "threads" -> team.fixedThreadPool();
            default -> throw new IllegalStateException(model);
        };
    }

    /**
     * The timed work: the key schedule, then every chunk of `plain` encrypted into the same
     * chunk of `out` by the model's workers (cold ones started and ended within the call).
     */
    static Workers.Log encrypt(Workers.ChunkRunner runner, String kind, int key, SdesTechniques.Technique technique,
            byte[] plain, byte[] out, Chunking.Plan plan) throws Exception {
        RangeCipher cipher = cipherOf(kind, key, technique);
        return runner.run(plan.chunks(), c -> cipher.encrypt(plain, out, plan.from(c), plan.to(c)));
    }

    /** The ceiling: the same chunks copied by the same kind of workers, with the JVM's fastest plain copy. */
    static void copy(Workers.ChunkRunner runner, byte[] plain, byte[] out, Chunking.Plan plan) throws Exception {
        runner.run(plan.chunks(), c -> System.arraycopy(plain, plan.from(c), out, plan.from(c),
                plan.to(c) - plan.from(c)));
    }

    static String sha256(byte[] data) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    }

    /** A key (the base --key or a repetition's variant) is 10 bits. */
    static long checkKey(long key) {
        if (key < 0 || key > 1023) {
            throw new Protocol.BadArguments("a key must be a 10-bit key from 0 to 1023, got " + key);
        }
        return key;
    }

    @Override
    public PreparedCase prepare(String model, Protocol.Args args, Workers.Team team) throws Exception {
        int workers = team.size();
        Path input = Path.of(args.string("input"));
        long key = checkKey(args.number("key"));
        String kind = args.choice("cipher", null, List.of("bitwise", "table"));
        String kernel = args.choice("kernel", "portable", List.copyOf(kernels().keySet()));
        // Chosen here, before any repetition: a technique asked for but unavailable is exit 2.
        SdesTechniques.Technique technique = kernel.equals("tuned") ? SdesTechniques.choose(kind) : null;
        // Not Files.isReadable: access(2) asks as the real user without capabilities, and parbench's
        // benchmark user reads a project under a root-only folder by CAP_DAC_READ_SEARCH alone.
        if (!Files.isRegularFile(input)) {
            throw new Protocol.BadArguments("--input " + input + " is not a readable file");
        }
        long loadStart = System.nanoTime();
        byte[] plain = Files.readAllBytes(input);
        long loadNs = System.nanoTime() - loadStart;
        boolean parallel = !model.equals("seq");
        int chunk = parallel
                ? args.count("chunk", Chunking.defaultChunk(plain.length, workers, Chunking.BYTES_CAP), 1)
                : Math.max(1, plain.length);
        Chunking.Plan plan = new Chunking.Plan(plain.length, chunk);
        // Allocated and every page written once, here: the output's page faults stay off the clock.
        byte[] out = new byte[plain.length];
        Arrays.fill(out, (byte) 1);
        Workers.ChunkRunner runner = runnerOf(model, team);

        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("load_ns", loadNs);
        extra.put("kernel", kernel);
        extra.put("kernel_detail", technique != null ? SdesTechniques.describe(kind, technique) : PORTABLE_DETAIL);
        if (parallel) {
            extra.put("workers", workers);
            extra.put("chunk", chunk);
            extra.put("chunks", plan.chunks());
        }
        return new PreparedCase() {
            @Override
            public Protocol.Repetition run(Protocol.Rep rep) throws Exception {
                int repKey = (int) checkKey(rep.variant(key));
                rep.start();
                Workers.Log log = encrypt(runner, kind, repKey, technique, plain, out, plan);
                long ns = rep.stop();
                String checksum = sha256(out);
                Map<String, Object> figures = new LinkedHashMap<>();
                if (parallel) {
                    figures.put("workers_used", log.workersUsed());
                    figures.put("busy", log.busy(rep.origin()));
                }
                rep.checksummed();

                long ceilingStart = System.nanoTime();
                copy(runner, plain, out, plan);
                long ceilingNs = System.nanoTime() - ceilingStart;
                rep.cleanup();

                figures.put("key", repKey);
                figures.put("ceiling", "copy");
                figures.put("ceiling_ns", ceilingNs);
                return new Protocol.Repetition(ns, plain.length, checksum, figures);
            }

            @Override
            public Map<String, Object> extra() {
                return extra;
            }
        };
    }
}
