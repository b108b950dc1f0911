// batch-job: re-align each document's annotations (LCS, CPU) and store them in SQLite or PostgreSQL (I/O).
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	_ "github.com/mattn/go-sqlite3"    // registers the "sqlite3" driver, linked to Debian's libsqlite3
)

// resetJob gives the job its starting rows back from the harness's pristine copies, before every
// repetition but the process's first (docs/protocol.md, batch-job): one transaction, one
// connection, the same text on SQLite and PostgreSQL. The annotations go back in one order so
// that their ids come out the same every time.
const resetJob = `DELETE FROM annotations;
INSERT INTO annotations (doc_id, span_begin, span_end, label)
    SELECT doc_id, span_begin, span_end, label FROM pristine_annotations ORDER BY doc_id, span_begin, span_end, label;
DELETE FROM documents;
INSERT INTO documents (doc_id, length, annotation_count, status)
    SELECT doc_id, length, annotation_count, status FROM pristine_documents;`

// rowsPerInsert keeps one multi-row INSERT under SQLite's bound-parameter limit (4 per row).
const rowsPerInsert = 200

var batchJobWorkload = &Workload{
	Name:   "batch-job",
	Params: []Param{{"docs-dir", "", false}, {"db", "", false}, {"max-conns", "", true}, {"kernel", "", true}},
	Models: []string{"seq", "goroutines", "goroutine-per-doc"},
	ModelInfo: map[string]Model{
		"seq": {Family: "seq", Note: "one connection, one document after another"},
		"goroutines": {Family: "green", Workers: true,
			Note:             "bounded: a fixed pool of --workers goroutines, each opening its own connection at its first document, taking one document at a time",
			Start:            map[string]string{"warm": poolWithConnections},
			StartUnavailable: map[string]string{"cold": goroutinesAlwaysWarm}},
		"goroutine-per-doc": {Family: "green",
			Note: "one goroutine per document sharing database/sql's pool; --max-conns caps it (default: unlimited for SQLite, 64 for PostgreSQL, under its max_connections of 100)",
			StartUnavailable: map[string]string{"cold": unitsAreGoroutines,
				"warm": "its units are one goroutine per document, made for that document: there is nothing to make " +
					"before the ready line (the warm pool is the goroutines model)"}},
	},
	Prepare: prepareBatchJob,
	Kernels: func() map[string]string { return map[string]string{"portable": referenceTransliterated} },
}

// poolWithConnections is what the goroutines model's warm start makes (--list).
const poolWithConnections = poolMadeOnce + "; the connections are opened and closed inside each repetition, " +
	"as the spec's timed region says"

// annotation is one span on a text: [Begin, End) with a label.
type annotation struct {
	Begin, End int
	Label      string
}

type document struct {
	ID  int64  `json:"id"`
	Old string `json:"old"`
	New string `json:"new"`
}

// jobTiming sums the alignment (CPU) and file/database (I/O) time over documents, and notes
// which OS threads ran an alignment.
type jobTiming struct {
	cpuNs, ioNs  atomic.Int64
	alignThreads sync.Map // thread id -> true
	busy         *busyLog // the pool's workers (goroutines model only)
}

// querier is what a document's work needs: a pooled *sql.DB or a dedicated *sql.Conn.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
}

// openDatabase understands the protocol's sqlite:PATH and postgresql:// URLs.
func openDatabase(url string) (*sql.DB, string, error) {
	if path, ok := strings.CutPrefix(url, "sqlite:"); ok {
		// WAL + synchronous=FULL so commits reach the disk; immediate transactions and a long busy
		// timeout so concurrent writers wait for the lock instead of failing.
		dsn := "file:" + path + "?_journal_mode=WAL&_synchronous=FULL&_busy_timeout=600000&_txlock=immediate"
		db, err := sql.Open("sqlite3", dsn)
		return db, "sqlite", err
	}
	if strings.HasPrefix(url, "postgresql://") || strings.HasPrefix(url, "postgres://") {
		db, err := sql.Open("pgx", url)
		return db, "postgresql", err
	}
	return nil, "", usagef("--db must be sqlite:PATH or postgresql://user:pass@host:port/db, got %q", url)
}

// batchProcess runs the case's model over the work list on an open database.
type batchProcess func(db *sql.DB, ids []int64, timing *jobTiming) (map[string]any, error)

