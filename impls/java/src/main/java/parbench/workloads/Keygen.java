package parbench.workloads;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
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
        return "portable: new SecureRandom() (" + defaultSecureRandom() + "), one per worker; tuned: " + tunedGenerator()
                + " (per virtual thread in virtual-threads), made inside the timed pass";
    }

    @Override
    public String name() {
        return "keygen";
    }

    @Override
    public List<String> params() {
        return List.of("count", "bytes", "source", "seed", "chunk", "base32-kernel", "probes");
    }

    /**
     * The tuned generator, the one Rust, C++ and Go run: an AES-128-CTR keystream per worker
     * (javax.crypto, whose CTR mode HotSpot compiles to AES-NI code), keyed and started from the
     * OS through the default SecureRandom. The first DRBG a JVM makes costs ~100 ms (the JDK
     * SeedGenerator), NativePRNG ~4 ms, measured here 2026-11-28; the keystream itself is
     * ~0.4 ns a byte against Hash_DRBG's ~4.
     */
    static String tunedGenerator() {
        return "AES-128-CTR keystream (javax.crypto \"AES/CTR/NoPadding\" from " + TunedProviders.CIPHER
                + ", HotSpot's AES-NI counter-mode intrinsic) per worker, key and counter from new SecureRandom() ("
                + defaultSecureRandom() + ")";
    }

    /**
     * The provider javax.crypto hands the tuned generator, looked up once, as the portable kernel's
     * detail looks up new SecureRandom()'s: naming both in the case's detail, before the ready line,
     * loads and registers the JCA providers there (on this VM ~50 ms for SunJCE's, ~100 ms for the
     * SUN provider's SecureRandom when cold), so a repetition pays for making its generators, not
     * for the JDK's first lookup of a provider.
     */
    private static final class TunedProviders {
        static final String CIPHER = cipherProvider();

        private static String cipherProvider() {
            try {
                return Cipher.getInstance("AES/CTR/NoPadding").getProvider().getName();
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("this JDK has no AES/CTR/NoPadding", e);
            }
        }
    }

    /** The tuned encoders, fastest first (measured: see docs/runtimes/java.md). */
    static final String VECTOR = "vector";
    static final String TABLE = "table";

    /** The tuned encoders this JVM runs, fastest first: the Vector API only where it is present and wide enough. */
    static List<String> base32Kernels() {
        return vectorsAvailable() ? List.of(VECTOR, TABLE) : List.of(TABLE);
    }

    /**
     * --base32-kernel among those this JVM runs (default: the first); one it cannot run is a
     * bad argument (exit 2), never a quiet fallback to another.
     */
    static String base32KernelNamed(String asked, List<String> runnable) {
        if (asked == null) {
            return runnable.get(0);
        }
        if (!runnable.contains(asked)) {
            throw new Protocol.BadArguments("--base32-kernel '" + asked + "' is not one this JVM runs; valid here: "
                    + String.join(", ", runnable)
                    + (asked.equals(VECTOR) ? " (the Vector API needs --add-modules jdk.incubator.vector and 256-bit vectors)" : ""));
        }
        return asked;
    }

    /** What the tuned encoder named `base32` is, in words. */
    static String tunedEncoderDetail(String base32) {
        return base32.equals(VECTOR)
                ? Base32Vectors.describe() + "; tail: 10-bit pair table, one long store per group"
                : "10-bit pair table (1,024 character pairs), one long store per 5-byte group";
    }

    /** The tuned kernel: the named generator and the engineered encoder that runs. */
    static String tunedDetail(String base32) {
        return tunedGenerator() + "; Base32: " + tunedEncoderDetail(base32);
    }

    @Override
    public SequencedMap<String, String> kernels() {
        SequencedMap<String, String> kernels = new LinkedHashMap<>();
        kernels.put("portable", portableDetail());
        kernels.put("tuned", tunedDetail(base32Kernels().get(0)) + " (the best this JVM runs; --base32-kernel "
                + VECTOR + "|" + TABLE + " names one, one this JVM lacks is exit 2)");
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
     * kernel's own (portable: the default SecureRandom; tuned: the AES-CTR keystream); `base32`
     * is the tuned kernel's encoder (ignored by portable).
     */
    record KeySource(String kind, String kernel, String base32, long seed) {
        static KeySource seeded(String kernel, long seed) {
            return seeded(kernel, base32Kernels().get(0), seed);
        }

        static KeySource seeded(String kernel, String base32, long seed) {
            return new KeySource("seeded", kernel, base32, seed);
        }

        static KeySource strong(String kernel) {
            return strong(kernel, base32Kernels().get(0));
        }

        static KeySource strong(String kernel, String base32) {
            return new KeySource("strong", kernel, base32, 0);
        }

        boolean isStrong() {
            return kind.equals("strong");
        }

        boolean tuned() {
            return kernel.equals("tuned");
        }

        /** The same source with a repetition's seed (a variant replaces the seed; strong ignores it). */
        KeySource withSeed(long newSeed) {
            return isStrong() ? this : new KeySource(kind, kernel, base32, newSeed);
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
            return new AesCtrKeystream(keyBytes);
        }
    }

    /** Fills key `index`'s bytes. */
    @FunctionalInterface
    interface KeyBytes {
        void fill(int index, byte[] key);
    }

    /**
     * AES-128 in counter mode over zeros, with javax.crypto's AES-NI counter-mode code: a
     * keystream generator keyed and started (key and initial counter) from the OS on the worker,
     * as Rust's and Go's tuned kernels are. The JDK's own CTR_DRBG re-expands the AES key for
     * every 16-byte block, which is why it is not used here.
     */
    static final class AesCtrKeystream implements KeyBytes {
        private final Cipher cipher;
        private final byte[] zeros;

        AesCtrKeystream(int keyBytes) {
            SecureRandom seeder = new SecureRandom();
            byte[] key = new byte[16];
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
            this.vectors = tuned && source.base32().equals(VECTOR);
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
    static void base32Only(Workers.ChunkRunner runner, Chunking.Plan plan, int keyBytes, KeySource source)
            throws Exception {
        ThreadLocal<KeyMaker> makers = ThreadLocal.withInitial(
                () -> new KeyMaker(KeySource.seeded(source.kernel(), source.base32(), 0), keyBytes));
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
        if (args.has("base32-kernel") && !kernel.equals("tuned")) {
            throw new Protocol.BadArguments("--base32-kernel picks the tuned kernel's encoder; it needs --kernel tuned");
        }
        String base32 = base32KernelNamed(args.has("base32-kernel") ? args.string("base32-kernel") : null, base32Kernels());
        KeySource base = kind.equals("strong")
                ? KeySource.strong(kernel, base32)
                : KeySource.seeded(kernel, base32, args.unsigned64("seed", 0));
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
        extra.put("kernel_detail", kernel.equals("tuned") ? tunedDetail(base32) : portableDetail());
        if (kernel.equals("tuned")) {
            extra.put("base32_kernel", base32);
        }
        if (base.isStrong()) {
            extra.put("strong_source", kernel.equals("tuned") ? tunedGenerator()
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
                base32Only(runner, plan, keyBytes, source);
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

}
