package parbench.workloads;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SequencedMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import parbench.Protocol;
import parbench.Server;

/**
 * echo-server (workloads/echo-server.md): a TCP server on 127.0.0.1 that answers each request with
 * its payload reversed after wait_us µs, in seq, platform threads, one NIO Selector or virtual threads.
 */
public final class EchoServer implements Server {
    static final int MAX_PAYLOAD = 65_536;
    static final long MAX_WAIT_US = 10_000_000;
    private static final int BACKLOG = 4096; // the kernel caps it at net.core.somaxconn
    /**
     * A stats line waits (this long at most) until every connection it counted is closed on the
     * server's side: the client may read the last reply before the server's thread counts it.
     */
    private static final long SETTLE_NS = 2_000_000_000L;

    private static final Map<String, String> DETAILS = Map.of(
            "seq", "one connection at a time on one thread: the accept loop serves a connection to its end "
                    + "(blocking SocketChannel) before it accepts the next",
            "threads", "one platform thread per connection (Thread.ofPlatform), blocking SocketChannel I/O, Thread.sleep",
            "nio-selector", "one java.nio Selector (epoll) on one thread of its own: non-blocking channels, the waits "
                    + "as a heap of deadlines (select's timeout has 1 ms granularity)",
            "virtual-threads", "one virtual thread per connection (Thread.ofVirtual) over --workers carrier threads, "
                    + "blocking SocketChannel I/O and Thread.sleep, which unmount it");

    @Override
    public String name() {
        return "echo-server";
    }

    @Override
    public List<String> params() {
        return List.of("wait_us", "port");
    }

    @Override
    public SequencedMap<String, Protocol.ModelInfo> models() {
        SequencedMap<String, Protocol.ModelInfo> models = new LinkedHashMap<>();
        models.put("seq", new Protocol.ModelInfo("seq", false, "", Protocol.Starts.NONE, DETAILS.get("seq")));
        models.put("threads", new Protocol.ModelInfo("threads", false, "", Protocol.Starts.NONE, DETAILS.get("threads")));
        models.put("nio-selector", new Protocol.ModelInfo("event-loop", false, "", Protocol.Starts.NONE,
                DETAILS.get("nio-selector")));
        models.put("virtual-threads", new Protocol.ModelInfo("green", true, "", Protocol.Starts.neither(
                "a server makes its carriers before its ready line; its rounds are timed by the load generator, not by a start",
                "a server's carriers are made once, before its ready line, for every round: there is no per-round start "
                        + "to keep warm"), DETAILS.get("virtual-threads")));
        return models;
    }

    /** What a stats line reports, counted by every connection's thread at once. */
    static final class Tally {
        final AtomicLong accepted = new AtomicLong();
        final AtomicLong replies = new AtomicLong();
        final AtomicLong open = new AtomicLong();
        final AtomicLong threadsPeak = new AtomicLong();
        volatile boolean ended;

        void opened() {
            accepted.incrementAndGet();
            open.incrementAndGet();
        }

        void sawThreads() {
            threadsPeak.accumulateAndGet(osThreads(), Math::max);
        }

        /** One stats line since the one before, once every counted connection is closed. */
        String take(long variant) throws InterruptedException {
            long deadline = System.nanoTime() + SETTLE_NS;
            while (open.get() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            long now = osThreads();
            long peak = Math.max(threadsPeak.getAndSet(now), now);
            long served = replies.getAndSet(0);
            return "{\"rep\":" + Long.toUnsignedString(variant) + ",\"items\":" + served
                    + ",\"checksum\":\"served\",\"extra\":{\"accepted\":" + accepted.getAndSet(0) + ",\"replies\":"
                    + served + ",\"threads_peak\":" + peak + "}}";
        }
    }

