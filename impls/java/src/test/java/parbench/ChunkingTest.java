package parbench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The one chunking rule: chunk = min(cap, ceil(total / workers)), and the chunks it cuts. */
class ChunkingTest {
    @Test
    void total3Workers2GivesChunk2InTwoChunks() {
        int chunk = Chunking.defaultChunk(3, 2, Chunking.BYTES_CAP);
        assertEquals(2, chunk);
        assertEquals(2, new Chunking.Plan(3, chunk).chunks());
    }

    @Test
    void total10MiBWorkers2GivesChunk1MiBInTenChunks() {
        int chunk = Chunking.defaultChunk(10L << 20, 2, Chunking.BYTES_CAP);
        assertEquals(1 << 20, chunk);
        assertEquals(10, new Chunking.Plan(10 << 20, chunk).chunks());
    }

    @Test
    void keygenCapIs1024Keys() {
        int chunk = Chunking.defaultChunk(1_000_000, 2, Chunking.KEYS_CAP);
        assertEquals(1024, chunk);
        assertEquals(977, new Chunking.Plan(1_000_000, chunk).chunks());
    }

    @Test
    void smokeKeygenSplitsAcrossBothWorkers() {
        assertEquals(1000, Chunking.defaultChunk(2000, 2, Chunking.KEYS_CAP));
    }

    @Test
    void chunkIsCeilingOfTotalOverWorkers() {
        assertEquals(34, Chunking.defaultChunk(100, 3, Chunking.BYTES_CAP));
        assertEquals(3, new Chunking.Plan(100, 34).chunks());
    }

    @Test
    void fewerUnitsThanWorkersGiveChunksOfOne() {
        assertEquals(1, Chunking.defaultChunk(1, 4, Chunking.BYTES_CAP));
        assertEquals(1, Chunking.defaultChunk(0, 4, Chunking.BYTES_CAP));
    }

    @Test
    void theLastChunkIsTheRemainder() {
        Chunking.Plan plan = new Chunking.Plan(10, 4);
        assertEquals(3, plan.chunks());
        assertEquals(8, plan.from(2));
        assertEquals(10, plan.to(2));
    }

    @Test
    void chunksCoverTotalsNearTheIntLimit() {
        Chunking.Plan plan = new Chunking.Plan(Integer.MAX_VALUE, 1 << 20);
        assertEquals(2048, plan.chunks());
        assertEquals(Integer.MAX_VALUE, plan.to(plan.chunks() - 1));
    }
}
