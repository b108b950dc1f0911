//! batch-job: re-align each document's annotations (LCS, CPU) and rewrite them in a database (I/O).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde_json::{Map, Value};

use crate::digest::OrderFreeDigest;
use crate::parallel::{Chunking, Ran, Shape, TokioWorkers, Workers, RAYON_START};
use crate::protocol::{bad_args, crash, measure, repeat, timed, Busy, Call, Conversation, Failure, Outcome, Ready, Sample};
use crate::workloads::{plain, Model, Workload};

pub const WORKLOAD: Workload = Workload {
    name: "batch-job",
    params: &["docs_dir", "db"],
    models: &[
        plain("seq", "seq"),
        Model {
            name: "threads",
            family: "threads",
            workers: true,
            params: &[],
            note: "bounded pool: --workers OS threads, each opening its own connection in the repetition and taking document ids from a shared queue; cold: std::thread::scope threads spawned and joined in each repetition; warm: threads spawned once before the ready line, handed each repetition's job through a channel each, joined at exit",
            start: THREADS_START,
            detail: "",
            start_unavailable: &[],
        },
        Model {
            name: "rayon",
            family: "data-parallel",
            workers: true,
            params: &[],
            note: "Rayon's own scheduler: par_iter().try_for_each_init over the work list inside pool.install, one connection per Rayon job split, blocking I/O on a ThreadPool of --workers threads; cold: built, dropped and its threads joined in each repetition; warm: one pool built before the ready line",
            start: RAYON_START,
            detail: "",
            start_unavailable: &[],
        },
        Model {
            name: "tokio",
            family: "async",
            workers: true,
            params: &[],
            note: "one tokio task per document; file+DB calls via spawn_blocking on a pool of --workers connections opened in the repetition (rusqlite / sync postgres client), at most --workers blocking threads; alignment on the --workers async threads; cold: the runtime built and shut down in each repetition; warm: built before the ready line with its blocking threads started",
            start: TOKIO_START,
            detail: "",
            start_unavailable: &[],
        },
    ],
    kernels: &[("portable", PORTABLE)],
    run,
};

/// The alignment as the spec reads it; there is no tuned kernel.
const PORTABLE: &str = "reference, transliterated";

const THREADS_START: &[(&str, &str)] = &[
    ("cold", "--workers std::thread::scope threads spawned and joined in each repetition, each opening its connection"),
    ("warm", "--workers std threads spawned before the ready line, handed each repetition's job through a channel each, joined at exit; each opens its connection in the repetition"),
];

const TOKIO_START: &[(&str, &str)] = &[
    ("cold", "a multi-thread tokio runtime (--workers worker threads, up to --workers blocking threads started on demand) built and shut down (threads joined) in each repetition"),
    ("warm", "one multi-thread tokio runtime built before the ready line with its --workers worker threads and --workers blocking threads started; block_on per repetition"),
];

/// The tokio model's threads, workers and blocking ones, as `ps` and /proc show them.
const TOKIO_THREAD_NAME: &str = "batch-tokio";

/// The blocking threads of the tokio model never end while idle: a warm runtime keeps them
/// for every repetition (tokio's default lets an idle one go after 10 s).
const BLOCKING_KEEP_ALIVE: Duration = Duration::from_secs(24 * 3600);

/// Long enough that concurrent SQLite writers queue for the lock instead of failing.
const SQLITE_BUSY_TIMEOUT: Duration = Duration::from_secs(120);

pub type Span = (i64, i64, String);

/// M from the spec: where each offset of `old` lands in `new` (M[len(old)] = len(new)).
/// The portable kernel: docs/workloads/batch-job.md's steps as written.
pub fn lcs_offset_map(old: &[u8], new: &[u8]) -> Vec<i64> {
    let (n, m) = (old.len(), new.len());
    // Suffix table dp[i][j] = LCS(old[i..], new[j..]); row n and column m stay 0.
    let mut dp = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            dp[i][j] = if old[i] == new[j] { dp[i + 1][j + 1] + 1 } else { dp[i + 1][j].max(dp[i][j + 1]) };
        }
    }
    let mut matched_to = vec![None; n];
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if old[i] == new[j] {
            matched_to[i] = Some(j);
            i += 1;
            j += 1;
        } else if dp[i + 1][j] >= dp[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    let mut offset_map = vec![m as i64; n + 1];
    for i in (0..n).rev() {
        offset_map[i] = matched_to[i].map_or(offset_map[i + 1], |j| j as i64);
    }
    offset_map
}

