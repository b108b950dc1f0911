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

    /**
     * Its kernel classes (protocol 2), `portable` first, each with what it runs in a few words;
     * empty for workloads without kernels. `--kernel` takes these names.
     */
    default SequencedMap<String, String> kernels() {
        return new java.util.LinkedHashMap<>();
    }

    /**
     * Validates the arguments and loads inputs, all outside the timed region; a warm `team`
     * makes its workers here too (timed apart, as the ready line's start_ns).
     */
    PreparedCase prepare(String model, Protocol.Args args, Workers.Team team) throws Exception;

    /** The case with `workers` workers in the model's default start mode (tests call this). */
    default PreparedCase prepare(String model, Protocol.Args args, int workers) throws Exception {
        return prepare(model, args, new Workers.Team(workers, models().get(model).starts().byDefault()));
    }

    /** A case with its inputs loaded: each call is one repetition, timed inside. */
    interface PreparedCase {
        /**
         * One repetition: it starts and stops `rep`'s clock around the work, marks its checksum
         * and cleanup on it, and uses `rep.variant(base)` in place of the workload's base value.
         */
        Protocol.Repetition run(Protocol.Rep rep) throws Exception;

        /** One repetition with the base value and the protocol-2 evidence added (tests call this). */
        default Protocol.Repetition run() throws Exception {
            return Protocol.runRepetition(this::run, null);
        }

        /** Settings printed under `extra` on every line (workers, flags, chunk, kernel…). */
        Map<String, Object> extra();
    }
}
