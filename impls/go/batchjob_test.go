package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestIdenticalTextsMapEveryOffsetToItself(t *testing.T) {
	got := lcsOffsetMap([]byte("abc def"), []byte("abc def"))
	if !slices.Equal(got, []int{0, 1, 2, 3, 4, 5, 6, 7}) {
		t.Fatalf("got %v", got)
	}
}

func TestMapOfTheEndIsTheLengthOfNew(t *testing.T) {
	got := lcsOffsetMap([]byte("xyz"), []byte("hello"))
	if !slices.Equal(got, []int{5, 5, 5, 5}) {
		t.Fatalf("no common byte: got %v", got)
	}
}

func TestTiesStepOldFirst(t *testing.T) {
	// dp[1][0] = dp[0][1] = 1 at (0,0): the walk steps i, so 'b' matches and 'a' does not.
	got := lcsOffsetMap([]byte("ab"), []byte("ba"))
	if !slices.Equal(got, []int{0, 0, 2}) {
		t.Fatalf("got %v", got)
	}
}

func TestInsertedWordShiftsLaterSpans(t *testing.T) {
	old, new := []byte("alpha beam"), []byte("alpha core beam")
	aligned := alignAnnotations(old, new, []annotation{{0, 5, "A"}, {6, 10, "B"}})
	want := []annotation{{0, 5, "A"}, {11, 15, "B"}}
	if !slices.Equal(aligned, want) {
		t.Fatalf("got %v, want %v", aligned, want)
	}
}

func TestDeletedSpanIsDropped(t *testing.T) {
	old, new := []byte("alpha zzzz beam"), []byte("alpha beam")
	aligned := alignAnnotations(old, new, []annotation{{6, 10, "GONE"}, {11, 15, "KEPT"}})
	if len(aligned) != 1 || aligned[0].Label != "KEPT" || aligned[0] != (annotation{6, 10, "KEPT"}) {
		t.Fatalf("got %v", aligned)
	}
}

// makeBatchInput writes documents and a fresh SQLite database in the protocol's shape.
func makeBatchInput(t *testing.T, docs int) (docsDir, dbURL string) {
	t.Helper()
	dir := t.TempDir()
	docsDir = filepath.Join(dir, "docs")
	os.Mkdir(docsDir, 0o755)
	path := filepath.Join(dir, "job.sqlite")
	// WAL from the start, as the harness writes it: workers that switch a rollback-journal database to WAL at once can deadlock, and SQLite answers "locked" without waiting.
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	schema := `CREATE TABLE documents(doc_id INTEGER PRIMARY KEY, length INTEGER NOT NULL,
	             annotation_count INTEGER NOT NULL, status TEXT NOT NULL);
	           CREATE TABLE annotations(id INTEGER PRIMARY KEY, doc_id INTEGER NOT NULL,
	             span_begin INTEGER NOT NULL, span_end INTEGER NOT NULL, label TEXT NOT NULL);`
	if _, err := db.Exec(schema); err != nil {
		t.Fatal(err)
	}
	words := strings.Fields("alpha beam core delta edge flow graph heap index join kernel lock")
	for id := range docs {
		random := splitmix64Bytes(nil, uint64(id), 0, 400)
		var oldWords, newWords []string
		for k, r := range random[:120] {
			word := words[int(r)%len(words)]
			oldWords = append(oldWords, word)
			switch random[120+k] % 20 { // about 5 % of the words edited, as the spec's inputs are
			case 0:
				newWords = append(newWords, words[int(random[240+k])%len(words)], word)
			case 1:
			case 2:
				newWords = append(newWords, words[int(random[240+k])%len(words)])
			default:
				newWords = append(newWords, word)
			}
		}
		doc := document{ID: int64(id), Old: strings.Join(oldWords, " "), New: strings.Join(newWords, " ")}
		raw, _ := json.Marshal(doc)
		os.WriteFile(filepath.Join(docsDir, fmt.Sprintf("%d.json", id)), raw, 0o644)
		db.Exec("INSERT INTO documents VALUES ($1, $2, 15, 'pending')", id, len(doc.Old))
		for k := range 15 {
			begin := int(random[360+k]) * len(doc.Old) / 256
			db.Exec("INSERT INTO annotations(doc_id, span_begin, span_end, label) VALUES ($1, $2, $3, $4)",
				id, begin, min(begin+int(random[375+k]%20)+1, len(doc.Old)), fmt.Sprintf("L%d", k%4))
		}
	}
	// The harness's fresh database also holds the starting rows, for the reset between repetitions.
	if _, err := db.Exec(`CREATE TABLE pristine_documents AS SELECT * FROM documents;
	           CREATE TABLE pristine_annotations AS SELECT doc_id, span_begin, span_end, label FROM annotations;`); err != nil {
		t.Fatal(err)
	}
	return docsDir, "sqlite:" + path
}

