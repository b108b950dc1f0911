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
import parbench.Chunking;
import parbench.Protocol;
import parbench.Workers;
import parbench.Workload;

/** sdes-ecb: every byte of a file encrypted on its own with S-DES under a 10-bit key. */
public final class SdesEcb implements Workload {
    private static final int[] P10 = {3, 5, 2, 7, 4, 10, 1, 9, 8, 6};
    private static final int[] P8 = {6, 3, 7, 4, 8, 5, 10, 9};
    static final int[] IP = {2, 6, 3, 1, 4, 8, 5, 7};
    static final int[] IP_INVERSE = {4, 1, 3, 5, 7, 2, 8, 6};
    static final int[] EXPAND_PERMUTE = {4, 1, 2, 3, 2, 3, 4, 1};
    static final int[] P4 = {2, 4, 3, 1};
    static final int[][] S0 = {{1, 0, 3, 2}, {3, 2, 1, 0}, {0, 2, 1, 3}, {3, 1, 3, 2}};
    static final int[][] S1 = {{0, 1, 2, 3}, {2, 0, 1, 3}, {3, 0, 1, 0}, {2, 1, 0, 3}};

    @Override
    public String name() {
        return "sdes-ecb";
    }

    @Override
    public List<String> params() {
        return List.of("input", "key", "cipher", "chunk");
    }

    /** The portable kernel per cipher: the spec's algorithm in plain Java, whatever C2 makes of it. */
    static String portableDetail(String kind) {
        return kind.equals("table")
                ? "256-byte table of the key, one lookup per byte (scalar loop)"
                : "scalar per-byte permutations and both Feistel rounds (table-driven permute, as the spec reads)";
    }

    /** The tuned kernel per cipher: explicit SIMD through the Vector API (jdk.incubator.vector). */
    static String tunedDetail(String kind) {
        return SdesVectors.describe(kind) + "; scalar tails";
    }

    @Override
    public SequencedMap<String, String> kernels() {
        SequencedMap<String, String> kernels = new LinkedHashMap<>();
        kernels.put("portable", "bitwise: " + portableDetail("bitwise") + "; table: " + portableDetail("table"));
        if (vectorsAvailable()) {
            kernels.put("tuned", "bitwise: " + tunedDetail("bitwise") + "; table: " + tunedDetail("table"));
        }
        return kernels;
    }

    @Override
    public SequencedMap<String, Protocol.ModelInfo> models() {
        SequencedMap<String, Protocol.ModelInfo> models = new LinkedHashMap<>();
        models.put("seq", new Protocol.ModelInfo("seq", false, "one loop over the whole buffer"));
        models.put("parallel-stream", new Protocol.ModelInfo("data-parallel", true,
                "IntStream over chunk indices .parallel() inside a ForkJoinPool(workers) made, shut down and "
                        + "joined in every repetition"));
        models.put("threads", new Protocol.ModelInfo("threads", true,
                "Executors.newFixedThreadPool(workers) made, shut down and joined in every repetition, one task "
                        + "per chunk"));
        return models;
    }

    /** Bits of `value` (width bits, bit 1 = most significant) picked in `table`'s order. */
    static int permute(int value, int width, int[] table) {
        int out = 0;
        for (int position : table) {
            out = out << 1 | (value >>> (width - position)) & 1;
        }
        return out;
    }

    private static int rotateLeft5(int half, int by) {
        return (half << by | half >>> (5 - by)) & 0x1f;
    }

    /** K1 and K2 of a 10-bit key, as {K1, K2}. */
    static int[] subkeys(int key) {
        int permuted = permute(key, 10, P10);
        int left = rotateLeft5(permuted >>> 5, 1);
        int right = rotateLeft5(permuted & 0x1f, 1);
        int k1 = permute(left << 5 | right, 10, P8);
        left = rotateLeft5(left, 2);
        right = rotateLeft5(right, 2);
        int k2 = permute(left << 5 | right, 10, P8);
        return new int[] {k1, k2};
    }