func prepareBatchJob(args *Args) (Repetition, error) {
	docsDir, url := args.String("docs-dir"), args.String("db")
	if _, err := kernelClass(args, false); err != nil { // before touching the database
		return nil, err
	}
	args.Extra["kernel_detail"] = referenceTransliterated
	if info, err := os.Stat(docsDir); err != nil || !info.IsDir() {
		return nil, usagef("--docs-dir %q is not a directory", docsDir)
	}
	kind, err := checkDatabase(url)
	if err != nil {
		return nil, err
	}
	args.Extra["db"] = kind
	var pool *workerPool
	if args.Model == "goroutines" {
		pool = startWarmPool(args, args.Workers)
	}
	maxConns, process, err := batchModel(args, kind, docsDir, pool)
	if err != nil {
		return nil, err
	}
	args.Extra["max_conns"] = maxConns
	repetitions := 0
	return func(timer *Timer) (Result, error) {
		if repetitions++; repetitions > 1 {
			var err error
			timer.Phase("prepare", func() { err = resetDatabase(url) })
			if err != nil {
				return Result{}, fmt.Errorf("resetting the job: %w", err)
			}
		}
		timing := &jobTiming{}
		timer.Start()
		if args.Model == "goroutines" {
			timing.busy = newBusyLog(timer.started, args.Workers)
		}
		ids, extra, err := runBatch(url, maxConns, process, timing)
		timer.Stop()
		if err != nil {
			return Result{}, classifyDatabaseError(err)
		}
		var checksum string
		timer.Phase("checksum", func() { checksum, err = annotationsDigest(url) })
		if err != nil {
			return Result{}, err
		}
		extra["cpu_ns"], extra["io_ns"] = timing.cpuNs.Load(), timing.ioNs.Load()
		if repetitions == 1 {
			extra["prepare_ns"] = int64(0) // a fresh database: nothing to restore
		}
		if timing.busy != nil {
			extra["busy"] = timing.busy.intervals()
		}
		return Result{Items: int64(len(ids)), Checksum: checksum, Extra: extra}, nil
	}, nil
}

// resetDatabase runs resetJob on a connection of its own, all or nothing. database/sql runs a
// transaction on one connection; both drivers run several statements in one Exec without arguments.
func resetDatabase(url string) error {
	db, _, err := openDatabase(url)
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback() // a no-op after Commit
	if _, err := tx.Exec(resetJob); err != nil {
		return err
	}
	return tx.Commit()
}

// checkDatabase connects once before the timed region, so a wrong URL is reported at once;
// that connection is closed again: the timed region opens its own.
func checkDatabase(url string) (string, error) {
	db, kind, err := openDatabase(url)
	if err != nil {
		return "", err
	}
	defer db.Close()
	if err := db.Ping(); err != nil {
		return "", classifyDatabaseError(fmt.Errorf("cannot connect to --db: %w", err))
	}
	return kind, nil
}

// batchModel picks the model's connection cap (0 = unlimited) and its way through the work list.
func batchModel(args *Args, kind, docsDir string, pool *workerPool) (int, batchProcess, error) {
	ctx := context.Background()
	maxConns := 0
	if args.String("max-conns") != "" {
		var err error
		if maxConns, err = args.Int("max-conns"); err != nil {
			return 0, nil, err
		}
	} else if args.Model == "goroutine-per-doc" && kind == "postgresql" {
		maxConns = 64
	}
	switch args.Model {
	case "seq":
		return 1, func(db *sql.DB, ids []int64, timing *jobTiming) (map[string]any, error) {
			for _, id := range ids {
				if err := processDocument(ctx, db, docsDir, id, timing); err != nil {
					return nil, err
				}
			}
			return map[string]any{}, nil
		}, nil
	case "goroutines":
		if maxConns == 0 || maxConns > args.Workers {
			maxConns = args.Workers
		}
		return maxConns, func(db *sql.DB, ids []int64, timing *jobTiming) (map[string]any, error) {
			return processBounded(ctx, db, docsDir, ids, pool, timing)
		}, nil
	default: // goroutine-per-doc
		return maxConns, func(db *sql.DB, ids []int64, timing *jobTiming) (map[string]any, error) {
			return processOnePerDocument(ctx, db, docsDir, ids, timing)
		}, nil
	}
}

