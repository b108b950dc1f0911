package parbench.workloads;

import com.google.gson.Gson;
import com.google.gson.annotations.SerializedName;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SequencedMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntConsumer;
import org.sqlite.SQLiteConfig;
import parbench.Digest;
import parbench.Protocol;
import parbench.Workers;
import parbench.Workload;

/** batch-job: re-align each document's annotations (LCS, CPU) and rewrite them in a database (I/O). */
public final class BatchJob implements Workload {
    private static final Gson GSON = new Gson();

    @Override
    public String name() {
        return "batch-job";
    }

    @Override
    public List<String> params() {
        return List.of("docs_dir", "db", "connections");
    }

    /** The only kernel: the spec's LCS in plain Java (offsetMap); nothing engineered exists to be a tuned one. */
    static final String PORTABLE_DETAIL = "reference, transliterated";

    @Override
    public SequencedMap<String, String> kernels() {
        SequencedMap<String, String> kernels = new LinkedHashMap<>();
        kernels.put("portable", PORTABLE_DETAIL);
        return kernels;
    }

    @Override
    public SequencedMap<String, Protocol.ModelInfo> models() {
        SequencedMap<String, Protocol.ModelInfo> models = new LinkedHashMap<>();
        models.put("seq", new Protocol.ModelInfo("seq", false, "one connection, documents in order"));
        models.put("threads", new Protocol.ModelInfo("threads", true,
                "a fixed pool of workers threads, one task per document (invokeAll); each thread holds one of "
                        + "workers connections for a whole document", Workers.THREAD_POOL_STARTS));
        models.put("virtual-threads", new Protocol.ModelInfo("green", true,
                "one virtual thread per document (unbounded, each joined) on workers carriers; a document "
                        + "borrows one of --connections pooled connections (default 4 x workers) for its read and "
                        + "again for its write transaction, and aligns holding none",
                Workers.virtualThreadStarts("document")));
        return models;
    }

    /**
     * Gives the job its starting rows back from the harness's pristine copies, before every
     * repetition but the process's first (docs/protocol.md, batch-job): one transaction on one
     * connection, the same text on SQLite and PostgreSQL. The annotations go back in one order so
     * that their ids come out the same every time. One statement per string: JDBC's drivers do
     * not all run several in one call.
     */
    static final List<String> RESET_JOB = List.of(
            "DELETE FROM annotations",
            "INSERT INTO annotations (doc_id, span_begin, span_end, label) SELECT doc_id, span_begin, span_end, label"
                    + " FROM pristine_annotations ORDER BY doc_id, span_begin, span_end, label",
            "DELETE FROM documents",
            "INSERT INTO documents (doc_id, length, annotation_count, status)"
                    + " SELECT doc_id, length, annotation_count, status FROM pristine_documents");

    /** One document file, `{"id": 3, "old": "...", "new": "..."}`. */
    record Document(int id, String old, @SerializedName("new") String changed) {}

    record Span(int begin, int end, String label) {}

    /**
     * Where each byte offset of `old` lands in `changed` (the spec's map M): the LCS suffix table
     * dp[i][j] = LCS(old[i:], changed[j:]), its walk from (0, 0) with the spec's tie-break (step
     * in `old` when both ways keep the same length), then M from the end.
     */
    static int[] offsetMap(byte[] old, byte[] changed) {
        int n = old.length;
        int m = changed.length;
        int[][] dp = new int[n + 1][m + 1];
        for (int i = n - 1; i >= 0; i--) {
            for (int j = m - 1; j >= 0; j--) {
                dp[i][j] = old[i] == changed[j] ? dp[i + 1][j + 1] + 1 : Math.max(dp[i + 1][j], dp[i][j + 1]);
            }
        }
        int[] matchedTo = new int[n];
        java.util.Arrays.fill(matchedTo, -1);
        int i = 0;
        int j = 0;
        while (i < n && j < m) {
            if (old[i] == changed[j]) {
                matchedTo[i] = j;
                i++;
                j++;
            } else if (dp[i + 1][j] >= dp[i][j + 1]) {
                i++;
            } else {
                j++;
            }
        }
        int[] offsets = new int[n + 1];
        offsets[n] = m;
        for (int k = n - 1; k >= 0; k--) {
            offsets[k] = matchedTo[k] >= 0 ? matchedTo[k] : offsets[k + 1];
        }
        return offsets;
    }

