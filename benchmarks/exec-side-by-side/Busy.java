// Java 17: a fixed pool of one thread per core; prints the xor of every task's last xorshift64 state.
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

public class Busy {
    static long task(long seed, int steps) {
        long x = seed * 2654435761L + 1;
        for (int i = 0; i < steps; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    public static void main(String[] args) throws Exception {
        int tasks = Integer.parseInt(args[0]);
        int steps = Integer.parseInt(args[1]);
        ExecutorService pool = Executors.newFixedThreadPool(Runtime.getRuntime().availableProcessors());
        List<Future<Long>> results = new ArrayList<>();
        for (int t = 0; t < tasks; t++) {
            final long seed = t;
            results.add(pool.submit(() -> task(seed, steps)));
        }
        long sum = 0;
        for (Future<Long> result : results) {
            sum ^= result.get();
        }
        pool.shutdown();
        System.out.println(Long.toUnsignedString(sum));
    }
}