// runBatch is the timed region: open the database, read the work list, process every document,
// and close every connection.
func runBatch(url string, maxConns int, process batchProcess, timing *jobTiming) ([]int64, map[string]any, error) {
	db, _, err := openDatabase(url)
	if err != nil {
		return nil, nil, err
	}
	db.SetMaxOpenConns(maxConns) // 0 means unlimited in database/sql
	db.SetMaxIdleConns(max(maxConns, 2))
	ids, err := pendingDocuments(context.Background(), db)
	var extra map[string]any
	if err == nil {
		extra, err = process(db, ids, timing)
	}
	return ids, extra, errors.Join(err, db.Close())
}

// classifyDatabaseError turns the server's or the OS's "no more connections" into a limit result.
func classifyDatabaseError(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "53300" { // too_many_connections
		return &LimitError{Detail: pgErr.Error()}
	}
	if strings.Contains(err.Error(), "too many open files") {
		return &LimitError{Detail: err.Error()}
	}
	return err
}

func pendingDocuments(ctx context.Context, db querier) ([]int64, error) {
	rows, err := db.QueryContext(ctx, "SELECT doc_id FROM documents WHERE status = 'pending' ORDER BY doc_id")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// processBounded gives each of the pool's goroutines its own connection, opened when it takes
// its first document; documents are handed out one at a time (one document is one chunk).
func processBounded(ctx context.Context, db *sql.DB, docsDir string, ids []int64, pool *workerPool, timing *jobTiming) (map[string]any, error) {
	plan := planChunks(len(ids), pool.workers(), 1, 0)
	conns := make([]*sql.Conn, pool.workers())
	errs := make([]error, pool.workers())
	run := pool.run(plan, timing.busy, func(worker, start, _ int) {
		if errs[worker] != nil {
			return // after a failure the worker only drains its chunks
		}
		if conns[worker] == nil {
			if conns[worker], errs[worker] = db.Conn(ctx); errs[worker] != nil {
				return
			}
		}
		errs[worker] = processDocument(ctx, conns[worker], docsDir, ids[start], timing)
	})
	for _, conn := range conns {
		if conn != nil {
			errs = append(errs, conn.Close())
		}
	}
	return plan.extra(run), errors.Join(errs...)
}

// processOnePerDocument starts one goroutine per document; as its workers it counts the
// distinct OS threads that ran an alignment (goroutines have no identity of their own).
func processOnePerDocument(ctx context.Context, db *sql.DB, docsDir string, ids []int64, timing *jobTiming) (map[string]any, error) {
	errs := make(chan error, len(ids))
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() { errs <- processDocument(ctx, db, docsDir, id, timing) })
	}
	wg.Wait()
	close(errs)
	threads := 0
	timing.alignThreads.Range(func(_, _ any) bool { threads++; return true })
	return map[string]any{"chunks": len(ids), "workers_used": threads}, firstError(errs)
}

func firstError(errs <-chan error) error {
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// processDocument is the spec's three steps for one document: read, align, store in one transaction.
func processDocument(ctx context.Context, db querier, docsDir string, id int64, timing *jobTiming) error {
	ioStart := time.Now()
	doc, spans, err := readDocument(ctx, db, docsDir, id)
	if err != nil {
		return err
	}
	cpuStart := time.Now()
	aligned := alignAnnotations([]byte(doc.Old), []byte(doc.New), spans)
	alignThread := syscall.Gettid()
	storeStart := time.Now()
	if err := storeAligned(ctx, db, id, len(doc.New), aligned); err != nil {
		return err
	}
	done := time.Now()
	timing.alignThreads.Store(alignThread, true)
	timing.cpuNs.Add(storeStart.Sub(cpuStart).Nanoseconds())
	timing.ioNs.Add(cpuStart.Sub(ioStart).Nanoseconds() + done.Sub(storeStart).Nanoseconds())
	return nil
}

func readDocument(ctx context.Context, db querier, docsDir string, id int64) (document, []annotation, error) {
	var doc document
	raw, err := os.ReadFile(filepath.Join(docsDir, fmt.Sprintf("%d.json", id)))
	if err != nil {
		return doc, nil, err
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return doc, nil, fmt.Errorf("document %d: %w", id, err)
	}
	rows, err := db.QueryContext(ctx, "SELECT span_begin, span_end, label FROM annotations WHERE doc_id = $1", id)
	if err != nil {
		return doc, nil, err
	}
	defer rows.Close()
	var spans []annotation
	for rows.Next() {
		var a annotation
		if err := rows.Scan(&a.Begin, &a.End, &a.Label); err != nil {
			return doc, nil, err
		}
		spans = append(spans, a)
	}
	return doc, spans, rows.Err()
}

// storeAligned replaces the document's annotations and marks it aligned, all or nothing.
func storeAligned(ctx context.Context, db querier, id int64, newLength int, aligned []annotation) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() // a no-op after Commit
	if _, err := tx.ExecContext(ctx, "DELETE FROM annotations WHERE doc_id = $1", id); err != nil {
		return err
	}
	for start := 0; start < len(aligned); start += rowsPerInsert {
		batch := aligned[start:min(start+rowsPerInsert, len(aligned))]
		query, values := insertAnnotations(id, batch)
		if _, err := tx.ExecContext(ctx, query, values...); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx,
		"UPDATE documents SET length = $1, annotation_count = $2, status = 'aligned' WHERE doc_id = $3",
		newLength, len(aligned), id); err != nil {
		return err
	}
	return tx.Commit()
}