    /** Moves each span through the offset map; a span that collapses to nothing is dropped. */
    static List<Span> align(byte[] old, byte[] changed, List<Span> spans) {
        int[] offsets = offsetMap(old, changed);
        List<Span> aligned = new ArrayList<>(spans.size());
        for (Span span : spans) {
            int begin = offsets[span.begin()];
            int end = offsets[span.end()];
            if (begin < end) {
                aligned.add(new Span(begin, end, span.label()));
            }
        }
        return aligned;
    }

    /** Opens `sqlite:PATH` (WAL, synchronous=FULL, writers wait) or a `postgresql://` URL. */
    static Connection open(String url) throws SQLException {
        if (url.startsWith("sqlite:")) {
            SQLiteConfig config = new SQLiteConfig();
            config.setJournalMode(SQLiteConfig.JournalMode.WAL);
            config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
            config.setBusyTimeout(600_000);
            // Take the write lock at BEGIN: a deferred transaction that upgrades later can fail
            // with SQLITE_BUSY instead of waiting.
            config.setTransactionMode(SQLiteConfig.TransactionMode.IMMEDIATE);
            return DriverManager.getConnection("jdbc:" + url, config.toProperties());
        }
        if (url.startsWith("postgresql://") || url.startsWith("postgres://")) {
            URI uri = URI.create(url);
            Properties login = new Properties();
            String userInfo = uri.getRawUserInfo();
            if (userInfo != null) {
                String[] parts = userInfo.split(":", 2);
                login.setProperty("user", URLDecoder.decode(parts[0], StandardCharsets.UTF_8));
                if (parts.length == 2) {
                    login.setProperty("password", URLDecoder.decode(parts[1], StandardCharsets.UTF_8));
                }
            }
            int port = uri.getPort() < 0 ? 5432 : uri.getPort();
            return DriverManager.getConnection("jdbc:postgresql://" + uri.getHost() + ":" + port + uri.getRawPath(),
                    login);
        }
        throw new Protocol.BadArguments("--db must be sqlite:PATH or postgresql://user:pass@host:port/db, got " + url);
    }

    /** A fixed set of open connections, lent to one unit at a time. */
    static final class ConnectionPool implements AutoCloseable {
        private final BlockingQueue<Connection> idle;

        ConnectionPool(String url, int size) throws SQLException {
            idle = new ArrayBlockingQueue<>(size);
            for (int i = 0; i < size; i++) {
                idle.add(open(url));
            }
        }

        Connection borrow() throws InterruptedException {
            return idle.take();
        }

        void giveBack(Connection connection) {
            idle.add(connection);
        }

        @Override
        public void close() throws SQLException {
            for (Connection connection : idle) {
                connection.close();
            }
        }
    }

    /** The job's shared state: where inputs are, and the summed CPU and I/O time of every document. */
    static final class Job {
        final Path docsDir;
        final LongAdder cpuNs = new LongAdder();
        final LongAdder ioNs = new LongAdder();

        Job(Path docsDir) {
            this.docsDir = docsDir;
        }

        Document readDocument(int docId) throws Exception {
            return GSON.fromJson(Files.readString(docsDir.resolve(docId + ".json")), Document.class);
        }