/// The spans moved onto `new`; a span whose ends land on the same offset is dropped.
pub fn align_annotations(old: &[u8], new: &[u8], spans: &[Span]) -> Vec<Span> {
    let offset_map = lcs_offset_map(old, new);
    spans
        .iter()
        .filter_map(|(begin, end, label)| {
            let (b, e) = (offset_map[*begin as usize], offset_map[*end as usize]);
            (b < e).then(|| (b, e, label.clone()))
        })
        .collect()
}

/// The database a job runs against: each concurrent unit opens its own connection.
#[derive(Clone)]
pub enum Database {
    Sqlite(PathBuf),
    Postgres(String),
}

impl Database {
    pub fn from_url(url: &str) -> Outcome<Database> {
        if let Some(path) = url.strip_prefix("sqlite:") {
            Ok(Database::Sqlite(PathBuf::from(path)))
        } else if url.starts_with("postgresql://") || url.starts_with("postgres://") {
            Ok(Database::Postgres(url.to_string()))
        } else {
            Err(bad_args(format!("unknown --db '{url}'; valid: sqlite:PATH, postgresql://user:pass@host:port/db")))
        }
    }

    pub fn connect(&self) -> Outcome<Connection> {
        match self {
            Database::Sqlite(path) => {
                let db = rusqlite::Connection::open(path).map_err(|e| crash("opening SQLite", e))?;
                db.busy_timeout(SQLITE_BUSY_TIMEOUT).map_err(|e| crash("SQLite busy_timeout", e))?;
                db.pragma_update(None, "journal_mode", "WAL").map_err(|e| crash("SQLite WAL", e))?;
                db.pragma_update(None, "synchronous", "FULL").map_err(|e| crash("SQLite synchronous", e))?;
                Ok(Connection::Sqlite(db))
            }
            Database::Postgres(url) => postgres::Client::connect(url, postgres::NoTls)
                .map(|client| Connection::Postgres(Box::new(client)))
                .map_err(|e| connect_failure(url, e)),
        }
    }
}

/// Too many connections is a limit of the server, a result like any other limit.
fn connect_failure(url: &str, error: postgres::Error) -> Failure {
    let text = error.to_string();
    if text.contains("too many") || text.contains("remaining connection slots") {
        Failure::Limit(text)
    } else {
        crash(&format!("connecting to {url}"), text)
    }
}

pub enum Connection {
    Sqlite(rusqlite::Connection),
    Postgres(Box<postgres::Client>),
}

const WORK_LIST: &str = "SELECT doc_id FROM documents WHERE status = 'pending' ORDER BY doc_id";

/// docs/protocol.md, batch-job: the job restored from the harness's pristine tables before every
/// repetition but the process's first, in one transaction (the same text on both databases).
pub const RESET: [&str; 4] = [
    "DELETE FROM annotations",
    "INSERT INTO annotations (doc_id, span_begin, span_end, label) \
     SELECT doc_id, span_begin, span_end, label FROM pristine_annotations ORDER BY doc_id, span_begin, span_end, label",
    "DELETE FROM documents",
    "INSERT INTO documents (doc_id, length, annotation_count, status) \
     SELECT doc_id, length, annotation_count, status FROM pristine_documents",
];

impl Connection {
    pub fn pending_documents(&mut self) -> Outcome<Vec<i64>> {
        match self {
            Connection::Sqlite(db) => {
                let mut query = db.prepare(WORK_LIST).map_err(|e| crash("work list", e))?;
                let ids = query.query_map([], |row| row.get(0)).map_err(|e| crash("work list", e))?;
                ids.collect::<Result<_, _>>().map_err(|e| crash("work list", e))
            }
            Connection::Postgres(client) => {
                let rows = client.query(WORK_LIST, &[]).map_err(|e| crash("work list", e))?;
                Ok(rows.iter().map(|row| row.get::<_, i32>(0) as i64).collect())
            }
        }
    }

