package parbench;

import java.util.List;
import java.util.Map;
import java.util.SequencedMap;

/** What every workload offers the harness: its params and models, and a case ready to repeat. */
public interface Workload {
    String name();

    /** The params its calls take, as --list names them (`_` where the flag has `-`), model-own ones included. */
    List<String> params();

    SequencedMap<String, Protocol.ModelInfo> models();

    /** Validates the arguments and loads inputs, all outside the timed region. */
    PreparedCase prepare(String model, Protocol.Args args, int workers) throws Exception;

    /** A case with its inputs loaded: each call is one repetition, timed inside. */
    interface PreparedCase {
        Protocol.Repetition run() throws Exception;

        /** Settings printed under `extra` on every line (workers, flags, chunk…). */
        Map<String, Object> extra();
    }
}
