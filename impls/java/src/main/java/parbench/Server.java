package parbench;

import java.io.BufferedReader;
import java.io.PrintStream;

/**
 * A workload that is a server (echo-server): it answers its own conversation on stdin and stdout
 * (its ready line with the port, one stats line per stdin line, its end at the end of stdin)
 * instead of timed repetitions, so it has no prepared case.
 */
public interface Server extends Workload {
    /** Serves `model` until `stdin` ends; the arguments are checked as for any workload first. */
    void serve(String model, Protocol.Args args, int workers, BufferedReader stdin, PrintStream out) throws Exception;

    @Override
    default PreparedCase prepare(String model, Protocol.Args args, Workers.Team team) {
        throw new Protocol.BadArguments(name() + " is a server: it is served, not run as timed repetitions");
    }
}
