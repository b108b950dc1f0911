package parbench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The protocol helper: argument errors are exit-2 errors, and result lines have the protocol's shape. */
class ProtocolTest {
    @Test
    void aResultLineHasRepNsItemsChecksumAndExtra() {
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("workers", 2);
        String line = Protocol.repetitionLine(0, new Protocol.Repetition(337167000L, 100000, "100000"), extra);
        assertEquals("{\"rep\":0,\"ns\":337167000,\"items\":100000,\"checksum\":\"100000\",\"extra\":{\"workers\":2}}",
                line);
    }

    @Test
    void aLimitLineCarriesTheRuntimesMessage() {
        assertEquals("{\"error\":\"limit\",\"detail\":\"unable to create \\\"native\\\" thread\"}",
                Protocol.limitLine("unable to create \"native\" thread"));
    }

    @Test
    void unknownParametersAreRejected() {
        Protocol.Args args = Protocol.Args.parse(List.of("--count", "3", "--cont", "4"));
        assertThrows(Protocol.BadArguments.class, () -> args.allowOnly(Set.of("count"), "keygen"));
    }

    @Test
    void aNumberMustBeAnInteger() {
        Protocol.Args args = Protocol.Args.parse(List.of("--count", "many"));
        assertThrows(Protocol.BadArguments.class, () -> args.count("count", 1));
    }

    @Test
    void keysMayBeWrittenInBinary() {
        assertEquals(642, Protocol.Args.parse(List.of("--key", "0b1010000010")).number("key"));
    }

    @Test
    void aFlagWithoutAValueIsRejected() {
        assertThrows(Protocol.BadArguments.class, () -> Protocol.Args.parse(List.of("--count")));
    }
}
