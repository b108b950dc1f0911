package parbench;

/** The one chunking rule every data-parallel model follows, and the chunks it makes of a total. */
public final class Chunking {
    private Chunking() {}

    /** sdes-ecb's cap: 1 MiB of bytes per chunk. */
    public static final int BYTES_CAP = 1 << 20;
    /** keygen's cap: 1024 keys per chunk. */
    public static final int KEYS_CAP = 1024;

    /** chunk = min(cap, ceil(total / workers)), at least 1: every worker gets a chunk whenever total >= workers. */
    public static int defaultChunk(long total, int workers, int cap) {
        long perWorker = (total + workers - 1) / workers;
        return (int) Math.max(1, Math.min(cap, perWorker));
    }

    /** `total` units cut into chunks of `chunk` (the last one may be shorter). */
    public record Plan(int total, int chunk) {
        public Plan {
            if (chunk < 1) {
                throw new IllegalArgumentException("chunk must be at least 1, got " + chunk);
            }
        }

        public int chunks() {
            return (int) (((long) total + chunk - 1) / chunk);
        }

        public int from(int index) {
            return (int) Math.min(total, (long) index * chunk);
        }

        public int to(int index) {
            return (int) Math.min(total, (long) (index + 1) * chunk);
        }
    }
}