    pub fn annotations(&mut self, doc_id: i64) -> Outcome<Vec<Span>> {
        match self {
            Connection::Sqlite(db) => {
                let mut query = db
                    .prepare_cached("SELECT span_begin, span_end, label FROM annotations WHERE doc_id = ?1 ORDER BY id")
                    .map_err(|e| crash("reading annotations", e))?;
                let rows = query
                    .query_map([doc_id], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
                    .map_err(|e| crash("reading annotations", e))?;
                rows.collect::<Result<_, _>>().map_err(|e| crash("reading annotations", e))
            }
            Connection::Postgres(client) => {
                let rows = client
                    .query(
                        "SELECT span_begin, span_end, label FROM annotations WHERE doc_id = $1 ORDER BY id",
                        &[&(doc_id as i32)],
                    )
                    .map_err(|e| crash("reading annotations", e))?;
                Ok(rows.iter().map(|r| (r.get::<_, i32>(0) as i64, r.get::<_, i32>(1) as i64, r.get(2))).collect())
            }
        }
    }

    /// RESET in one transaction: the job as the harness made it.
    pub fn restore_job(&mut self) -> Outcome<()> {
        match self {
            Connection::Sqlite(db) => {
                let tx = db
                    .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                    .map_err(|e| crash("begin", e))?;
                for statement in RESET {
                    tx.execute(statement, []).map_err(|e| crash("reset", e))?;
                }
                tx.commit().map_err(|e| crash("commit", e))
            }
            Connection::Postgres(client) => {
                let mut tx = client.transaction().map_err(|e| crash("begin", e))?;
                for statement in RESET {
                    tx.execute(statement, &[]).map_err(|e| crash("reset", e))?;
                }
                tx.commit().map_err(|e| crash("commit", e))
            }
        }
    }

    /// One transaction: the old annotations out, the aligned ones in, the document marked aligned.
    pub fn store_aligned(&mut self, doc_id: i64, new_length: usize, aligned: &[Span]) -> Outcome<()> {
        match self {
            Connection::Sqlite(db) => {
                // IMMEDIATE takes the write lock up front: a deferred transaction that upgrades
                // later can fail with SQLITE_BUSY instead of waiting out the busy timeout.
                let tx = db
                    .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                    .map_err(|e| crash("begin", e))?;
                tx.execute("DELETE FROM annotations WHERE doc_id = ?1", [doc_id]).map_err(|e| crash("delete", e))?;
                {
                    let mut insert = tx
                        .prepare_cached("INSERT INTO annotations(doc_id, span_begin, span_end, label) VALUES (?1, ?2, ?3, ?4)")
                        .map_err(|e| crash("insert", e))?;
                    for (begin, end, label) in aligned {
                        insert.execute(rusqlite::params![doc_id, begin, end, label]).map_err(|e| crash("insert", e))?;
                    }
                }
                tx.execute(
                    "UPDATE documents SET length = ?1, annotation_count = ?2, status = 'aligned' WHERE doc_id = ?3",
                    rusqlite::params![new_length as i64, aligned.len() as i64, doc_id],
                )
                .map_err(|e| crash("update", e))?;
                tx.commit().map_err(|e| crash("commit", e))
            }
            Connection::Postgres(client) => {
                let mut tx = client.transaction().map_err(|e| crash("begin", e))?;
                let id = doc_id as i32;
                tx.execute("DELETE FROM annotations WHERE doc_id = $1", &[&id]).map_err(|e| crash("delete", e))?;
                let insert = tx
                    .prepare("INSERT INTO annotations(doc_id, span_begin, span_end, label) VALUES ($1, $2, $3, $4)")
                    .map_err(|e| crash("insert", e))?;
                for (begin, end, label) in aligned {
                    tx.execute(&insert, &[&id, &(*begin as i32), &(*end as i32), label]).map_err(|e| crash("insert", e))?;
                }
                tx.execute(
                    "UPDATE documents SET length = $1, annotation_count = $2, status = 'aligned' WHERE doc_id = $3",
                    &[&(new_length as i32), &(aligned.len() as i32), &id],
                )
                .map_err(|e| crash("update", e))?;
                tx.commit().map_err(|e| crash("commit", e))
            }
        }
    }

    /// The spec's checksum, read back from the database after the run.
    pub fn annotations_digest(&mut self) -> Outcome<String> {
        let rows: Vec<(i64, i64, i64, String)> = match self {
            Connection::Sqlite(db) => {
                let mut query = db
                    .prepare("SELECT doc_id, span_begin, span_end, label FROM annotations")
                    .map_err(|e| crash("digest", e))?;
                let rows = query
                    .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
                    .map_err(|e| crash("digest", e))?;
                rows.collect::<Result<_, _>>().map_err(|e| crash("digest", e))?
            }
            Connection::Postgres(client) => client
                .query("SELECT doc_id, span_begin, span_end, label FROM annotations", &[])
                .map_err(|e| crash("digest", e))?
                .iter()
                .map(|r| (r.get::<_, i32>(0) as i64, r.get::<_, i32>(1) as i64, r.get::<_, i32>(2) as i64, r.get(3)))
                .collect(),
        };
        let mut digest = OrderFreeDigest::default();
        for (doc_id, begin, end, label) in rows {
            digest.add_item(format!("{doc_id}:{begin}:{end}:{label}").as_bytes());
        }
        Ok(digest.hex())
    }
}

/// What the documents of one run added up to: the time in alignment (cpu) and in file and
/// database work (io), how many were done, and each worker's busy interval: the whole
/// document for the threads and Rayon models, the alignment for tokio (whose I/O runs on the
/// blocking pool, not on the workers).
pub struct TimeSplit {
    cpu_ns: AtomicU64,
    io_ns: AtomicU64,
    documents: AtomicUsize,
    busy: Busy,
    whole_documents: bool,
}

impl TimeSplit {
    /// `origin`: the clock's start; `whole_documents`: busy spans whole documents.
    pub fn new(workers: usize, origin: Instant, whole_documents: bool) -> TimeSplit {
        TimeSplit { cpu_ns: AtomicU64::new(0), io_ns: AtomicU64::new(0), documents: AtomicUsize::new(0), busy: Busy::new(workers, origin), whole_documents }
    }

