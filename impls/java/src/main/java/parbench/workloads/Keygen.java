package parbench.workloads;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import javax.crypto.Cipher;
import javax.crypto.ShortBufferException;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import parbench.Chunking;
import parbench.Digest;
import parbench.Protocol;
import parbench.Workers;
import parbench.Workload;

/**
 * keygen: `count` random keys of `bytes` bytes, each encoded as lower-case RFC 4648 Base32.
 * Both kernels and both sources run one code path (per-worker generator, scratch buffers, one
 * String per key in one array); they differ only in where key bytes come from and in the encoder.
 */
public final class Keygen implements Workload {
    /**
     * The algorithm `new SecureRandom()` picks on this JDK and OS (NativePRNG on Linux's
     * defaults), looked up on first use only, so that other workloads' start-up never makes one.
     */
    static String defaultSecureRandom() {
        return DefaultSecureRandom.ALGORITHM;
    }

    private static final class DefaultSecureRandom {
        static final String ALGORITHM = new SecureRandom().getAlgorithm();
    }

    /** The portable kernel: the JDK's default CSPRNG as anyone would call it, and Base32 in plain code. */
    static String portableDetail() {
        return "reference, transliterated: new SecureRandom() (" + defaultSecureRandom() + "), nextBytes";
    }

    /** What --list's `sources.strong` says. */
    public static String strongSourceName() {
        return "portable: new SecureRandom() (" + defaultSecureRandom() + "), one per worker; tuned: SecureRandom.getInstance(\"DRBG\") (Hash_DRBG SHA-256, "
                + "seeded from the OS via the JDK SeedGenerator) one per worker (per virtual thread in "
                + "virtual-threads), made inside the timed pass, or with --rng aes-ctr an AES-256/CTR keystream "
                + "per worker (javax.crypto) keyed from that DRBG";
    }

    @Override
    public String name() {
        return "keygen";
    }

    @Override
    public List<String> params() {
        return List.of("count", "bytes", "source", "seed", "chunk", "rng", "probes");
    }

    /** The tuned kernel's encoder: the Vector API where this JVM's vectors are wide enough, else the pair table. */
    static String tunedEncoderDetail() {
        return vectorsAvailable()
                ? Base32Vectors.describe() + "; tail: 10-bit pair table, one long store per group"
                : "10-bit pair table, one long store per group (Vector API absent or narrower than 256 bits)";
    }

    /** The tuned kernel: a named generator of >= 128-bit security, and the engineered encoder. */
    static String tunedDetail(String rng) {
        return describe(rng) + "; Base32: " + tunedEncoderDetail();
    }

    @Override
    public SequencedMap<String, String> kernels() {
        SequencedMap<String, String> kernels = new LinkedHashMap<>();
        kernels.put("portable", portableDetail());
        kernels.put("tuned", tunedDetail("drbg") + " (--rng aes-ctr: AES-256/CTR keystream per worker)");
        return kernels;
    }

    @Override
    public SequencedMap<String, Protocol.ModelInfo> models() {
        SequencedMap<String, Protocol.ModelInfo> models = new LinkedHashMap<>();
        models.put("seq", new Protocol.ModelInfo("seq", false, "a plain loop, one generator of the kernel's kind"));
        models.put("parallel-stream", new Protocol.ModelInfo("data-parallel", true,
                "IntStream over chunk indices .parallel() inside a ForkJoinPool of exactly workers threads "
                        + "(pool.submit(...).get()); one generator (the kernel's) per pool thread per repetition",
                Workers.PARALLEL_STREAM_STARTS));
        models.put("virtual-threads", new Protocol.ModelInfo("green", true,
                "one virtual thread per chunk (joined) on the JVM's workers carrier threads, which live as long "
                        + "as the JVM; one generator (the kernel's) per virtual thread; --chunk 1 is one virtual "
                        + "thread per key", Workers.virtualThreadStarts("chunk")));
        return models;
    }

    /**
     * Every 10-bit value as its two Base32 characters, the first in the low byte: four lookups
     * make the eight characters of a 5-byte group, stored as one little-endian long.
     */
    private static final int[] PAIRS = new int[1024];

    static {
        for (int bits = 0; bits < 1024; bits++) {
            PAIRS[bits] = Base32Plain.ALPHABET[bits >>> 5] & 0xff | (Base32Plain.ALPHABET[bits & 31] & 0xff) << 8;
        }
    }

