package parbench.workloads;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.net.ConnectException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import parbench.Protocol;

/**
 * echo-server's spec: each model served in this JVM over pipes for stdin and stdout, spoken to over
 * real sockets: the vector, random payloads, the wait, the stats line, threads, the end of stdin.
 */
class EchoServerTest {
    private static final List<String> MODELS = List.copyOf(new EchoServer().models().keySet());

    /** One served call: serve() on a thread of its own, its stdin and stdout pipes held here. */
    static final class Served implements AutoCloseable {
        final PrintStream stdin;
        final BufferedReader lines;
        final Thread thread;
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final int port;

        Served(String model, long waitUs) throws IOException {
            PipedOutputStream toServer = new PipedOutputStream();
            InputStream serverIn = new PipedInputStream(toServer, 1 << 16);
            PipedInputStream fromServer = new PipedInputStream(1 << 16);
            OutputStream serverOut = new PipedOutputStream(fromServer);
            stdin = new PrintStream(toServer, true, StandardCharsets.US_ASCII);
            lines = new BufferedReader(new InputStreamReader(fromServer, StandardCharsets.US_ASCII));
            List<String> words = new ArrayList<>(List.of("--wait-us", Long.toString(waitUs)));
            Protocol.Args args = Protocol.Args.parse(words);
            thread = Thread.ofPlatform().start(() -> {
                try (PrintStream out = new PrintStream(serverOut, true, StandardCharsets.US_ASCII)) {
                    new EchoServer().serve(model, args, 2, new BufferedReader(new InputStreamReader(serverIn,
                            StandardCharsets.US_ASCII)), out);
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
            String ready = lines.readLine();
            assertTrue(ready.startsWith("{\"ready\":\"none\",\"port\":") && ready.contains("\"model_detail\":\""), ready);
            port = (int) number(ready, "port");
        }

        Socket connect() throws IOException {
            Socket socket = new Socket("127.0.0.1", port);
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(20_000);
            return socket;
        }

        String stats(int variant) throws IOException {
            stdin.println(variant);
            return lines.readLine();
        }

        /** Ends stdin: serve() returns within 2 s and the port no longer listens. */
        @Override
        public void close() throws Exception {
            if (!thread.isAlive()) {
                return;
            }
            stdin.close();
            thread.join(5_000);
            assertTrue(!thread.isAlive(), "still serving after the end of stdin");
            assertEquals(null, failure.get());
            assertThrows(ConnectException.class, () -> new Socket("127.0.0.1", port).close(), "still listening");
        }
    }

    static long number(String line, String key) {
        Matcher m = Pattern.compile("\"" + key + "\":(\\d+)").matcher(line);
        assertTrue(m.find(), key + " in " + line);
        return Long.parseLong(m.group(1));
    }

    static byte[] request(int id, byte[] payload) {
        return ByteBuffer.allocate(8 + payload.length).putInt(id).putInt(payload.length).put(payload).array();
    }

    static void send(Socket socket, int id, byte[] payload) throws IOException {
        socket.getOutputStream().write(request(id, payload));
    }

    static void expectReply(Socket socket, int id, byte[] payload) throws IOException {
        byte[] reversed = new byte[payload.length];
        for (int i = 0; i < payload.length; i++) {
            reversed[i] = payload[payload.length - 1 - i];
        }
        assertArrayEquals(request(id, reversed), socket.getInputStream().readNBytes(8 + payload.length), "reply to " + id);
    }

    static int atOnce(String model) {
        return model.equals("seq") ? 1 : 6;
    }

    @Test
    void theSpecVector() throws Exception {
        for (String model : MODELS) {
            try (Served server = new Served(model, 0); Socket socket = server.connect()) {
                socket.getOutputStream().write(new byte[] {0, 0, 0, 1, 0, 0, 0, 3, 'a', 'b', 'c'});
                assertArrayEquals(new byte[] {0, 0, 0, 1, 0, 0, 0, 3, 'c', 'b', 'a'}, socket.getInputStream().readNBytes(11), model);
            }
        }
    }

    @Test
    void randomPayloadsOverConcurrentConnectionsThenTheStatsLine() throws Exception {
        Random random = new Random(42);
        for (String model : MODELS) {
            try (Served server = new Served(model, 2000)) {
                int replies = 0;
                for (int round = 0; round < 2; round++) { // in lockstep: no more connections than the model serves at once
                    List<Socket> sockets = new ArrayList<>();
                    for (int k = 0; k < atOnce(model); k++) {
                        sockets.add(server.connect());
                    }
                    for (int r = 0; r < 4; r++) {
                        List<byte[]> payloads = new ArrayList<>();
                        for (int k = 0; k < sockets.size(); k++) {
                            byte[] payload = new byte[r * 100 + k];
                            random.nextBytes(payload);
                            payloads.add(payload);
                            send(sockets.get(k), 1000 * k + r, payload);
                        }
                        for (int k = 0; k < sockets.size(); k++) {
                            expectReply(sockets.get(k), 1000 * k + r, payloads.get(k));
                            replies++;
                        }
                    }
                    for (Socket socket : sockets) {
                        socket.close();
                    }
                }
                String line = server.stats(7);
                assertEquals(List.of(7L, (long) replies, (long) replies, 2L * atOnce(model)),
                        List.of(number(line, "rep"), number(line, "items"), number(line, "replies"), number(line, "accepted")), line);
                assertTrue(line.contains("\"checksum\":\"served\""), line);
                assertEquals(0, number(server.stats(8), "items"), model + ": counted since the line before");
            }
        }
    }

    @Test
    void aLenOver65536ClosesThatConnectionOnly() throws Exception {
        for (String model : MODELS) {
            try (Served server = new Served(model, 0)) {
                try (Socket bad = server.connect()) {
                    bad.getOutputStream().write(new byte[] {0, 0, 0, 2, 0, 1, 0, 1});
                    assertEquals(-1, bad.getInputStream().read(), model);
                }
                try (Socket good = server.connect()) {
                    send(good, 3, "xy".getBytes(StandardCharsets.US_ASCII));
                    expectReply(good, 3, "xy".getBytes(StandardCharsets.US_ASCII));
                }
            }
        }
    }

    @Test
    void aShortRequestAtEofGetsNoReply() throws Exception {
        for (String model : MODELS) {
            try (Served server = new Served(model, 0); Socket socket = server.connect()) {
                socket.getOutputStream().write(new byte[] {0, 0, 0, 4, 0, 0, 0, 10, 'a', 'b', 'c'});
                socket.shutdownOutput();
                assertEquals(-1, socket.getInputStream().read(), model);
            }
        }
    }

    /**
     * With wait_us 2,000 and 20 connections kept open, a concurrent model answers every one (in
     * reverse order here); seq answers only the first until it is closed.
     */
    @Test
    void theWaitHoldsOnlyWhatTheModelServesAtOnce() throws Exception {
        byte[] wait = "wait".getBytes(StandardCharsets.US_ASCII);
        for (String model : MODELS) {
            try (Served server = new Served(model, 2000)) {
                List<Socket> sockets = new ArrayList<>();
                for (int k = 0; k < 20; k++) {
                    sockets.add(server.connect());
                    send(sockets.get(k), k, wait);
                }
                int served = model.equals("seq") ? 1 : 20;
                for (int k = served - 1; k >= 0; k--) {
                    expectReply(sockets.get(k), k, wait);
                }
                if (served < 20) {
                    sockets.get(1).setSoTimeout(300);
                    assertThrows(SocketTimeoutException.class, () -> sockets.get(1).getInputStream().read(), model);
                    sockets.get(0).close();
                    sockets.get(1).setSoTimeout(20_000);
                    expectReply(sockets.get(1), 1, wait);
                }
                for (Socket socket : sockets) {
                    socket.close();
                }
            }
        }
    }

    /**
     * wait_us 200,000 on 20 connections: a server that waits for one connection at a time cannot
     * answer the 20th before 20 × 200 ms however fast the machine; a concurrent one answers all of
     * them about 200 ms after they were sent (the bound is the serial floor, not a speed).
     */
    @Test
    void theWaitsOf20ConnectionsOverlap() throws Exception {
        byte[] overlap = "overlap".getBytes(StandardCharsets.US_ASCII);
        for (String model : List.of("threads", "nio-selector", "virtual-threads")) {
            try (Served server = new Served(model, 200_000)) {
                long started = System.nanoTime();
                List<Socket> sockets = new ArrayList<>();
                for (int k = 0; k < 20; k++) {
                    sockets.add(server.connect());
                    send(sockets.get(k), k, overlap);
                }
                for (int k = 0; k < 20; k++) {
                    expectReply(sockets.get(k), k, overlap);
                    sockets.get(k).close();
                }
                assertTrue(System.nanoTime() - started < 20 * 200_000_000L, model + ": as if one after another");
            }
        }
    }

    /**
     * threads makes an OS thread per open connection; the Selector and virtual threads do not (40
     * connections, one exchange each so that every one is being served).
     */
    @Test
    void threadsMakesAnOsThreadPerOpenConnectionAndTheOthersDoNot() throws Exception {
        int open = 40;
        for (String model : List.of("threads", "nio-selector", "virtual-threads")) {
            try (Served server = new Served(model, 0)) {
                server.stats(0);
                long before = EchoServer.osThreads();
                List<Socket> sockets = new ArrayList<>();
                for (int k = 0; k < open; k++) {
                    sockets.add(server.connect());
                    send(sockets.get(k), k, new byte[] {'t'});
                    expectReply(sockets.get(k), k, new byte[] {'t'});
                }
                long now = EchoServer.osThreads();
                for (Socket socket : sockets) {
                    socket.close();
                }
                assertTrue(number(server.stats(1), "threads_peak") >= 1);
                if (model.equals("threads")) {
                    assertTrue(now >= before + open, model + ": " + before + " threads before, " + now + " with 40 open");
                } else {
                    // virtual threads may start their carriers (2 here) on the first connections
                    assertTrue(now < before + 4, model + ": " + before + " threads before, " + now + " with 40 open");
                }
            }
        }
    }

    @Test
    void endOfStdinEndsTheServerWithAConnectionOpen() throws Exception {
        for (String model : MODELS) {
            Served server = new Served(model, 0);
            try (Socket socket = server.connect()) {
                send(socket, 1, new byte[] {'a', 'b', 'c'});
                expectReply(socket, 1, new byte[] {'a', 'b', 'c'});
                server.close();
            }
        }
    }

    @Test
    void badArgumentsAreRefused() {
        for (List<String> words : List.of(List.of("--wait-us", "-1"), List.of("--wait-us", "10000001"),
                List.of("--port", "70000"))) {
            assertThrows(Protocol.BadArguments.class, () -> new EchoServer().serve("seq", Protocol.Args.parse(words), 1,
                    new BufferedReader(new StringReader("")), new PrintStream(OutputStream.nullOutputStream())), words.toString());
        }
    }
}
