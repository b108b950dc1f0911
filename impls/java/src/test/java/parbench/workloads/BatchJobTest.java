package parbench.workloads;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import parbench.Protocol;
import parbench.Workload;

/** batch-job's spec: the LCS offset map and its tie-break, span dropping, and every model agreeing on SQLite. */
class BatchJobTest {
    private static int[] offsets(String old, String changed) {
        return BatchJob.offsetMap(old.getBytes(StandardCharsets.US_ASCII), changed.getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void unchangedTextMapsEveryOffsetToItself() {
        assertArrayEquals(new int[] {0, 1, 2, 3}, offsets("abc", "abc"));
    }

    @Test
    void theEndOfOldMapsToTheLengthOfNew() {
        assertEquals(4, offsets("abc", "abxc")[3]);
    }

    @Test
    void anUnmatchedByteTakesTheOffsetOfTheNextMatchedOne() {
        assertArrayEquals(new int[] {0, 1, 1, 2}, offsets("abc", "ac"));
    }

    @Test
    void tiesStepInOldFirst() {
        // "ab" vs "ba": both ways keep LCS 1; stepping in old first matches old's 'b' to new's 'b'.
        assertArrayEquals(new int[] {0, 0, 2}, offsets("ab", "ba"));
    }

    @Test
    void aSpanThatCollapsesIsDropped() {
        byte[] old = "abc".getBytes(StandardCharsets.US_ASCII);
        byte[] changed = "ac".getBytes(StandardCharsets.US_ASCII);
        List<BatchJob.Span> aligned = BatchJob.align(old, changed,
                List.of(new BatchJob.Span(1, 2, "gone"), new BatchJob.Span(0, 3, "kept")));
        assertEquals(List.of(new BatchJob.Span(0, 2, "kept")), aligned);
    }

    /** A small job in the harness's layout: one JSON file per document and a fresh SQLite database. */
    private static Path makeJob(Path dir, int docs, int textLength, int annotations, long seed) throws Exception {
        Random random = new Random(seed);
        Path docsDir = Files.createDirectories(dir.resolve("docs"));
        Path db = dir.resolve("job.sqlite");
        try (Connection connection = BatchJob.open("sqlite:" + db); Statement schema = connection.createStatement()) {
            schema.execute("CREATE TABLE documents (doc_id INTEGER PRIMARY KEY, length INTEGER, "
                    + "annotation_count INTEGER, status TEXT)");
            schema.execute("CREATE TABLE annotations (id INTEGER PRIMARY KEY, doc_id INTEGER, span_begin INTEGER, "
                    + "span_end INTEGER, label TEXT)");
            for (int id = 1; id <= docs; id++) {
                String old = words(random, textLength);
                String changed = edit(random, old);
                Files.writeString(docsDir.resolve(id + ".json"), "{\"id\": " + id + ", \"old\": \"" + old
                        + "\", \"new\": \"" + changed + "\"}");
                try (PreparedStatement insert = connection.prepareStatement(
                        "INSERT INTO documents VALUES (?, ?, ?, 'pending')")) {
                    insert.setInt(1, id);
                    insert.setInt(2, old.length());
                    insert.setInt(3, annotations);
                    insert.executeUpdate();
                }
                for (int a = 0; a < annotations; a++) {
                    int begin = random.nextInt(old.length());
                    int end = begin + 1 + random.nextInt(Math.min(30, old.length() - begin));
                    try (PreparedStatement insert = connection.prepareStatement(
                            "INSERT INTO annotations (doc_id, span_begin, span_end, label) VALUES (?, ?, ?, ?)")) {
                        insert.setInt(1, id);
                        insert.setInt(2, begin);
                        insert.setInt(3, end);
                        insert.setString(4, "label" + random.nextInt(5));
                        insert.executeUpdate();
                    }
                }
            }
            // The harness's fresh database also holds the starting rows, for the reset between repetitions.
            schema.execute("CREATE TABLE pristine_documents AS SELECT * FROM documents");
            schema.execute("CREATE TABLE pristine_annotations AS "
                    + "SELECT doc_id, span_begin, span_end, label FROM annotations");
        }
        return db;
    }

    private static String words(Random random, int length) {
        StringBuilder text = new StringBuilder();
        while (text.length() < length) {
            text.append("lorem ipsum dolor sit amet consectetur".split(" ")[random.nextInt(6)]).append(' ');
        }
        return text.substring(0, length);
    }

    private static String edit(Random random, String old) {
        List<String> words = new ArrayList<>(List.of(old.split(" ")));
        for (int i = 0; i < words.size(); i++) {
            if (random.nextInt(20) == 0) {
                words.set(i, random.nextBoolean() ? "" : "changed");
            }
        }
        return String.join(" ", words);
    }

    private static Protocol.Repetition runModel(Path dir, String model, long seed) throws Exception {
        Path jobDir = Files.createDirectories(dir.resolve(model));
        Path db = makeJob(jobDir, 12, 300, 15, seed);
        Protocol.Args args = Protocol.Args.parse(List.of(
                "--docs-dir", jobDir.resolve("docs").toString(), "--db", "sqlite:" + db));
        return new BatchJob().prepare(model, args, 3).run();
    }

    @ParameterizedTest(name = "seed {0}")
    @CsvSource({"1", "42"})
    void everyModelAgreesWithSeq(long seed, @TempDir Path dir) throws Exception {
        Protocol.Repetition expected = runModel(dir, "seq", seed);
        assertEquals(12, expected.items());
        for (String model : List.of("threads", "virtual-threads")) {
            Protocol.Repetition repetition = runModel(dir, model, seed);
            assertEquals(expected.checksum(), repetition.checksum(), model);
            assertEquals(12, repetition.items(), model);
        }
    }

    @Test
    void everyRepetitionButTheFirstStartsFromTheStartingRows(@TempDir Path dir) throws Exception {
        for (String model : List.of("seq", "threads", "virtual-threads")) {
            Path jobDir = Files.createDirectories(dir.resolve(model));
            Path db = makeJob(jobDir, 12, 300, 15, 7);
            Protocol.Args args = Protocol.Args.parse(List.of(
                    "--docs-dir", jobDir.resolve("docs").toString(), "--db", "sqlite:" + db));
            Workload.PreparedCase job = new BatchJob().prepare(model, args, 3);
            Protocol.Repetition first = job.run();
            for (int rep = 1; rep < 3; rep++) {
                Protocol.Repetition again = job.run();
                // Without the reset a later repetition finds no pending document.
                assertEquals(12, again.items(), model + " rep " + rep);
                assertEquals(first.checksum(), again.checksum(), model + " rep " + rep);
            }
            try (Connection connection = BatchJob.open("sqlite:" + db); Statement query = connection.createStatement();
                 ResultSet pristine = query.executeQuery("SELECT (SELECT count(*) FROM pristine_documents "
                         + "WHERE status = 'pending'), (SELECT count(*) FROM pristine_annotations)")) {
                pristine.next();
                assertEquals(12, pristine.getInt(1), model + ": pristine documents");
                assertEquals(12 * 15, pristine.getInt(2), model + ": pristine annotations");
            }
        }
    }
}