    private static int feistel(int block, int subkey) {
        int left = block >>> 4;
        int right = block & 0xf;
        int mixed = permute(right, 4, EXPAND_PERMUTE) ^ subkey;
        int l4 = mixed >>> 4;
        int r4 = mixed & 0xf;
        int s0 = S0[(l4 >>> 2 & 2) | (l4 & 1)][l4 >>> 1 & 3];
        int s1 = S1[(r4 >>> 2 & 2) | (r4 & 1)][r4 >>> 1 & 3];
        return (left ^ permute(s0 << 2 | s1, 4, P4)) << 4 | right;
    }

    /** The full cipher on one byte: IP, f_K1, swap, f_K2, IP⁻¹. */
    static int encryptByte(int plain, int k1, int k2) {
        int block = feistel(permute(plain, 8, IP), k1);
        block = (block & 0xf) << 4 | block >>> 4;
        return permute(feistel(block, k2), 8, IP_INVERSE);
    }

    static byte[] table(int key) {
        int[] keys = subkeys(key);
        byte[] table = new byte[256];
        for (int b = 0; b < 256; b++) {
            table[b] = (byte) encryptByte(b, keys[0], keys[1]);
        }
        return table;
    }

    /** Encrypts plain[from, to) into cipher[from, to); each model calls it on its own ranges. */
    interface RangeCipher {
        void encrypt(byte[] plain, byte[] cipher, int from, int to);
    }

    /**
     * The Vector API is an incubator module: present only when the JVM was started with
     * --add-modules jdk.incubator.vector (impls/java/run does), and only then is SdesVectors loaded.
     */
    static boolean vectorsAvailable() {
        return ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent() && SdesVectors.worthUsing();
    }

    /**
     * The cipher of `key` (its key schedule done here, inside the timed region): the portable
     * scalar loops, or with `vectors` the tuned Vector API form.
     */
    static RangeCipher cipherOf(String kind, int key, boolean vectors) {
        if (kind.equals("table")) {
            byte[] table = table(key);
            if (vectors) {
                var pieces = SdesVectors.pieces(table);
                return (plain, cipher, from, to) -> SdesVectors.lookup(table, pieces, plain, cipher, from, to);
            }
            return (plain, cipher, from, to) -> {
                for (int i = from; i < to; i++) {
                    cipher[i] = table[plain[i] & 0xff];
                }
            };
        }
        int[] keys = subkeys(key);
        int k1 = keys[0];
        int k2 = keys[1];
        RangeCipher scalar = (plain, cipher, from, to) -> {
            for (int i = from; i < to; i++) {
                cipher[i] = (byte) encryptByte(plain[i] & 0xff, k1, k2);
            }
        };
        if (vectors) {
            return (plain, cipher, from, to) -> SdesVectors.encryptBitwise(k1, k2, plain, cipher, from, to, scalar);
        }
        return scalar;
    }

    /** The model's way of running chunks; each pass starts and ends its own workers. */
    static Workers.ChunkRunner runnerOf(String model, int workers) {
        return switch (model) {
            case "seq" -> Workers.sequential();
            case "parallel-stream" -> Workers.parallelStream(workers);
            case "threads" -> Workers.fixedThreadPool(workers);
            default -> throw new IllegalStateException(model);
        };
    }

    /**
     * The timed work: the key schedule, then every chunk of `plain` encrypted into the same
     * chunk of `out` by the model's workers, started and ended within the call.
     */
    static Workers.Log encrypt(Workers.ChunkRunner runner, String kind, int key, boolean vectors, byte[] plain,
            byte[] out, Chunking.Plan plan) throws Exception {
        RangeCipher cipher = cipherOf(kind, key, vectors);
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
    public PreparedCase prepare(String model, Protocol.Args args, int workers) throws Exception {
        Path input = Path.of(args.string("input"));
        long key = checkKey(args.number("key"));
        String kind = args.choice("cipher", null, List.of("bitwise", "table"));
        String kernel = args.choice("kernel", "portable", List.copyOf(kernels().keySet()));
        boolean vectors = kernel.equals("tuned");
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
        Workers.ChunkRunner runner = runnerOf(model, workers);
        // Allocated and every page written once, here: the output's page faults stay off the clock.
        byte[] out = new byte[plain.length];
        Arrays.fill(out, (byte) 1);

        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("load_ns", loadNs);
        extra.put("kernel", kernel);
        extra.put("kernel_detail", vectors ? tunedDetail(kind) : portableDetail(kind));
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
                Workers.Log log = encrypt(runner, kind, repKey, vectors, plain, out, plan);
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
