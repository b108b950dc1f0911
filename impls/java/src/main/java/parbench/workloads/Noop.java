package parbench.workloads;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import parbench.Protocol;
import parbench.Workers;
import parbench.Workload;

/** The empty workload: the harness times it to learn the JVM's boot and this program's overhead. */
public final class Noop implements Workload {
    @Override
    public String name() {
        return "noop";
    }

    @Override
    public List<String> params() {
        return List.of();
    }

    @Override
    public SequencedMap<String, Protocol.ModelInfo> models() {
        SequencedMap<String, Protocol.ModelInfo> models = new LinkedHashMap<>();
        models.put("seq", new Protocol.ModelInfo("seq", false, ""));
        return models;
    }

    @Override
    public PreparedCase prepare(String model, Protocol.Args args, Workers.Team team) {
        return new PreparedCase() {
            @Override
            public Protocol.Repetition run(Protocol.Rep rep) {
                rep.start();
                long ns = rep.stop();
                return new Protocol.Repetition(ns, 0, "noop");
            }

            @Override
            public Map<String, Object> extra() {
                return Map.of();
            }
        };
    }
}