    private static final VarHandle LONG_BIG_ENDIAN =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG_LITTLE_ENDIAN =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** The eight characters of a 40-bit group, first character in the low byte. */
    private static long eightCharacters(long group) {
        return PAIRS[(int) (group >>> 30) & 1023]
                | (long) PAIRS[(int) (group >>> 20) & 1023] << 16
                | (long) PAIRS[(int) (group >>> 10) & 1023] << 32
                | (long) PAIRS[(int) group & 1023] << 48;
    }

    /**
     * The Vector API is an incubator module: present only when the JVM was started with
     * --add-modules jdk.incubator.vector (impls/java/run does), and only then is Base32Vectors loaded.
     */
    static boolean vectorsAvailable() {
        return ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent() && Base32Vectors.worthUsing();
    }

    /**
     * The tuned encoder: RFC 4648 Base32, lower case, padded, into `out` from 0; whole vectors
     * of groups first where `vectors`, the rest four lookups in a 1024-entry table of character
     * pairs and one long store per 5-byte group.
     */
    static void base32LowerInto(byte[] data, byte[] out, boolean vectors) {
        int offset = vectors ? Base32Vectors.encodeWholeGroups(data, out) : 0;
        int written = offset / 5 * 8;
        // Whole groups read as one big-endian long (its top 40 bits) while 8 bytes remain readable.
        for (; offset + 8 <= data.length; offset += 5, written += 8) {
            LONG_LITTLE_ENDIAN.set(out, written, eightCharacters((long) LONG_BIG_ENDIAN.get(data, offset) >>> 24));
        }
        for (; offset + 5 <= data.length; offset += 5, written += 8) {
            LONG_LITTLE_ENDIAN.set(out, written, eightCharacters(group(data, offset, 5)));
        }
        int rest = data.length - offset;
        if (rest > 0) {
            long characters = eightCharacters(group(data, offset, rest));
            int significant = (rest * 8 + 4) / 5; // characters that carry bits; the rest is padding
            for (int k = 0; k < 8; k++) {
                out[written + k] = k < significant ? (byte) (characters >>> (8 * k)) : (byte) '=';
            }
        }
    }

    /** Up to 5 bytes from `offset` as a 40-bit big-endian group, zero-filled on the right. */
    private static long group(byte[] data, int offset, int length) {
        long group = 0;
        for (int k = 0; k < 5; k++) {
            group = group << 8 | (k < length ? data[offset + k] & 0xff : 0);
        }
        return group;
    }

    /** Base32 of `data` with the portable encoder. */
    public static String base32Lower(byte[] data) {
        return Base32Plain.encode(data);
    }

    /** Base32 of `data` with the tuned encoder (the Vector API where `vectors`, else the pair table). */
    static String base32Tuned(byte[] data, boolean vectors) {
        byte[] out = new byte[Base32Plain.encodedLength(data.length)];
        base32LowerInto(data, out, vectors);
        return new String(out, StandardCharsets.ISO_8859_1);
    }

    /**
     * Where key bytes come from: key i's SplitMix64 bytes (seeded), or a strong generator, the
     * kernel's own (portable: the default SecureRandom; tuned: the DRBG or the AES-CTR keystream).
     */
    record KeySource(String kind, String kernel, String rng, long seed) {
        static KeySource seeded(String kernel, long seed) {
            return new KeySource("seeded", kernel, "", seed);
        }

        static KeySource strong(String kernel, String rng) {
            return new KeySource("strong", kernel, rng, 0);
        }

        boolean isStrong() {
            return kind.equals("strong");
        }

        boolean tuned() {
            return kernel.equals("tuned");
        }

        /** The same source with a repetition's seed (a variant replaces the seed; strong ignores it). */
        KeySource withSeed(long newSeed) {
            return isStrong() ? this : new KeySource(kind, kernel, rng, newSeed);
        }

        /** A worker's own generator, made (and for strong ones seeded from the OS) where it is called. */
        KeyBytes open(int keyBytes) {
            if (!isStrong()) {
                return (index, key) -> Digest.splitMix64BytesInto(seed, index, key);
            }
            if (!tuned()) {
                SecureRandom random = new SecureRandom();
                return (index, key) -> random.nextBytes(key);
            }
            if (rng.equals("aes-ctr")) {
                return new AesCtrKeystream(keyBytes);
            }
            SecureRandom random = newStrongRandom();
            return (index, key) -> random.nextBytes(key);
        }
    }

    /** Fills key `index`'s bytes. */
    @FunctionalInterface
    interface KeyBytes {
        void fill(int index, byte[] key);
    }