    fn add(&self, cpu: Duration, io: Duration) {
        self.cpu_ns.fetch_add(cpu.as_nanos() as u64, Ordering::Relaxed);
        self.io_ns.fetch_add(io.as_nanos() as u64, Ordering::Relaxed);
        self.documents.fetch_add(1, Ordering::Relaxed);
    }

    /// Aligns on the calling thread, timing it (and, for tokio, noting the worker busy).
    fn align(&self, old: &str, new: &str, spans: &[Span]) -> (Vec<Span>, Duration) {
        let align = || timed(|| align_annotations(old.as_bytes(), new.as_bytes(), spans));
        let (aligned, cpu_ns) = if self.whole_documents { align() } else { self.busy.span_here(align) };
        (aligned, Duration::from_nanos(cpu_ns as u64))
    }

    /// Documents are the chunks; a worker that recorded busy time was used.
    fn ran(self) -> Ran {
        Ran { chunks: self.documents.load(Ordering::Relaxed), busy: self.busy }
    }
}

fn read_document(docs_dir: &Path, doc_id: i64) -> Outcome<(String, String)> {
    let path = docs_dir.join(format!("{doc_id}.json"));
    let text = std::fs::read_to_string(&path).map_err(|e| crash(&format!("reading {}", path.display()), e))?;
    let mut document: Value = serde_json::from_str(&text).map_err(|e| crash(&format!("parsing {}", path.display()), e))?;
    let mut field = |name: &str| match document[name].take() {
        Value::String(s) => Ok(s),
        _ => Err(crash(&format!("{}", path.display()), format!("no string field '{name}'"))),
    };
    Ok((field("old")?, field("new")?))
}

/// The whole per-document job: read, align, write back in one transaction; busy time of the
/// calling thread's worker.
pub fn process_document(db: &mut Connection, docs_dir: &Path, doc_id: i64, split: &TimeSplit) -> Outcome<()> {
    split.busy.span_here(|| process_document_here(db, docs_dir, doc_id, split))
}

fn process_document_here(db: &mut Connection, docs_dir: &Path, doc_id: i64, split: &TimeSplit) -> Outcome<()> {
    let io_started = Instant::now();
    let (old, new) = read_document(docs_dir, doc_id)?;
    let spans = db.annotations(doc_id)?;
    let mut io = io_started.elapsed();

    let (aligned, cpu) = split.align(&old, &new, &spans);

    let write_started = Instant::now();
    db.store_aligned(doc_id, new.len(), &aligned)?;
    io += write_started.elapsed();
    split.add(cpu, io);
    Ok(())
}

pub fn job_seq(database: &Database, docs_dir: &Path, split: &TimeSplit) -> Outcome<usize> {
    let mut db = database.connect()?;
    let pending = db.pending_documents()?;
    for &doc_id in &pending {
        process_document(&mut db, docs_dir, doc_id, split)?;
    }
    Ok(pending.len())
}

/// The pool's threads (`workers`), each with its own connection, taking the next document id
/// from a shared queue.
pub fn job_threads(database: &Database, docs_dir: &Path, split: &TimeSplit, workers: &Workers) -> Outcome<usize> {
    let pending = database.connect()?.pending_documents()?;
    let queue = Mutex::new(pending.iter().copied());
    let outcomes = workers.on_each_thread(|_| -> Outcome<()> {
        let mut db = database.connect()?;
        loop {
            let next = queue.lock().expect("work queue").next();
            let Some(doc_id) = next else { return Ok(()) };
            process_document(&mut db, docs_dir, doc_id, split)?;
        }
    });
    outcomes.into_iter().collect::<Outcome<()>>()?;
    Ok(pending.len())
}

/// Rayon's par_iter over the work list; `for_each_init` opens one connection per Rayon job split.
pub fn job_rayon(database: &Database, docs_dir: &Path, split: &TimeSplit) -> Outcome<usize> {
    let pending = database.connect()?.pending_documents()?;
    pending.par_iter().try_for_each_init(
        || database.connect(),
        |db, &doc_id| match db {
            Ok(db) => process_document(db, docs_dir, doc_id, split),
            Err(e) => Err(crash("connecting", format!("{e:?}"))),
        },
    )?;
    Ok(pending.len())
}

/// A bounded pool of open connections that async tasks borrow around each blocking call.
struct ConnectionPool {
    idle: tokio::sync::Mutex<tokio::sync::mpsc::Receiver<Connection>>,
    give_back: tokio::sync::mpsc::Sender<Connection>,
}

impl ConnectionPool {
    /// Connects outside any runtime: the `postgres` client runs its own small runtime, so it
    /// may be created and dropped only where no tokio runtime is driving the thread.
    fn open(database: &Database, size: usize) -> Outcome<ConnectionPool> {
        let (give_back, idle) = tokio::sync::mpsc::channel(size);
        for _ in 0..size {
            give_back.try_send(database.connect()?).map_err(|e| crash("filling the pool", e))?;
        }
        Ok(ConnectionPool { idle: tokio::sync::Mutex::new(idle), give_back })
    }