// insertAnnotations builds one multi-row INSERT: one round trip per document instead of one per row.
func insertAnnotations(id int64, batch []annotation) (string, []any) {
	var query strings.Builder
	query.WriteString("INSERT INTO annotations(doc_id, span_begin, span_end, label) VALUES ")
	values := make([]any, 0, 4*len(batch))
	for i, a := range batch {
		if i > 0 {
			query.WriteString(", ")
		}
		fmt.Fprintf(&query, "($%d, $%d, $%d, $%d)", 4*i+1, 4*i+2, 4*i+3, 4*i+4)
		values = append(values, id, a.Begin, a.End, a.Label)
	}
	return query.String(), values
}

// lcsOffsetMap is the spec's M: where each offset of old (0..len(old)) lands in new, by the
// spec's suffix table and walk (int32 entries: half the memory of int, and a text shorter than
// 2^31 bytes).
func lcsOffsetMap(old, new []byte) []int {
	n, m := len(old), len(new)
	// dp[i][j] = LCS(old[i:], new[j:]); row n and column m stay 0.
	dp := make([][]int32, n+1)
	for i := range dp {
		dp[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if old[i] == new[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	matchedTo := make([]int, n)
	for i := range matchedTo {
		matchedTo[i] = -1
	}
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case old[i] == new[j]:
			matchedTo[i] = j
			i, j = i+1, j+1
		case dp[i+1][j] >= dp[i][j+1]:
			i++
		default:
			j++
		}
	}
	offsets := make([]int, n+1)
	offsets[n] = m
	for i := n - 1; i >= 0; i-- {
		if matchedTo[i] >= 0 {
			offsets[i] = matchedTo[i]
		} else {
			offsets[i] = offsets[i+1]
		}
	}
	return offsets
}

// alignAnnotations moves each span through the offset map and drops those that collapse.
func alignAnnotations(old, new []byte, spans []annotation) []annotation {
	offsets := lcsOffsetMap(old, new)
	aligned := make([]annotation, 0, len(spans))
	for _, a := range spans {
		begin, end := offsets[a.Begin], offsets[a.End]
		if begin < end {
			aligned = append(aligned, annotation{begin, end, a.Label})
		}
	}
	return aligned
}

// annotationsDigest is the checksum: the order-free digest of "doc_id:begin:end:label" over every row.
// It opens its own connection, after the timed region.
func annotationsDigest(url string) (string, error) {
	db, _, err := openDatabase(url)
	if err != nil {
		return "", err
	}
	defer db.Close()
	rows, err := db.QueryContext(context.Background(), "SELECT doc_id, span_begin, span_end, label FROM annotations")
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var sum uint64
	for rows.Next() {
		var id, begin, end int64
		var label string
		if err := rows.Scan(&id, &begin, &end, &label); err != nil {
			return "", err
		}
		sum += fnv1a64(fmt.Appendf(nil, "%d:%d:%d:%s", id, begin, end, label))
	}
	return digestHex(sum), rows.Err()
}
