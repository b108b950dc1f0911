package parbench.workloads;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import parbench.Protocol;
import parbench.Workload;

/** sdes-ecb: every byte of a file encrypted on its own with S-DES under a 10-bit key. */
public final class SdesEcb implements Workload {
    private static final int[] P10 = {3, 5, 2, 7, 4, 10, 1, 9, 8, 6};
    private static final int[] P8 = {6, 3, 7, 4, 8, 5, 10, 9};
    private static final int[] IP = {2, 6, 3, 1, 4, 8, 5, 7};
    private static final int[] IP_INVERSE = {4, 1, 3, 5, 7, 2, 8, 6};
    private static final int[] EXPAND_PERMUTE = {4, 1, 2, 3, 2, 3, 4, 1};
    private static final int[] P4 = {2, 4, 3, 1};
    private static final int[][] S0 = {{1, 0, 3, 2}, {3, 2, 1, 0}, {0, 2, 1, 3}, {3, 1, 3, 2}};
    private static final int[][] S1 = {{0, 1, 2, 3}, {2, 0, 1, 3}, {3, 0, 1, 0}, {2, 1, 0, 3}};

    @Override
    public String name() {
        return "sdes-ecb";
    }

    @Override
    public List<String> params() {
        return List.of("input", "key", "cipher", "chunk");
    }

    @Override
    public SequencedMap<String, Protocol.ModelInfo> models() {
        SequencedMap<String, Protocol.ModelInfo> models = new LinkedHashMap<>();
        models.put("seq", new Protocol.ModelInfo("seq", false, "one loop over the whole buffer"));
        models.put("parallel-stream", new Protocol.ModelInfo("data-parallel", true,
                "IntStream over chunk indices .parallel() on the ForkJoin common pool (parallelism workers-1, "
                        + "plus the calling thread)"));
        models.put("threads", new Protocol.ModelInfo("threads", true,
                "Executors.newFixedThreadPool(workers) platform threads, one task per chunk"));
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

    static RangeCipher cipherOf(String kind, int key) {
        if (kind.equals("table")) {
            byte[] table = table(key);
            return (plain, cipher, from, to) -> {
                for (int i = from; i < to; i++) {
                    cipher[i] = table[plain[i] & 0xff];
                }
            };
        }
        int[] keys = subkeys(key);
        int k1 = keys[0];
        int k2 = keys[1];
        return (plain, cipher, from, to) -> {
            for (int i = from; i < to; i++) {
                cipher[i] = (byte) encryptByte(plain[i] & 0xff, k1, k2);
            }
        };
    }

    /** Chunk size: split small inputs across every worker, large ones into 1 MiB pieces to balance load. */
    static int defaultChunk(int size, int workers) {
        int perWorker = (size + workers - 1) / workers;
        return Math.max(1, Math.min(1 << 20, perWorker));
    }

    /** `pool` is the threads model's fixed pool, made once per case like a long-lived service's. */
    static byte[] encrypt(String model, RangeCipher cipher, byte[] plain, int chunk, ExecutorService pool)
            throws Exception {
        byte[] out = new byte[plain.length];
        int chunks = (plain.length + chunk - 1) / chunk;
        switch (model) {
            case "seq" -> cipher.encrypt(plain, out, 0, plain.length);
            case "parallel-stream" -> IntStream.range(0, chunks).parallel().forEach(c ->
                    cipher.encrypt(plain, out, c * chunk, Math.min(plain.length, (c + 1) * chunk)));
            case "threads" -> {
                List<Future<?>> done = new ArrayList<>(chunks);
                for (int c = 0; c < chunks; c++) {
                    int from = c * chunk;
                    int to = Math.min(plain.length, from + chunk);
                    done.add(pool.submit(() -> cipher.encrypt(plain, out, from, to)));
                }
                for (Future<?> future : done) {
                    future.get();
                }
            }
            default -> throw new IllegalStateException(model);
        }
        return out;
    }

    @Override
    public PreparedCase prepare(String model, Protocol.Args args, int workers) throws Exception {
        Path input = Path.of(args.string("input"));
        long key = args.number("key");
        if (key < 0 || key > 1023) {
            throw new Protocol.BadArguments("--key must be a 10-bit key from 0 to 1023, got " + key);
        }
        String kind = args.choice("cipher", null, List.of("bitwise", "table"));
        if (!Files.isReadable(input)) {
            throw new Protocol.BadArguments("--input " + input + " is not a readable file");
        }
        long loadStart = System.nanoTime();
        byte[] plain = Files.readAllBytes(input);
        long loadNs = System.nanoTime() - loadStart;
        int chunk = args.count("chunk", defaultChunk(plain.length, workers), 1);
        RangeCipher cipher = cipherOf(kind, (int) key);
        ExecutorService pool = model.equals("threads") ? Executors.newFixedThreadPool(workers) : null;

        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("load_ns", loadNs);
        if (!model.equals("seq")) {
            extra.put("workers", workers);
            extra.put("chunk", chunk);
        }
        return new PreparedCase() {
            @Override
            public Protocol.Repetition run() throws Exception {
                long start = System.nanoTime();
                byte[] ciphertext = encrypt(model, cipher, plain, chunk, pool);
                long ns = System.nanoTime() - start;
                String sha256 = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(ciphertext));
                return new Protocol.Repetition(ns, plain.length, sha256);
            }

            @Override
            public Map<String, Object> extra() {
                return extra;
            }
        };
    }
}