    /// Runs `work` with a borrowed connection on tokio's blocking pool (rusqlite and the
    /// `postgres` client block), then returns the connection to the pool.
    async fn with<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Connection) -> Outcome<T> + Send + 'static,
    ) -> Outcome<T> {
        let mut db = self.idle.lock().await.recv().await.ok_or_else(|| crash("pool", "closed"))?;
        let (db, result) = tokio::task::spawn_blocking(move || {
            let result = work(&mut db);
            (db, result)
        })
        .await
        .map_err(|e| crash("a blocking database call", e))?;
        self.give_back.send(db).await.map_err(|e| crash("returning a connection", e))?;
        result
    }
}

/// The tokio model's runtime: `workers` async threads and at most `workers` blocking threads
/// (one per pooled connection), kept while idle.
fn tokio_runtime(workers: usize) -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .thread_name(TOKIO_THREAD_NAME)
        .worker_threads(workers)
        .max_blocking_threads(workers)
        .thread_keep_alive(BLOCKING_KEEP_ALIVE)
        .build()
}

/// A warm runtime's blocking threads, all started before the ready line: `workers` blocking
/// calls that wait for each other, so each runs on a thread of its own.
fn start_blocking_threads(runtime: &tokio::runtime::Runtime, workers: usize) {
    let all_running = Arc::new(std::sync::Barrier::new(workers));
    runtime.block_on(async {
        let calls: Vec<_> = (0..workers)
            .map(|_| {
                let all_running = all_running.clone();
                tokio::task::spawn_blocking(move || {
                    all_running.wait();
                })
            })
            .collect();
        for call in calls {
            call.await.expect("a blocking warm-up call");
        }
    });
}

/// One tokio task per document; file and database work borrow one of `workers` connections on
/// the blocking pool, and the alignment runs on the runtime's async worker threads, whose
/// runtime `tokio` makes for the repetition (cold: built here, dropped before returning, which
/// joins its worker and blocking threads) or holds (warm).
pub fn job_tokio(database: &Database, docs_dir: &Path, split: &Arc<TimeSplit>, tokio: &TokioWorkers) -> Outcome<usize> {
    let workers = tokio.count;
    tokio.on_runtime(|runtime| job_on_runtime(runtime, database, docs_dir, split, workers))?
}

fn job_on_runtime(runtime: &tokio::runtime::Runtime, database: &Database, docs_dir: &Path, split: &Arc<TimeSplit>, workers: usize) -> Outcome<usize> {
    let pool = Arc::new(ConnectionPool::open(database, workers)?);
    let done = runtime.block_on(async {
        let pending = pool.with(|db| db.pending_documents()).await?;
        let docs_dir = Arc::new(docs_dir.to_path_buf());
        let tasks: Vec<_> = pending
            .iter()
            .map(|&doc_id| {
                let (pool, docs_dir, split) = (pool.clone(), docs_dir.clone(), split.clone());
                tokio::spawn(async move {
                    // io counts the blocking calls themselves, not the wait for a free connection.
                    let ((old, new), spans, mut io) = pool
                        .with(move |db| {
                            let started = Instant::now();
                            let document = read_document(&docs_dir, doc_id)?;
                            let spans = db.annotations(doc_id)?;
                            Ok((document, spans, started.elapsed()))
                        })
                        .await?;
                    let (aligned, cpu) = split.align(&old, &new, &spans);
                    io += pool
                        .with(move |db| {
                            let started = Instant::now();
                            db.store_aligned(doc_id, new.len(), &aligned)?;
                            Ok(started.elapsed())
                        })
                        .await?;
                    split.add(cpu, io);
                    Ok::<(), Failure>(())
                })
            })
            .collect();
        for task in tasks {
            task.await.map_err(|e| crash("a document task", e))??;
        }
        Ok(pending.len())
    });
    drop(pool); // here, outside block_on, for the reason given at ConnectionPool::open
    done
}