        /** Step 1: the document's file and its annotations. */
        Document read(int docId, Connection db, List<Span> spans) throws Exception {
            long start = System.nanoTime();
            Document document = readDocument(docId);
            try (PreparedStatement select = db.prepareStatement(
                    "SELECT span_begin, span_end, label FROM annotations WHERE doc_id = ? ORDER BY id")) {
                select.setInt(1, docId);
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        spans.add(new Span(rows.getInt(1), rows.getInt(2), rows.getString(3)));
                    }
                }
            }
            ioNs.add(System.nanoTime() - start);
            return document;
        }

        /** Step 2: the alignment, pure CPU. */
        List<Span> align(Document document, List<Span> spans) {
            long start = System.nanoTime();
            List<Span> aligned = BatchJob.align(document.old().getBytes(StandardCharsets.UTF_8),
                    document.changed().getBytes(StandardCharsets.UTF_8), spans);
            cpuNs.add(System.nanoTime() - start);
            return aligned;
        }

        /** Step 3: one transaction replacing the annotations and marking the document aligned. */
        void write(int docId, Document document, List<Span> aligned, Connection db) throws SQLException {
            long start = System.nanoTime();
            db.setAutoCommit(false);
            try {
                try (PreparedStatement delete = db.prepareStatement("DELETE FROM annotations WHERE doc_id = ?")) {
                    delete.setInt(1, docId);
                    delete.executeUpdate();
                }
                try (PreparedStatement insert = db.prepareStatement(
                        "INSERT INTO annotations (doc_id, span_begin, span_end, label) VALUES (?, ?, ?, ?)")) {
                    for (Span span : aligned) {
                        insert.setInt(1, docId);
                        insert.setInt(2, span.begin());
                        insert.setInt(3, span.end());
                        insert.setString(4, span.label());
                        insert.addBatch();
                    }
                    insert.executeBatch();
                }
                try (PreparedStatement update = db.prepareStatement(
                        "UPDATE documents SET length = ?, annotation_count = ?, status = 'aligned' WHERE doc_id = ?")) {
                    update.setInt(1, document.changed().getBytes(StandardCharsets.UTF_8).length);
                    update.setInt(2, aligned.size());
                    update.setInt(3, docId);
                    update.executeUpdate();
                }
                // Back to auto-commit commits the transaction; for sqlite-jdbc it also avoids the
                // empty BEGIN IMMEDIATE (and its write lock) that commit() opens straight after.
                db.setAutoCommit(true);
            } catch (SQLException | RuntimeException e) {
                db.rollback();
                db.setAutoCommit(true);
                throw e;
            }
            ioNs.add(System.nanoTime() - start);
        }

        /** All three steps on one connection, which the caller holds throughout. */
        void processHolding(int docId, Connection db) throws Exception {
            List<Span> spans = new ArrayList<>();
            Document document = read(docId, db, spans);
            write(docId, document, align(document, spans), db);
        }
    }

    /** Runs RESET_JOB on a connection of its own, all or nothing. */
    static void resetJob(String url) throws SQLException {
        try (Connection db = open(url); java.sql.Statement statement = db.createStatement()) {
            db.setAutoCommit(false);
            try {
                for (String sql : RESET_JOB) {
                    statement.executeUpdate(sql);
                }
                db.commit();
            } catch (SQLException | RuntimeException e) {
                db.rollback();
                throw e;
            }
        }
    }

    static List<Integer> pendingDocuments(Connection db) throws SQLException {
        List<Integer> ids = new ArrayList<>();
        try (PreparedStatement select = db.prepareStatement(
                "SELECT doc_id FROM documents WHERE status = 'pending' ORDER BY doc_id");
             ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                ids.add(rows.getInt(1));
            }
        }
        return ids;
    }

    static String annotationsDigest(Connection db) throws SQLException {
        long sum = 0;
        try (PreparedStatement select = db.prepareStatement(
                "SELECT doc_id, span_begin, span_end, label FROM annotations");
             ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                sum += Digest.fnv1a64(rows.getInt(1) + ":" + rows.getInt(2) + ":" + rows.getInt(3) + ":"
                        + rows.getString(4));
            }
        }
        return Digest.digestHex(sum);
    }

    /** A document's work, which does I/O and so may throw, as the chunk body a runner takes. */
    private interface DocumentWork {
        void process(int docId) throws Exception;
    }

    private static IntConsumer eachDocument(List<Integer> docIds, DocumentWork work) {
        return index -> {
            try {
                work.process(docIds.get(index));
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("document " + docIds.get(index) + ": " + e.getMessage(), e);
            }
        };
    }

    /** seq: one connection held for every document, in doc_id order. */
    static Workers.Log runSequential(Job job, List<Integer> docIds, ConnectionPool connections) throws Exception {
        Connection db = connections.borrow();
        try {
            return Workers.sequential().run(docIds.size(), eachDocument(docIds, docId -> job.processHolding(docId, db)));
        } finally {
            connections.giveBack(db);
        }
    }

    /** threads: the team's fixed pool, one task per document, a connection held per document. */
    static Workers.Log runThreads(Job job, List<Integer> docIds, ConnectionPool connections,
            Workers.ChunkRunner threads) throws Exception {
        return threads.run(docIds.size(), eachDocument(docIds, docId -> {
            Connection db = connections.borrow();
            try {
                job.processHolding(docId, db);
            } finally {
                connections.giveBack(db);
            }
        }));
    }

    /** virtual-threads: one per document; a pooled connection for the read, none while aligning, one for the write. */
    static Workers.Log runVirtualThreads(Job job, List<Integer> docIds, ConnectionPool connections,
            Workers.ChunkRunner virtualThreads) throws Exception {
        return virtualThreads.run(docIds.size(), eachDocument(docIds, docId -> {
            List<Span> spans = new ArrayList<>();
            Document document;
            Connection db = connections.borrow();
            try {
                document = job.read(docId, db, spans);
            } finally {
                connections.giveBack(db);
            }
            List<Span> aligned = job.align(document, spans);
            db = connections.borrow();
            try {
                job.write(docId, document, aligned, db);
            } finally {
                connections.giveBack(db);
            }
        }));
    }

    /**
     * Loads the database driver (sqlite-jdbc unpacks and loads its native library on first
     * use): library loading is start-up, kept off the clock; opening connections is not.
     */
    static void loadDriver(String url) throws Exception {
        if (url.startsWith("sqlite:")) {
            org.sqlite.SQLiteJDBCLoader.initialize();
        } else {
            Class.forName("org.postgresql.Driver");
        }
    }

    /** The model's way of running documents, with the team's workers (made per run when cold). */
    static Workers.ChunkRunner runnerOf(String model, Workers.Team team) {
        return switch (model) {
            case "seq" -> Workers.sequential();
            case "threads" -> team.fixedThreadPool();
            case "virtual-threads" -> team.virtualThreadPerChunk();
            default -> throw new IllegalStateException(model);
        };
    }

    /** One run of the job: connections opened, work list read, every document done, connections closed. */
    static Workers.Log runJob(String model, Job job, String url, int connectionCount, Workers.ChunkRunner runner,
            List<Integer> docIds) throws Exception {
        try (ConnectionPool connections = new ConnectionPool(url, connectionCount)) {
            Connection first = connections.borrow();
            try {
                docIds.addAll(pendingDocuments(first));
            } finally {
                connections.giveBack(first);
            }
            return switch (model) {
                case "seq" -> runSequential(job, docIds, connections);
                case "threads" -> runThreads(job, docIds, connections, runner);
                case "virtual-threads" -> runVirtualThreads(job, docIds, connections, runner);
                default -> throw new IllegalStateException(model);
            };
        }
    }

    @Override
    public PreparedCase prepare(String model, Protocol.Args args, Workers.Team team) throws Exception {
        int workers = team.size();
        Path docsDir = Path.of(args.string("docs-dir"));
        if (!Files.isDirectory(docsDir)) {
            throw new Protocol.BadArguments("--docs-dir " + docsDir + " is not a directory");
        }
        String url = args.string("db");
        int connectionCount = switch (model) {
            case "seq" -> 1;
            case "threads" -> workers;
            default -> args.count("connections", 4 * workers, 1);
        };
        args.choice("kernel", "portable", List.copyOf(kernels().keySet()));
        loadDriver(url);
        Workers.ChunkRunner runner = runnerOf(model, team);
        boolean parallel = !model.equals("seq");

        Map<String, Object> extra = new LinkedHashMap<>();
        if (parallel) {
            extra.put("workers", workers);
        }
        extra.put("connections", connectionCount);
        extra.put("db", url.startsWith("sqlite:") ? "sqlite" : "postgresql");
        extra.put("kernel", "portable");
        extra.put("kernel_detail", PORTABLE_DETAIL);
        return new PreparedCase() {
            private boolean first = true;

            @Override
            public Protocol.Repetition run(Protocol.Rep rep) throws Exception {
                // Before the clock, so it is the repetition's prepare_ns; the first finds a fresh database.
                if (!first) {
                    resetJob(url);
                }
                first = false;
                Job job = new Job(docsDir);
                List<Integer> docIds = new ArrayList<>();
                rep.start();
                Workers.Log log = runJob(model, job, url, connectionCount, runner, docIds);
                long ns = rep.stop();
                String checksum;
                try (Connection db = open(url)) {
                    checksum = annotationsDigest(db);
                }
                Map<String, Object> figures = new LinkedHashMap<>();
                if (parallel) {
                    figures.put("chunks", docIds.size());
                    figures.put("workers_used", log.workersUsed());
                    figures.put("busy", log.busy(rep.origin()));
                }
                rep.checksummed();
                figures.put("cpu_ns", job.cpuNs.sum());
                figures.put("io_ns", job.ioNs.sum());
                return new Protocol.Repetition(ns, docIds.size(), checksum, figures);
            }

            @Override
            public Map<String, Object> extra() {
                return extra;
            }
        };
    }
}