    /**
     * AES-256 in counter mode over zeros, with javax.crypto's AES-NI / AVX-512 counter-mode
     * code: a keystream generator keyed and started (key and initial counter) from a DRBG made on
     * the worker, the way Rust's StdRng is a ChaCha keystream seeded from the OS. The JDK's own
     * CTR_DRBG re-expands the AES key for every 16-byte block, which is why it is not used here.
     */
    static final class AesCtrKeystream implements KeyBytes {
        private final Cipher cipher;
        private final byte[] zeros;

        AesCtrKeystream(int keyBytes) {
            SecureRandom seeder = newStrongRandom();
            byte[] key = new byte[32];
            byte[] counter = new byte[16];
            seeder.nextBytes(key);
            seeder.nextBytes(counter);
            try {
                cipher = Cipher.getInstance("AES/CTR/NoPadding");
                cipher.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new IvParameterSpec(counter));
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("this JDK has no AES/CTR/NoPadding", e);
            }
            zeros = new byte[keyBytes];
        }

        @Override
        public void fill(int index, byte[] key) {
            try {
                cipher.update(zeros, 0, zeros.length, key, 0);
            } catch (ShortBufferException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** What --list and extra.strong_source say the strong generator is. */
    static String describe(String rng) {
        return rng.equals("aes-ctr")
                ? "AES-256/CTR keystream (javax.crypto Cipher \"AES/CTR/NoPadding\"), key and counter from "
                        + "SecureRandom.getInstance(\"DRBG\"), one per worker"
                : "SecureRandom.getInstance(\"DRBG\") " + newStrongRandom() + ", one per worker";
    }

    /**
     * One worker's tools, made on the worker when it takes its first chunk: its own generator
     * (seeded from the OS there, inside the timed pass) and scratch buffers for one key's bytes
     * and one key's encoding, reused for every key it makes.
     */
    static final class KeyMaker {
        private final KeyBytes source;
        private final boolean tuned;
        private final boolean vectors;
        final byte[] key;
        final byte[] encoded;

        KeyMaker(KeySource source, int keyBytes) {
            this.source = source.open(keyBytes);
            this.tuned = source.tuned();
            this.vectors = tuned && vectorsAvailable();
            this.key = new byte[keyBytes];
            this.encoded = new byte[Base32Plain.encodedLength(keyBytes)];
        }

        /** Key `index`'s bytes into `key`. */
        void randomBytes(int index) {
            source.fill(index, key);
        }

        /** Key `index` as the String the caller keeps: one Latin-1 copy of the scratch encoding. */
        String make(int index) {
            randomBytes(index);
            encode();
            return new String(encoded, StandardCharsets.ISO_8859_1);
        }

        /** `key` into `encoded`, with the kernel's encoder. */
        void encode() {
            if (tuned) {
                base32LowerInto(key, encoded, vectors);
            } else {
                Base32Plain.encodeInto(key, encoded);
            }
        }
    }

    /** The model's way of running chunks, with the team's workers (made per pass when cold). */
    static Workers.ChunkRunner runnerOf(String model, Workers.Team team) {
        return switch (model) {
            case "seq" -> Workers.sequential();
            case "parallel-stream" -> team.parallelStream();
            case "virtual-threads" -> team.virtualThreadPerChunk();
            default -> throw new IllegalStateException(model);
        };
    }

    /** The keys the caller holds and who made them. */
    record Generated(String[] keys, Workers.Log log) {}

    /** The timed work: every key made by the model's workers into one array the caller holds. */
    static Generated generate(Workers.ChunkRunner runner, Chunking.Plan plan, int keyBytes, KeySource source)
            throws Exception {
        String[] keys = new String[plan.total()];
        ThreadLocal<KeyMaker> makers = ThreadLocal.withInitial(() -> new KeyMaker(source, keyBytes));
        Workers.Log log = runner.run(plan.chunks(), c -> {
            KeyMaker maker = makers.get();
            for (int i = plan.from(c); i < plan.to(c); i++) {
                keys[i] = maker.make(i);
            }
        });
        return new Generated(keys, log);
    }

    /** Ceiling part (a): the CSPRNG alone, with the same workers and chunks, nothing kept. */
    static void csprngOnly(Workers.ChunkRunner runner, Chunking.Plan plan, int keyBytes, KeySource source)
            throws Exception {
        ThreadLocal<KeyMaker> makers = ThreadLocal.withInitial(() -> new KeyMaker(source, keyBytes));
        runner.run(plan.chunks(), c -> {
            KeyMaker maker = makers.get();
            for (int i = plan.from(c); i < plan.to(c); i++) {
                maker.randomBytes(i);
            }
        });
    }

    /** Ceiling part (b): the Base32 encoder alone on a fixed key, with the same workers and chunks, nothing kept. */
    static void base32Only(Workers.ChunkRunner runner, Chunking.Plan plan, int keyBytes, String kernel)
            throws Exception {
        ThreadLocal<KeyMaker> makers =
                ThreadLocal.withInitial(() -> new KeyMaker(KeySource.seeded(kernel, 0), keyBytes));
        runner.run(plan.chunks(), c -> {
            KeyMaker maker = makers.get();
            for (int i = plan.from(c); i < plan.to(c); i++) {
                maker.encode();
            }
        });
    }

    @Override
    public PreparedCase prepare(String model, Protocol.Args args, Workers.Team team) {
        int workers = team.size();
        int count = args.count("count", 0);
        int keyBytes = args.count("bytes", 0);
        String kind = args.choice("source", null, List.of("strong", "seeded"));
        String kernel = args.choice("kernel", "portable", List.copyOf(kernels().keySet()));
        if (args.has("rng") && !kernel.equals("tuned")) {
            throw new Protocol.BadArguments("--rng picks the tuned kernel's generator; it needs --kernel tuned");
        }
        String rng = args.choice("rng", "drbg", List.of("drbg", "aes-ctr"));
        KeySource base = kind.equals("strong")
                ? KeySource.strong(kernel, rng)
                : KeySource.seeded(kernel, args.unsigned64("seed", 0));
        int[] probes = Protocol.integerList(args, "probes", 0, count - 1L);
        boolean parallel = !model.equals("seq");
        int chunk = parallel
                ? args.count("chunk", Chunking.defaultChunk(count, workers, Chunking.KEYS_CAP), 1)
                : Math.max(1, count);
        Chunking.Plan plan = new Chunking.Plan(count, chunk);
        Workers.ChunkRunner runner = runnerOf(model, team);

        Map<String, Object> extra = new LinkedHashMap<>();
        if (parallel) {
            extra.put("workers", workers);
            extra.put("chunk", chunk);
            extra.put("chunks", plan.chunks());
        }
        extra.put("kernel", kernel);
        extra.put("kernel_detail", kernel.equals("tuned") ? tunedDetail(rng) : portableDetail());
        if (base.isStrong()) {
            extra.put("strong_source", kernel.equals("tuned") ? describe(rng)
                    : "new SecureRandom() (" + defaultSecureRandom() + "), one per worker");
        }
        return new PreparedCase() {
            @Override
            public Protocol.Repetition run(Protocol.Rep rep) throws Exception {
                KeySource source = base.withSeed(rep.variant(base.seed()));
                rep.start();
                Generated generated = generate(runner, plan, keyBytes, source);
                long ns = rep.stop();
                String checksum = checksum(generated.keys());
                List<String> probed = new ArrayList<>(probes.length);
                for (int index : probes) {
                    probed.add(generated.keys()[index]);
                }
                Map<String, Object> figures = new LinkedHashMap<>();
                if (parallel) {
                    figures.put("workers_used", generated.log().workersUsed());
                    figures.put("busy", generated.log().busy(rep.origin()));
                }
                rep.checksummed();

                long csprngStart = System.nanoTime();
                csprngOnly(runner, plan, keyBytes, source);
                long csprngNs = System.nanoTime() - csprngStart;
                long base32Start = System.nanoTime();
                base32Only(runner, plan, keyBytes, kernel);
                long base32Ns = System.nanoTime() - base32Start;
                rep.cleanup();

                if (!source.isStrong()) {
                    // A seed may use all 64 bits, beyond a JSON line's int64: written as its decimal.
                    figures.put("seed", Long.toUnsignedString(source.seed()));
                }
                figures.put("probes", probed);
                figures.put("ceiling", "csprng+base32");
                figures.put("ceiling_ns", csprngNs + base32Ns);
                figures.put("csprng_ns", csprngNs);
                figures.put("base32_ns", base32Ns);
                return new Protocol.Repetition(ns, generated.keys().length, checksum, figures);
            }

            @Override
            public Map<String, Object> extra() {
                return extra;
            }
        };
    }

    /** The order-free digest of the encoded keys, for both sources (protocol 2). */
    static String checksum(String[] keys) {
        long sum = 0;
        for (String key : keys) {
            sum += Digest.fnv1a64(key);
        }
        return Digest.digestHex(sum);
    }

    static SecureRandom newStrongRandom() {
        try {
            return SecureRandom.getInstance("DRBG");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JDK has no DRBG SecureRandom", e);
        }
    }
}
