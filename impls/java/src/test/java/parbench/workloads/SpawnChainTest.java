package parbench.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** spawn-chain's spec: the answer is n, whatever kind of thread makes the links. */
class SpawnChainTest {
    @ParameterizedTest(name = "n {0}")
    @ValueSource(ints = {1, 2, 777, 20_000})
    void virtualThreadChainAnswersN(int n) throws Exception {
        assertEquals(n, SpawnChain.passThroughChain(n, Thread.ofVirtual()));
    }

    // Kept small: a platform thread is an OS thread, and the test machine's pid space is shared.
    @ParameterizedTest(name = "n {0}")
    @ValueSource(ints = {1, 2, 50})
    void platformThreadChainAnswersN(int n) throws Exception {
        assertEquals(n, SpawnChain.passThroughChain(n, Thread.ofPlatform().daemon(true)));
    }
}