/// Where a model runs its documents for the whole process: its pool, team or runtime, made in
/// each repetition (cold) or once (warm).
enum Runner {
    Seq,
    Threads(Workers),
    Rayon(Workers),
    Tokio(TokioWorkers),
}

impl Runner {
    fn start(call: &Call, workers: usize) -> Outcome<(Runner, Ready)> {
        Ok(match call.model.as_str() {
            "seq" => (Runner::Seq, Ready::None),
            "threads" => Workers::start(Shape::Threads, workers, call.start).map(|(w, ready)| (Runner::Threads(w), ready))?,
            "rayon" => Workers::start(Shape::Rayon, workers, call.start).map(|(w, ready)| (Runner::Rayon(w), ready))?,
            "tokio" => TokioWorkers::start(workers, call.start, tokio_runtime, start_blocking_threads).map(|(t, ready)| (Runner::Tokio(t), ready))?,
            other => unreachable!("the registry lists no batch-job model '{other}'"),
        })
    }

    /// The whole job; busy intervals span whole documents except for tokio, whose file and
    /// database work runs on the blocking pool rather than on its workers.
    fn job(&self, database: &Database, docs_dir: &Path, split: &Arc<TimeSplit>) -> Outcome<usize> {
        match self {
            Runner::Seq => job_seq(database, docs_dir, split),
            Runner::Threads(workers) => job_threads(database, docs_dir, split, workers),
            Runner::Rayon(workers) => workers.in_rayon_pool(false, |pool| pool.install(|| job_rayon(database, docs_dir, split)))?,
            Runner::Tokio(tokio) => job_tokio(database, docs_dir, split, tokio),
        }
    }
}

