package parbench.workloads;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import parbench.Checksums;
import parbench.Protocol;
import parbench.Workload;

/** keygen: `count` random keys of `bytes` bytes, each encoded as lower-case RFC 4648 Base32. */
public final class Keygen implements Workload {
    /** java.security's DRBG defaults to Hash_DRBG over SHA-256, seeded from the OS entropy source. */
    public static final String STRONG_SOURCE_NAME =
            "java.security.SecureRandom.getInstance(\"DRBG\") (Hash_DRBG SHA-256, seeded from /dev/random via the "
                    + "JDK SeedGenerator), one instance per platform thread; virtual threads share a striped set";

    private static final byte[] ALPHABET = "abcdefghijklmnopqrstuvwxyz234567".getBytes();

    @Override
    public String name() {
        return "keygen";
    }

    @Override
    public List<String> params() {
        return List.of("count", "bytes", "source", "seed");
    }

    @Override
    public SequencedMap<String, Protocol.ModelInfo> models() {
        SequencedMap<String, Protocol.ModelInfo> models = new LinkedHashMap<>();
        models.put("seq", new Protocol.ModelInfo("seq", false, "a plain loop, one DRBG instance"));
        models.put("parallel-stream", new Protocol.ModelInfo("data-parallel", true,
                "IntStream.range().parallel() on the ForkJoin common pool (parallelism workers-1, plus the "
                        + "calling thread); one DRBG per pool thread"));
        models.put("virtual-threads", new Protocol.ModelInfo("green", true,
                "one virtual thread per key (Executors.newVirtualThreadPerTaskExecutor) on workers carriers; "
                        + "keys draw from 4 x workers DRBG instances, key i from instance i mod that"));
        return models;
    }

    /** RFC 4648 Base32, lower case, padded with '=' to a multiple of 8 characters. */
    public static String base32Lower(byte[] data) {
        byte[] out = new byte[(data.length + 4) / 5 * 8];
        int written = 0;
        int offset = 0;
        for (; offset + 5 <= data.length; offset += 5) {
            long group = 0;
            for (int k = 0; k < 5; k++) {
                group = group << 8 | (data[offset + k] & 0xff);
            }
            for (int shift = 35; shift >= 0; shift -= 5) {
                out[written++] = ALPHABET[(int) (group >>> shift) & 31];
            }
        }
        int rest = data.length - offset;
        if (rest > 0) {
            long group = 0;
            for (int k = 0; k < 5; k++) {
                group = group << 8 | (k < rest ? data[offset + k] & 0xff : 0);
            }
            int significant = (rest * 8 + 4) / 5; // characters that carry bits; the rest is padding
            for (int k = 0; k < 8; k++) {
                out[written++] = k < significant ? ALPHABET[(int) (group >>> (35 - 5 * k)) & 31] : (byte) '=';
            }
        }
        return new String(out, java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    @Override
    public PreparedCase prepare(String model, Protocol.Args args, int workers) {
        int count = args.count("count", 0);
        int keyBytes = args.count("bytes", 0);
        String source = args.choice("source", null, List.of("strong", "seeded"));
        long seed = args.number("seed", 0);
        Map<String, Object> extra = new LinkedHashMap<>();
        if (!model.equals("seq")) {
            extra.put("workers", workers);
        }
        if (source.equals("strong")) {
            extra.put("strong_source", "DRBG " + newStrongRandom().toString());
        }
        return new PreparedCase() {
            @Override
            public Protocol.Repetition run() throws Exception {
                long start = System.nanoTime();
                List<String> keys = switch (model) {
                    case "seq" -> sequential(count, keyBytes, source, seed);
                    case "parallel-stream" -> parallelStream(count, keyBytes, source, seed);
                    case "virtual-threads" -> virtualThreads(count, keyBytes, source, seed, workers);
                    default -> throw new IllegalStateException(model);
                };
                long ns = System.nanoTime() - start;
                return new Protocol.Repetition(ns, keys.size(), checksum(keys, source));
            }

            @Override
            public Map<String, Object> extra() {
                return extra;
            }
        };
    }

    static String checksum(List<String> keys, String source) {
        if (source.equals("strong")) {
            long chars = keys.stream().mapToLong(String::length).sum();
            return keys.size() + ":" + chars;
        }
        long sum = 0;
        for (String key : keys) {
            sum += Checksums.fnv1a64(key);
        }
        return Checksums.digestHex(sum);
    }

    static List<String> sequential(int count, int keyBytes, String source, long seed) {
        IntFunction<byte[]> bytesOf = keySource(source, seed, keyBytes, Keygen::newStrongRandom);
        List<String> keys = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            keys.add(base32Lower(bytesOf.apply(i)));
        }
        return keys;
    }

    static List<String> parallelStream(int count, int keyBytes, String source, long seed) {
        ThreadLocal<SecureRandom> perThread = ThreadLocal.withInitial(Keygen::newStrongRandom);
        return IntStream.range(0, count).parallel()
                .mapToObj(i -> base32Lower(keySource(source, seed, keyBytes, perThread::get).apply(i)))
                .toList();
    }

    static List<String> virtualThreads(int count, int keyBytes, String source, long seed, int workers)
            throws Exception {
        SecureRandom[] stripes = new SecureRandom[source.equals("strong") ? 4 * workers : 0];
        for (int s = 0; s < stripes.length; s++) {
            stripes[s] = newStrongRandom();
        }
        List<Future<String>> futures = new ArrayList<>(count);
        try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < count; i++) {
                int index = i;
                Supplier<SecureRandom> random = () -> stripes[index % stripes.length];
                futures.add(executor.submit(() -> base32Lower(keySource(source, seed, keyBytes, random).apply(index))));
            }
        }
        List<String> keys = new ArrayList<>(count);
        for (Future<String> future : futures) {
            keys.add(future.get());
        }
        return keys;
    }

    /** Key i's bytes: SplitMix64 for verification, a CSPRNG (asked for only when used) for timed runs. */
    private static IntFunction<byte[]> keySource(String source, long seed, int keyBytes,
            Supplier<SecureRandom> random) {
        if (source.equals("seeded")) {
            return i -> Checksums.splitMix64Bytes(seed, i, keyBytes);
        }
        SecureRandom generator = random.get();
        return i -> {
            byte[] key = new byte[keyBytes];
            generator.nextBytes(key);
            return key;
        };
    }

    static SecureRandom newStrongRandom() {
        try {
            return SecureRandom.getInstance("DRBG");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JDK has no DRBG SecureRandom", e);
        }
    }
}