func TestEveryBatchModelGivesTheSameDatabase(t *testing.T) {
	var want string
	for _, model := range batchJobWorkload.Models {
		docsDir, dbURL := makeBatchInput(t, 12)
		args := testArgs(t, "batch-job", model, 3, "--docs-dir", docsDir, "--db", dbURL)
		result := runOnce(t, args)
		if result.Items != 12 {
			t.Errorf("%s: %d documents", model, result.Items)
		}
		if want == "" {
			want = result.Checksum
		} else if result.Checksum != want {
			t.Errorf("%s: %s, want %s (seq)", model, result.Checksum, want)
		}
		db, _, _ := openDatabase(dbURL)
		var pending int
		db.QueryRowContext(context.Background(), "SELECT count(*) FROM documents WHERE status <> 'aligned'").Scan(&pending)
		db.Close()
		if pending != 0 {
			t.Errorf("%s: %d documents not aligned", model, pending)
		}
	}
}

func TestBoundedPoolUsesEveryWorkerOneDocumentAChunk(t *testing.T) {
	docsDir, dbURL := makeBatchInput(t, 12)
	extra := runOnce(t, testArgs(t, "batch-job", "goroutines", 3, "--docs-dir", docsDir, "--db", dbURL)).Extra
	if extra["workers"] != 3 || extra["chunk"] != 1 || extra["chunks"] != 12 || extra["workers_used"] != 3 {
		t.Fatalf("extra %v; want 3 workers, chunk 1, 12 chunks, 3 used", extra)
	}
}

func TestPerDocumentModelCountsItsAligningThreads(t *testing.T) {
	docsDir, dbURL := makeBatchInput(t, 12)
	extra := runOnce(t, testArgs(t, "batch-job", "goroutine-per-doc", 0, "--docs-dir", docsDir, "--db", dbURL)).Extra
	if used, _ := extra["workers_used"].(int); extra["chunks"] != 12 || used < 1 || used > 12 {
		t.Fatalf("extra %v; want 12 chunks and 1..12 threads", extra)
	}
}

func TestEveryRepetitionButTheFirstRestoresTheStartingRows(t *testing.T) {
	for _, model := range batchJobWorkload.Models {
		docsDir, dbURL := makeBatchInput(t, 12)
		repetition, err := batchJobWorkload.Prepare(testArgs(t, "batch-job", model, 3, "--docs-dir", docsDir, "--db", dbURL))
		if err != nil {
			t.Fatal(err)
		}
		var want string
		for rep := range 3 {
			timer := &Timer{}
			result, err := repetition(timer)
			if err != nil {
				t.Fatalf("%s rep %d: %v", model, rep, err)
			}
			// Without the reset the second repetition finds no pending document.
			if result.Items != 12 {
				t.Errorf("%s rep %d: %d documents, want 12", model, rep, result.Items)
			}
			if rep == 0 {
				want = result.Checksum
				if result.Extra["prepare_ns"] != int64(0) || timer.phases["prepare_ns"] != 0 {
					t.Errorf("%s: first repetition reports prepare_ns %v / %v, want 0", model, result.Extra["prepare_ns"], timer.phases)
				}
				continue
			}
			if result.Checksum != want {
				t.Errorf("%s rep %d: checksum %s, want %s", model, rep, result.Checksum, want)
			}
			if timer.phases["prepare_ns"] <= 0 {
				t.Errorf("%s rep %d: prepare_ns %v, want the reset's time", model, rep, timer.phases)
			}
		}
	}
}

func TestTheResetLeavesThePristineRowsAsTheyWere(t *testing.T) {
	docsDir, dbURL := makeBatchInput(t, 4)
	repetition, err := batchJobWorkload.Prepare(testArgs(t, "batch-job", "seq", 0, "--docs-dir", docsDir, "--db", dbURL))
	if err != nil {
		t.Fatal(err)
	}
	repetition(&Timer{})
	repetition(&Timer{})
	db, _, _ := openDatabase(dbURL)
	defer db.Close()
	var pending, pristine int
	db.QueryRow("SELECT count(*) FROM pristine_documents WHERE status = 'pending'").Scan(&pending)
	db.QueryRow("SELECT count(*) FROM pristine_annotations").Scan(&pristine)
	if pending != 4 || pristine != 4*15 {
		t.Fatalf("pristine tables hold %d pending documents and %d annotations, want 4 and 60", pending, pristine)
	}
}
