/** The batch-job database behind one async interface: SQLite (better-sqlite3) or PostgreSQL (pg). */
import { fileURLToPath } from 'node:url';

// Each driver is imported when a URL first names it: every batch-job worker thread loads this
// module, and pg alone costs ~45 ms of CPU to import, which an SQLite run never needs.
const isSqlite = (url) => url.startsWith('sqlite:');
const isPostgres = (url) => url.startsWith('postgresql://') || url.startsWith('postgres://');

/** The driver module a URL needs (import() caches it): the main thread loads it before timing. */
export async function loadDriver(url) {
  if (isSqlite(url)) return (await import('better-sqlite3')).default;
  if (isPostgres(url)) return (await import('pg')).default;
  throw new Error(`unsupported --db '${url}'; expected sqlite:PATH or postgresql://…`);
}

// better-sqlite3 finds its addon through `bindings`, which probes paths with fs.existsSync, that
// is access(2): it asks as the real user without capabilities, so parbench's benchmark user, which
// reads a project under a root-only folder by CAP_DAC_READ_SEARCH alone, would find none. Named.
const SQLITE_ADDON = fileURLToPath(new URL('../../../node_modules/better-sqlite3/build/Release/better_sqlite3.node',
  import.meta.url));

// Concurrent SQLite writers wait for the lock this long instead of failing with SQLITE_BUSY.
const SQLITE_BUSY_TIMEOUT_MS = 60000;

/** A better-sqlite3 connection; its calls are synchronous, the async methods only match pg's shape. */
class SqliteStore {
  static async open(url) {
    const Database = await loadDriver(url);
    let path = url.slice('sqlite:'.length);
    if (path.startsWith('//')) path = path.slice(2); // sqlite:///abs/path
    return new SqliteStore(new Database(path, { timeout: SQLITE_BUSY_TIMEOUT_MS, fileMustExist: true, nativeBinding: SQLITE_ADDON }));
  }

  constructor(db) {
    this.db = db;
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.pendingStatement = this.db.prepare("SELECT doc_id FROM documents WHERE status = 'pending' ORDER BY doc_id");
    this.annotationsStatement = this.db.prepare('SELECT span_begin, span_end, label FROM annotations WHERE doc_id = ? ORDER BY id');
    const deleteStatement = this.db.prepare('DELETE FROM annotations WHERE doc_id = ?');
    const insertStatement = this.db.prepare('INSERT INTO annotations(doc_id, span_begin, span_end, label) VALUES (?, ?, ?, ?)');
    const updateStatement = this.db.prepare("UPDATE documents SET length = ?, annotation_count = ?, status = 'aligned' WHERE doc_id = ?");
    // IMMEDIATE takes the write lock up front, so the busy timeout applies rather than a deadlock error.
    this.replace = this.db.transaction((docId, aligned, length) => {
      deleteStatement.run(docId);
      for (const span of aligned) insertStatement.run(docId, span.begin, span.end, span.label);
      updateStatement.run(length, aligned.length, docId);
    }).immediate;
  }

  async pendingDocIds() {
    return this.pendingStatement.all().map((row) => row.doc_id);
  }

  async annotationsOf(docId) {
    return this.annotationsStatement.all(docId).map((row) => ({ begin: row.span_begin, end: row.span_end, label: row.label }));
  }

  async replaceAnnotations(docId, aligned, length) {
    this.replace(docId, aligned, length);
  }

  /** Runs `statements` in one IMMEDIATE transaction, all or nothing. */
  async runInOneTransaction(statements) {
    this.db.transaction(() => {
      for (const sql of statements) this.db.exec(sql);
    }).immediate();
  }

  async allAnnotationRows() {
    return this.db.prepare('SELECT doc_id, span_begin, span_end, label FROM annotations').all();
  }

  async close() {
    this.db.close();
  }
}

/** One pg.Client (one server connection); statements go one at a time, as pg queues them. */
class PostgresStore {
  static async open(url) {
    const pg = await loadDriver(url);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return new PostgresStore(client);
  }

  constructor(client) {
    this.client = client;
  }

  async pendingDocIds() {
    const result = await this.client.query("SELECT doc_id FROM documents WHERE status = 'pending' ORDER BY doc_id");
    return result.rows.map((row) => row.doc_id);
  }

  async annotationsOf(docId) {
    const result = await this.client.query({
      name: 'annotations-of',
      text: 'SELECT span_begin, span_end, label FROM annotations WHERE doc_id = $1 ORDER BY id',
      values: [docId],
    });
    return result.rows.map((row) => ({ begin: row.span_begin, end: row.span_end, label: row.label }));
  }

  async replaceAnnotations(docId, aligned, length) {
    await this.client.query('BEGIN');
    try {
      await this.client.query({ name: 'delete-annotations', text: 'DELETE FROM annotations WHERE doc_id = $1', values: [docId] });
      if (aligned.length > 0) {
        // One multi-row INSERT: a round trip per row would measure the network, not the job.
        const values = [];
        const rows = aligned.map((span, i) => {
          values.push(docId, span.begin, span.end, span.label);
          return `($${4 * i + 1}, $${4 * i + 2}, $${4 * i + 3}, $${4 * i + 4})`;
        });
        await this.client.query(`INSERT INTO annotations(doc_id, span_begin, span_end, label) VALUES ${rows.join(', ')}`, values);
      }
      await this.client.query({
        name: 'update-document',
        text: "UPDATE documents SET length = $1, annotation_count = $2, status = 'aligned' WHERE doc_id = $3",
        values: [length, aligned.length, docId],
      });
      await this.client.query('COMMIT');
    } catch (error) {
      await this.client.query('ROLLBACK').catch(() => {});
      throw error;
    }
  }

  /** Runs `statements` in one transaction, all or nothing. */
  async runInOneTransaction(statements) {
    await this.client.query('BEGIN');
    try {
      for (const sql of statements) await this.client.query(sql);
      await this.client.query('COMMIT');
    } catch (error) {
      await this.client.query('ROLLBACK').catch(() => {});
      throw error;
    }
  }

  async allAnnotationRows() {
    return (await this.client.query('SELECT doc_id, span_begin, span_end, label FROM annotations')).rows;
  }

  async close() {
    await this.client.end();
  }
}

/** Opens a connection for `sqlite:PATH` or `postgresql://…`. */
export async function openStore(url) {
  if (isSqlite(url)) return SqliteStore.open(url);
  if (isPostgres(url)) return PostgresStore.open(url);
  throw new Error(`unsupported --db '${url}'; expected sqlite:PATH or postgresql://…`);
}