    /** The Threads: line of /proc/self/status: every OS thread of the JVM (its own included). */
    static long osThreads() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Threads:")) {
                    return Long.parseLong(line.substring(8).trim());
                }
            }
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
        return 0;
    }

    /** The spec's reply in place: `message` holds the header then the payload, which is reversed. */
    static void makeReply(byte[] message) {
        for (int i = 8, j = message.length - 1; i < j; i++, j--) {
            byte b = message[i];
            message[i] = message[j];
            message[j] = b;
        }
    }

    static int payloadLength(byte[] header) {
        return ((header[4] & 0xff) << 24) | ((header[5] & 0xff) << 16) | ((header[6] & 0xff) << 8) | (header[7] & 0xff);
    }

    /** Exactly the buffer's remaining bytes, never more (the next request stays in the kernel); false at EOF. */
    private static boolean readExactly(SocketChannel channel, ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            if (channel.read(buffer) < 0) {
                return false;
            }
        }
        return true;
    }

    /** One connection to its end with blocking I/O; EOF, a len over the limit or a reset end it quietly. */
    static void serveBlocking(SocketChannel channel, long waitUs, Tally tally) {
        try (channel) {
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            byte[] header = new byte[8];
            while (readExactly(channel, ByteBuffer.wrap(header))) {
                int length = payloadLength(header);
                if (length < 0 || length > MAX_PAYLOAD) {
                    break;
                }
                byte[] message = new byte[8 + length];
                System.arraycopy(header, 0, message, 0, 8);
                if (!readExactly(channel, ByteBuffer.wrap(message, 8, length))) {
                    break;
                }
                if (waitUs > 0) {
                    Thread.sleep(Duration.ofNanos(waitUs * 1000));
                }
                makeReply(message);
                ByteBuffer reply = ByteBuffer.wrap(message);
                while (reply.hasRemaining()) {
                    channel.write(reply);
                }
                tally.replies.incrementAndGet();
            }
        } catch (IOException | InterruptedException e) {
            // a reset, or the end of the process: the connection is closed either way
        } finally {
            tally.open.decrementAndGet();
        }
    }

    /** Accepts until the listener is closed, handing each counted connection to `serve`. */
    static void acceptLoop(ServerSocketChannel listener, Tally tally, Consumer<SocketChannel> serve) {
        while (listener.isOpen()) {
            try {
                SocketChannel channel = listener.accept();
                tally.opened();
                serve.accept(channel);
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                System.err.println("echo-server accept: " + e); // out of descriptors: keep serving the others
            }
        }
    }

    /** The whole conversation: listen, start the model, the ready line, a stats line per stdin line. */
    @Override
    public void serve(String model, Protocol.Args args, int workers, BufferedReader stdin, PrintStream out)
            throws Exception {
        long waitUs = bounded(args, "wait-us", MAX_WAIT_US);
        int port = (int) bounded(args, "port", 65_535);
        ServerSocketChannel listener = ServerSocketChannel.open();
        listener.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        try {
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), BACKLOG);
        } catch (IOException e) {
            listener.close();
            throw new IOException("echo-server cannot listen on 127.0.0.1:" + port + ": " + e.getMessage(), e);
        }
        Tally tally = new Tally();
        SelectorLoop loop = null;
        Thread acceptor = null;
        switch (model) {
            case "seq" -> acceptor = Thread.ofPlatform().name("seq").daemon().start(
                    () -> acceptLoop(listener, tally, channel -> serveBlocking(channel, waitUs, tally)));
            case "threads" -> {
                acceptor = Thread.ofPlatform().name("acceptor").daemon().start(() -> acceptLoop(listener, tally,
                        channel -> startPlatform(channel, waitUs, tally)));
                // The peak of a thread per connection: /proc/self/status sampled every 5 ms.
                Thread.ofPlatform().name("threads-sampler").daemon().start(() -> {
                    while (!tally.ended) {
                        tally.sawThreads();
                        sleepQuietly(5);
                    }
                });
            }
            case "virtual-threads" -> acceptor = Thread.ofPlatform().name("acceptor").daemon().start(() -> acceptLoop(listener,
                    tally, channel -> Thread.ofVirtual().start(() -> serveBlocking(channel, waitUs, tally))));
            default -> loop = SelectorLoop.start(listener, waitUs, tally);
        }
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("model_detail", DETAILS.get(model));
        if (models().get(model).takesWorkers()) {
            extra.put("workers", workers);
        }
        out.println("{\"ready\":\"none\",\"port\":" + ((InetSocketAddress) listener.getLocalAddress()).getPort()
                + ",\"extra\":" + Protocol.json(extra) + "}");
        out.flush();
        for (int j = 0; ; j++) {
            Long variant = Protocol.readVariant(stdin, j);
            if (variant == null) {
                break;
            }
            out.println(tally.take(variant));
            out.flush();
        }
        tally.ended = true;
        if (loop != null) {
            loop.stop();
        }
        listener.close();
        if (acceptor != null) {
            // A channel closed while a thread is blocked in its accept is released when that
            // thread leaves it: until then the port still takes connections.
            acceptor.join(1_000);
        }
    }

    private static void startPlatform(SocketChannel channel, long waitUs, Tally tally) {
        try {
            Thread.ofPlatform().daemon().start(() -> serveBlocking(channel, waitUs, tally));
        } catch (OutOfMemoryError e) { // no thread for this one: its client sees it closed, a result
            System.err.println("echo-server threads: " + e.getMessage() + "; connection closed");
            try {
                channel.close();
            } catch (IOException ignored) {
                // closed either way
            }
            tally.open.decrementAndGet();
        }
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static long bounded(Protocol.Args args, String name, long high) {
        long value = args.number(name, 0);
        if (value < 0 || value > high) {
            throw new Protocol.BadArguments("--" + name + " must be an integer from 0 to " + high + ", got " + value);
        }
        return value;
    }

    /** The nio-selector model: one thread, one Selector, each connection a small state machine. */
    static final class SelectorLoop implements Runnable {
        private final ServerSocketChannel listener;
        private final long waitNs;
        private final Tally tally;
        private final Selector selector;
        private final PriorityQueue<Waiting> deadlines = new PriorityQueue<>();
        private final Thread thread;
        private volatile boolean stopping;

        /** A connection's request, read whole, waiting for its deadline. */
        private record Waiting(long dueNs, SelectionKey key) implements Comparable<Waiting> {
            @Override
            public int compareTo(Waiting other) {
                return Long.compare(dueNs, other.dueNs);
            }
        }

        /** One connection: the part being read (header, then payload), or the reply being written. */
        private static final class Connection {
            ByteBuffer header = ByteBuffer.allocate(8);
            ByteBuffer message; // null while reading the header
            boolean writing;
        }

        private SelectorLoop(ServerSocketChannel listener, long waitUs, Tally tally) throws IOException {
            this.listener = listener;
            this.waitNs = waitUs * 1000;
            this.tally = tally;
            this.selector = Selector.open();
            listener.configureBlocking(false);
            listener.register(selector, SelectionKey.OP_ACCEPT);
            this.thread = Thread.ofPlatform().name("nio-selector").daemon().unstarted(this);
        }

        static SelectorLoop start(ServerSocketChannel listener, long waitUs, Tally tally) throws IOException {
            SelectorLoop loop = new SelectorLoop(listener, waitUs, tally);
            loop.thread.start();
            return loop;
        }

        void stop() throws InterruptedException, IOException {
            stopping = true;
            selector.wakeup();
            thread.join();
            for (SelectionKey key : selector.keys()) {
                key.channel().close();
            }
            selector.close();
        }

        @Override
        public void run() {
            try {
                while (!stopping) {
                    Waiting next = deadlines.peek();
                    long timeoutMs = next == null ? 0 : Math.max(1, (next.dueNs - System.nanoTime() + 999_999) / 1_000_000);
                    selector.select(timeoutMs);
                    for (SelectionKey key : selector.selectedKeys()) {
                        handle(key);
                    }
                    selector.selectedKeys().clear();
                    wakeDue();
                }
            } catch (IOException e) {
                System.err.println("echo-server nio-selector: " + e);
            }
        }

        private void handle(SelectionKey key) throws IOException {
            if (!key.isValid()) {
                return;
            }
            if (key.isAcceptable()) {
                acceptAll();
            } else if (key.isWritable()) {
                write(key);
            } else if (key.isReadable()) {
                read(key);
            }
        }

        private void acceptAll() throws IOException {
            for (SocketChannel channel = listener.accept(); channel != null; channel = listener.accept()) {
                channel.configureBlocking(false);
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                tally.opened();
                channel.register(selector, SelectionKey.OP_READ, new Connection());
            }
        }

        private void drop(SelectionKey key) {
            key.cancel();
            try {
                key.channel().close();
            } catch (IOException ignored) {
                // closed either way
            }
            tally.open.decrementAndGet();
        }

        /** Reads what the part in hand still lacks, never more. */
        private void read(SelectionKey key) {
            Connection connection = (Connection) key.attachment();
            ByteBuffer part = connection.message == null ? connection.header : connection.message;
            try {
                if (((SocketChannel) key.channel()).read(part) < 0) {
                    drop(key);
                    return;
                }
            } catch (IOException e) {
                drop(key);
                return;
            }
            if (part.hasRemaining()) {
                return;
            }
            if (connection.message == null) {
                int length = payloadLength(connection.header.array());
                if (length < 0 || length > MAX_PAYLOAD) {
                    drop(key);
                    return;
                }
                connection.message = ByteBuffer.allocate(8 + length);
                connection.message.put(connection.header.array());
                if (length > 0) {
                    return;
                }
            }
            requestRead(key);
        }

        /** The whole request is in: wait (off the interest list, so nothing more is read), or reply. */
        private void requestRead(SelectionKey key) {
            key.interestOps(0);
            if (waitNs == 0) {
                startReply(key);
            } else {
                deadlines.add(new Waiting(System.nanoTime() + waitNs, key));
            }
        }

        private void wakeDue() {
            long now = System.nanoTime();
            while (!deadlines.isEmpty() && deadlines.peek().dueNs <= now) {
                SelectionKey key = deadlines.poll().key;
                if (key.isValid()) {
                    startReply(key);
                }
            }
        }

        private void startReply(SelectionKey key) {
            Connection connection = (Connection) key.attachment();
            makeReply(connection.message.array());
            connection.message.flip();
            connection.writing = true;
            write(key);
        }

        private void write(SelectionKey key) {
            Connection connection = (Connection) key.attachment();
            try {
                ((SocketChannel) key.channel()).write(connection.message);
            } catch (IOException e) {
                drop(key);
                return;
            }
            if (connection.message.hasRemaining()) {
                key.interestOps(SelectionKey.OP_WRITE);
                return;
            }
            tally.replies.incrementAndGet();
            connection.message = null;
            connection.writing = false;
            connection.header.clear();
            key.interestOps(SelectionKey.OP_READ);
        }
    }
}