fn run(call: &Call, talk: &mut Conversation) -> Outcome<()> {
    let docs_dir = PathBuf::from(call.text("docs-dir", None)?);
    let database = Database::from_url(&call.text("db", None)?)?;
    let class = call.kernel(false)?;
    let workers = if call.model == "seq" { 1 } else { call.workers()? };
    let (runner, ready) = Runner::start(call, workers)?;
    let mut common = Map::new();
    common.insert("kernel".into(), Value::from(class.name()));
    common.insert("kernel_detail".into(), Value::from(PORTABLE));
    // The variant is 0 and ignored. Repetition 0 finds the harness's fresh database; every later
    // one restores the job first, before its clock, and reports that as prepare_ns.
    repeat(talk, ready, &common, |rep| {
        let (restored, prepare_ns) = timed(|| if rep.index == 0 { Ok(()) } else { database.connect()?.restore_job() });
        restored?;
        let ((split, done), measured) = measure(|origin| {
            let split = Arc::new(TimeSplit::new(workers, origin, call.model != "tokio"));
            let done = runner.job(&database, &docs_dir, &split);
            (split, done)
        });
        let done = done?;
        let (checksum, checksum_ns) = timed(|| database.connect()?.annotations_digest());
        let split = Arc::into_inner(split).ok_or_else(|| crash("batch-job", "a worker kept the time split"))?;
        let mut sample = Sample::new(measured, done as u64, checksum?)
            .with("checksum_ns", checksum_ns as u64)
            .with("prepare_ns", prepare_ns as u64)
            .with("cpu_ns", split.cpu_ns.load(Ordering::Relaxed))
            .with("io_ns", split.io_ns.load(Ordering::Relaxed));
        if call.model != "seq" {
            // One document is one chunk.
            sample = sample.with_ran(&Chunking::new(done, workers, 1, None), &split.ran());
        }
        Ok(sample)
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::protocol::Start;

    fn spans(list: &[(i64, i64, &str)]) -> Vec<Span> {
        list.iter().map(|(b, e, l)| (*b, *e, l.to_string())).collect()
    }

    #[test]
    fn identical_texts_map_every_offset_to_itself() {
        assert_eq!(lcs_offset_map(b"abc", b"abc"), vec![0, 1, 2, 3]);
    }

    #[test]
    fn offset_map_ends_at_len_new() {
        assert_eq!(*lcs_offset_map(b"ab", b"xyzab").last().unwrap(), 5);
        assert_eq!(lcs_offset_map(b"", b"xyz"), vec![3]);
    }

    #[test]
    fn unmatched_offset_takes_the_next_matched_one() {
        // old "axb" → new "ab": 'x' is deleted, so offset 1 lands where 'b' did (1).
        assert_eq!(lcs_offset_map(b"axb", b"ab"), vec![0, 1, 1, 2]);
    }

    #[test]
    fn ties_step_i_first() {
        // dp[i+1][j] >= dp[i][j+1] steps i: old "ab", new "ba" matches old 'b' to new 'b'.
        assert_eq!(lcs_offset_map(b"ab", b"ba"), vec![0, 0, 2]);
    }

    #[test]
    fn spans_follow_the_offset_map() {
        // LCS keeps the 't' of "two" matched to the 't' of "three", so "two" shrinks to [4, 5).
        let aligned = align_annotations(b"one two three", b"one three", &spans(&[(4, 7, "X"), (0, 3, "A"), (8, 13, "B")]));
        assert_eq!(aligned, spans(&[(4, 5, "X"), (0, 3, "A"), (5, 9, "B")]));
    }

    #[test]
    fn span_is_dropped_when_m_begin_is_not_below_m_end() {
        assert_eq!(align_annotations(b"abc", b"xyz", &spans(&[(0, 3, "X"), (1, 2, "Y")])), vec![]);
    }

    /// A small job in a fresh folder: documents whose `new` is `old` with words moved around.
    pub(crate) fn prepare_job(name: &str, docs: i64) -> (PathBuf, Database) {
        let folder = std::env::temp_dir().join(format!("parbench-rust-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&folder);
        std::fs::create_dir_all(&folder).unwrap();
        let db_path = folder.join("job.sqlite");
        let db = rusqlite::Connection::open(&db_path).unwrap();
        db.execute_batch(
            "CREATE TABLE documents(doc_id INTEGER PRIMARY KEY, length INTEGER, annotation_count INTEGER, status TEXT);
             CREATE TABLE annotations(id INTEGER PRIMARY KEY, doc_id INTEGER, span_begin INTEGER, span_end INTEGER, label TEXT);
             CREATE TABLE pristine_documents(doc_id INTEGER PRIMARY KEY, length INTEGER, annotation_count INTEGER, status TEXT);
             CREATE TABLE pristine_annotations(doc_id INTEGER, span_begin INTEGER, span_end INTEGER, label TEXT);",
        )
        .unwrap();
        let words = ["alpha", "beam", "core", "delta", "edge", "flow", "graph"];
        for doc_id in 0..docs {
            let pick = |k: i64| words[((doc_id * 7 + k * 3 + k * k) % words.len() as i64) as usize];
            let old: Vec<&str> = (0..40).map(pick).collect();
            let new: Vec<&str> = (0..40).filter(|k| (k + doc_id) % 9 != 0).map(|k| pick(k + (k % 5 == 0) as i64)).collect();
            let (old, new) = (old.join(" "), new.join(" "));
            let document = serde_json::json!({"id": doc_id, "old": old, "new": new});
            std::fs::write(folder.join(format!("{doc_id}.json")), document.to_string()).unwrap();
            db.execute("INSERT INTO documents VALUES (?1, ?2, 6, 'pending')", rusqlite::params![doc_id, old.len() as i64]).unwrap();
            for k in 0..6i64 {
                let begin = (k * 31 + doc_id) % (old.len() as i64 - 20);
                db.execute(
                    "INSERT INTO annotations(doc_id, span_begin, span_end, label) VALUES (?1, ?2, ?3, ?4)",
                    rusqlite::params![doc_id, begin, begin + 5 + k, ["PERSON", "PLACE"][k as usize % 2]],
                )
                .unwrap();
            }
        }
        // The harness's pristine copies of the starting rows (docs/protocol.md, batch-job).
        db.execute_batch(
            "INSERT INTO pristine_documents SELECT doc_id, length, annotation_count, status FROM documents;
             INSERT INTO pristine_annotations SELECT doc_id, span_begin, span_end, label FROM annotations;",
        )
        .unwrap();
        (folder.clone(), Database::Sqlite(db_path))
    }

    /// The runner of `model` with `workers` workers in `start` mode, as `run` makes it.
    fn runner(model: &str, workers: usize, start: Option<Start>) -> Runner {
        let args: Vec<String> = ["batch-job", "--model", model].iter().map(|a| a.to_string()).collect();
        let call = Call::parse(&args).unwrap().with_start(start);
        Runner::start(&call, workers).unwrap().0
    }

    /// Every model in every start mode: (label, model, workers, start).
    const EVERY_MODEL: [(&str, &str, usize, Option<Start>); 9] = [
        ("seq", "seq", 1, None),
        ("threads-1 cold", "threads", 1, Some(Start::Cold)),
        ("threads-3 cold", "threads", 3, Some(Start::Cold)),
        ("threads-3 warm", "threads", 3, Some(Start::Warm)),
        ("rayon cold", "rayon", 2, Some(Start::Cold)),
        ("rayon warm", "rayon", 2, Some(Start::Warm)),
        ("tokio cold", "tokio", 3, Some(Start::Cold)),
        ("tokio warm", "tokio", 3, Some(Start::Warm)),
        ("tokio-1 warm", "tokio", 1, Some(Start::Warm)),
    ];

    #[test]
    fn every_model_agrees_on_a_sqlite_job_in_both_modes() {
        let _alone = TOKIO_RUNTIMES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut digests = Vec::new();
        for (label, model, workers, start) in EVERY_MODEL {
            let (folder, database) = prepare_job(&label.replace(' ', "-"), 23);
            let split = Arc::new(TimeSplit::new(workers, Instant::now(), model != "tokio"));
            let done = runner(model, workers, start).job(&database, &folder, &split).unwrap();
            assert_eq!(done, 23, "{label} processed every pending document");
            let mut db = database.connect().unwrap();
            assert!(db.pending_documents().unwrap().is_empty(), "{label} left documents pending");
            digests.push(db.annotations_digest().unwrap());
            std::fs::remove_dir_all(folder).unwrap();
        }
        assert!(digests.windows(2).all(|pair| pair[0] == pair[1]), "{digests:?}");
    }

    #[test]
    fn every_model_redoes_the_whole_job_after_the_reset() {
        let _alone = TOKIO_RUNTIMES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        for (label, model, workers, start) in EVERY_MODEL {
            let (folder, database) = prepare_job(&format!("reset-{}", label.replace(' ', "-")), 7);
            let runner = runner(model, workers, start);
            let mut digests = Vec::new();
            for repetition in 0..3 {
                if repetition > 0 {
                    database.connect().unwrap().restore_job().unwrap();
                }
                let split = Arc::new(TimeSplit::new(workers, Instant::now(), model != "tokio"));
                assert_eq!(runner.job(&database, &folder, &split).unwrap(), 7, "{label} repetition {repetition}");
                digests.push(database.connect().unwrap().annotations_digest().unwrap());
            }
            assert!(digests.windows(2).all(|pair| pair[0] == pair[1]), "{label}: {digests:?}");
            std::fs::remove_dir_all(folder).unwrap();
        }
    }

    #[test]
    fn parallel_models_count_documents_as_chunks_and_the_threads_that_aligned_them() {
        let _alone = TOKIO_RUNTIMES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        for (label, model, _, start) in EVERY_MODEL.into_iter().filter(|m| m.1 != "seq") {
            let (folder, database) = prepare_job(&format!("ran-{}", label.replace(' ', "-")), 12);
            let split = Arc::new(TimeSplit::new(2, Instant::now(), model != "tokio"));
            runner(model, 2, start).job(&database, &folder, &split).unwrap();
            let ran = Arc::into_inner(split).unwrap().ran();
            assert_eq!(ran.chunks, 12, "{label}");
            assert!((1..=2).contains(&ran.workers_used()), "{label}: {ran:?}");
            assert_eq!(ran.busy.intervals().as_array().unwrap().len(), ran.workers_used(), "{label}");
            std::fs::remove_dir_all(folder).unwrap();
        }
    }

    /// The threads of this process that a batch-job tokio runtime made, by id (Linux:
    /// /proc/self/task and each thread's name).
    fn tokio_threads() -> std::collections::BTreeSet<String> {
        std::fs::read_dir("/proc/self/task")
            .unwrap()
            .filter_map(|entry| {
                let path = entry.ok()?.path();
                let name = std::fs::read_to_string(path.join("comm")).ok()?;
                (name.trim() == TOKIO_THREAD_NAME).then(|| path.file_name().unwrap().to_string_lossy().into_owned())
            })
            .collect()
    }

    /// Held by the tests that start tokio runtimes, so one can count the threads of its own.
    pub(crate) static TOKIO_RUNTIMES: Mutex<()> = Mutex::new(());

    #[test]
    fn a_warm_tokio_runtime_starts_every_thread_before_its_first_job_and_makes_none_in_it() {
        let _alone = TOKIO_RUNTIMES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        assert!(tokio_threads().is_empty());
        let warm = runner("tokio", 2, Some(Start::Warm));
        let started = tokio_threads();
        assert_eq!(started.len(), 4, "two worker and two blocking threads: {started:?}");
        for job in 0..2 {
            let (folder, database) = prepare_job(&format!("tokio-warm-threads-{job}"), 8);
            let split = Arc::new(TimeSplit::new(2, Instant::now(), false));
            warm.job(&database, &folder, &split).unwrap();
            std::fs::remove_dir_all(folder).unwrap();
            assert_eq!(tokio_threads(), started, "job {job} ran on the threads made before it");
        }
        drop(warm);
        assert!(tokio_threads().is_empty(), "the runtime's threads end with it");
    }
}
