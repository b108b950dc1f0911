// batch-job: re-align the annotations of many documents (LCS) and store them in SQLite or PostgreSQL (seed 002).
#include "workloads/batch_job.hpp"

#include <chrono>

#include <libpq-fe.h>
#include <sqlite3.h>

#include <atomic>
#include <mutex>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "chunking.hpp"
#include "digest.hpp"
#include "registry.hpp"

namespace parbench::batch_job {

std::uint64_t annotation_row_hash(std::int64_t doc_id, std::int64_t begin, std::int64_t end, std::string_view label) {
  const std::string row = std::to_string(doc_id) + ":" + std::to_string(begin) + ":" + std::to_string(end) + ":";
  return fnv1a64(label, fnv1a64(row));
}

std::vector<std::int32_t> lcs_offset_map(std::string_view old_text, std::string_view new_text) {
  const std::size_t n = old_text.size(), m = new_text.size();
  const std::size_t width = m + 1;
  // dp[i][j] = LCS(old[i:], new[j:]), filled from the bottom-right corner.
  std::vector<std::int32_t> dp((n + 1) * width, 0);
  for (std::size_t i = n; i-- > 0;) {
    std::int32_t* row = &dp[i * width];
    const std::int32_t* below = &dp[(i + 1) * width];
    for (std::size_t j = m; j-- > 0;) {
      row[j] = old_text[i] == new_text[j] ? below[j + 1] + 1 : std::max(below[j], row[j + 1]);
    }
  }
  std::vector<std::int32_t> matched_to(n, -1);
  for (std::size_t i = 0, j = 0; i < n && j < m;) {
    if (old_text[i] == new_text[j]) {
      matched_to[i++] = static_cast<std::int32_t>(j++);
    } else if (dp[(i + 1) * width + j] >= dp[i * width + j + 1]) {
      ++i;
    } else {
      ++j;
    }
  }
  std::vector<std::int32_t> offset_map(n + 1);
  offset_map[n] = static_cast<std::int32_t>(m);
  for (std::size_t i = n; i-- > 0;) offset_map[i] = matched_to[i] >= 0 ? matched_to[i] : offset_map[i + 1];
  return offset_map;
}

std::vector<Annotation> align_annotations(std::string_view old_text, std::string_view new_text,
                                          const std::vector<Annotation>& annotations) {
  const auto offset_map = lcs_offset_map(old_text, new_text);
  std::vector<Annotation> aligned;
  for (const auto& annotation : annotations) {
    const std::int64_t begin = offset_map.at(static_cast<std::size_t>(annotation.begin));
    const std::int64_t end = offset_map.at(static_cast<std::size_t>(annotation.end));
    if (begin < end) aligned.push_back({begin, end, annotation.label});
  }
  return aligned;
}

// --- the document file ----------------------------------------------------------------------

namespace {

// Just enough JSON for one flat object of integers and strings (json.dumps output).
class FlatJsonReader {
 public:
  explicit FlatJsonReader(std::string_view text) : text_(text) {}

  Document document() {
    Document doc;
    expect('{');
    for (bool more = !peek_is('}'); more;) {
      const std::string key = string();
      expect(':');
      if (key == "id") doc.id = integer();
      else if (key == "old") doc.old_text = string();
      else if (key == "new") doc.new_text = string();
      else if (peek_is('"')) string();
      else integer();
      more = peek_is(',');
      if (more) ++at_;
    }
    expect('}');
    return doc;
  }

 private:
  void skip_space() {
    while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\n' || text_[at_] == '\t' || text_[at_] == '\r')) ++at_;
  }
  bool peek_is(char c) {
    skip_space();
    return at_ < text_.size() && text_[at_] == c;
  }
  void expect(char c) {
    if (!peek_is(c)) fail(std::string("expected '") + c + "'");
    ++at_;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("document JSON: " + what + " at offset " + std::to_string(at_));
  }
  std::int64_t integer() {
    skip_space();
    const std::size_t start = at_;
    if (at_ < text_.size() && text_[at_] == '-') ++at_;
    while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') ++at_;
    if (start == at_) fail("expected an integer");
    return std::stoll(std::string(text_.substr(start, at_ - start)));
  }
  unsigned hex4() {
    if (at_ + 4 > text_.size()) fail("short \\u escape");
    const unsigned value = static_cast<unsigned>(std::stoul(std::string(text_.substr(at_, 4)), nullptr, 16));
    at_ += 4;
    return value;
  }
  static void append_utf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xc0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3f));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xe0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (code & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (code & 0x3f));
    }
  }
  std::string string() {
    expect('"');
    std::string out;
    while (at_ < text_.size() && text_[at_] != '"') {
      char c = text_[at_++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at_ >= text_.size()) fail("unfinished escape");
      switch (char e = text_[at_++]) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          unsigned code = hex4();
          // A surrogate pair spells one code point beyond the BMP.
          if (code >= 0xd800 && code < 0xdc00 && text_.substr(at_, 2) == "\\u") {
            at_ += 2;
            code = 0x10000 + ((code - 0xd800) << 10) + (hex4() - 0xdc00);
          }
          append_utf8(out, code);
          break;
        }
        default: out += e;  // \" \\ \/
      }
    }
    expect('"');
    return out;
  }

  std::string_view text_;
  std::size_t at_ = 0;
};

}  // namespace

Document parse_document(std::string_view json) { return FlatJsonReader(json).document(); }

Document read_document(const std::string& docs_dir, std::int64_t doc_id) {
  const std::string path = docs_dir + "/" + std::to_string(doc_id) + ".json";
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot open document " + path);
  std::stringstream content;
  content << file.rdbuf();
  return parse_document(content.str());
}

// --- SQLite ---------------------------------------------------------------------------------

namespace {

class SqliteDatabase : public Database {
 public:
  explicit SqliteDatabase(const std::string& path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
      const std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      throw std::runtime_error("sqlite: cannot open " + path + ": " + message);
    }
    // Concurrent writers wait for the lock instead of failing (the protocol's rule).
    sqlite3_busy_timeout(db_, 600'000);
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA synchronous=FULL");
    select_ = prepare("SELECT span_begin, span_end, label FROM annotations WHERE doc_id = ?");
    delete_ = prepare("DELETE FROM annotations WHERE doc_id = ?");
    insert_ = prepare("INSERT INTO annotations(doc_id, span_begin, span_end, label) VALUES (?, ?, ?, ?)");
    update_ = prepare("UPDATE documents SET length = ?, annotation_count = ?, status = 'aligned' WHERE doc_id = ?");
  }
  ~SqliteDatabase() override {
    for (auto* statement : {select_, delete_, insert_, update_}) sqlite3_finalize(statement);
    sqlite3_close(db_);
  }

  std::vector<std::int64_t> pending_documents() override {
    sqlite3_stmt* query = prepare("SELECT doc_id FROM documents WHERE status = 'pending' ORDER BY doc_id");
    std::vector<std::int64_t> ids;
    while (step(query) == SQLITE_ROW) ids.push_back(sqlite3_column_int64(query, 0));
    sqlite3_finalize(query);
    return ids;
  }

  std::string annotations_digest() override {
    sqlite3_stmt* query = prepare("SELECT doc_id, span_begin, span_end, label FROM annotations");
    std::uint64_t sum = 0;
    while (step(query) == SQLITE_ROW) {
      sum += annotation_row_hash(sqlite3_column_int64(query, 0), sqlite3_column_int64(query, 1),
                                 sqlite3_column_int64(query, 2), reinterpret_cast<const char*>(sqlite3_column_text(query, 3)));
    }
    sqlite3_finalize(query);
    return digest_hex(sum);
  }

  std::vector<Annotation> annotations_of(std::int64_t doc_id) override {
    sqlite3_reset(select_);
    sqlite3_bind_int64(select_, 1, doc_id);
    std::vector<Annotation> found;
    while (step(select_) == SQLITE_ROW) {
      found.push_back({sqlite3_column_int64(select_, 0), sqlite3_column_int64(select_, 1),
                       reinterpret_cast<const char*>(sqlite3_column_text(select_, 2))});
    }
    return found;
  }

  void restore_job() override {
    exec("BEGIN IMMEDIATE");
    try {
      for (const char* statement : RESET_STATEMENTS) exec(statement);
      exec("COMMIT");
    } catch (...) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
  }

  void store_aligned(std::int64_t doc_id, std::int64_t new_length, const std::vector<Annotation>& aligned) override {
    // IMMEDIATE takes the write lock up front: a deferred transaction that upgrades later can
    // fail with SQLITE_BUSY without waiting, which would break "writers wait, they do not fail".
    exec("BEGIN IMMEDIATE");
    try {
      run_once(delete_, [&] { sqlite3_bind_int64(delete_, 1, doc_id); });
      for (const auto& annotation : aligned) {
        run_once(insert_, [&] {
          sqlite3_bind_int64(insert_, 1, doc_id);
          sqlite3_bind_int64(insert_, 2, annotation.begin);
          sqlite3_bind_int64(insert_, 3, annotation.end);
          sqlite3_bind_text(insert_, 4, annotation.label.c_str(), -1, SQLITE_TRANSIENT);
        });
      }
      run_once(update_, [&] {
        sqlite3_bind_int64(update_, 1, new_length);
        sqlite3_bind_int64(update_, 2, static_cast<std::int64_t>(aligned.size()));
        sqlite3_bind_int64(update_, 3, doc_id);
      });
      exec("COMMIT");
    } catch (...) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
  }

 private:
  void exec(const char* sql) {
    char* message = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) != SQLITE_OK) {
      const std::string text = message ? message : "unknown error";
      sqlite3_free(message);
      throw std::runtime_error(std::string("sqlite: ") + sql + ": " + text);
    }
  }
  sqlite3_stmt* prepare(const char* sql) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db_, sql, -1, &statement, nullptr) != SQLITE_OK) {
      throw std::runtime_error(std::string("sqlite: ") + sql + ": " + sqlite3_errmsg(db_));
    }
    return statement;
  }
  int step(sqlite3_stmt* statement) {
    const int result = sqlite3_step(statement);
    if (result != SQLITE_ROW && result != SQLITE_DONE) {
      throw std::runtime_error(std::string("sqlite: ") + sqlite3_sql(statement) + ": " + sqlite3_errmsg(db_));
    }
    return result;
  }
  template <class Bind>
  void run_once(sqlite3_stmt* statement, Bind&& bind) {
    sqlite3_reset(statement);
    sqlite3_clear_bindings(statement);
    bind();
    step(statement);
  }

  sqlite3* db_ = nullptr;
  sqlite3_stmt* select_ = nullptr;
  sqlite3_stmt* delete_ = nullptr;
  sqlite3_stmt* insert_ = nullptr;
  sqlite3_stmt* update_ = nullptr;
};

// --- PostgreSQL -----------------------------------------------------------------------------

class PostgresDatabase : public Database {
 public:
  explicit PostgresDatabase(const std::string& url) : connection_(PQconnectdb(url.c_str())) {
    if (PQstatus(connection_) != CONNECTION_OK) {
      const std::string message = PQerrorMessage(connection_);
      PQfinish(connection_);
      throw std::runtime_error("postgresql: cannot connect: " + message);
    }
  }
  ~PostgresDatabase() override { PQfinish(connection_); }

  std::vector<std::int64_t> pending_documents() override {
    Result result = query("SELECT doc_id FROM documents WHERE status = 'pending' ORDER BY doc_id", {});
    std::vector<std::int64_t> ids;
    for (int row = 0; row < PQntuples(result.get()); ++row) ids.push_back(std::stoll(PQgetvalue(result.get(), row, 0)));
    return ids;
  }

  std::string annotations_digest() override {
    Result result = query("SELECT doc_id, span_begin, span_end, label FROM annotations", {});
    std::uint64_t sum = 0;
    for (int row = 0; row < PQntuples(result.get()); ++row) {
      sum += annotation_row_hash(std::stoll(PQgetvalue(result.get(), row, 0)), std::stoll(PQgetvalue(result.get(), row, 1)),
                                 std::stoll(PQgetvalue(result.get(), row, 2)), PQgetvalue(result.get(), row, 3));
    }
    return digest_hex(sum);
  }

  std::vector<Annotation> annotations_of(std::int64_t doc_id) override {
    Result result = query("SELECT span_begin, span_end, label FROM annotations WHERE doc_id = $1", {std::to_string(doc_id)});
    std::vector<Annotation> found;
    for (int row = 0; row < PQntuples(result.get()); ++row) {
      found.push_back({std::stoll(PQgetvalue(result.get(), row, 0)), std::stoll(PQgetvalue(result.get(), row, 1)),
                       PQgetvalue(result.get(), row, 2)});
    }
    return found;
  }

  void restore_job() override {
    query("BEGIN", {});
    try {
      for (const char* statement : RESET_STATEMENTS) query(statement, {});
      query("COMMIT", {});
    } catch (...) {
      PQclear(PQexec(connection_, "ROLLBACK"));
      throw;
    }
  }

  void store_aligned(std::int64_t doc_id, std::int64_t new_length, const std::vector<Annotation>& aligned) override {
    // One INSERT of three arrays keeps a document's transaction at five round trips.
    std::string begins = "{", ends = "{", labels = "{";
    for (std::size_t k = 0; k < aligned.size(); ++k) {
      const char* separator = k == 0 ? "" : ",";
      begins += separator + std::to_string(aligned[k].begin);
      ends += separator + std::to_string(aligned[k].end);
      labels += separator + array_text(aligned[k].label);
    }
    begins += "}", ends += "}", labels += "}";
    const std::string id = std::to_string(doc_id);
    query("BEGIN", {});
    try {
      query("DELETE FROM annotations WHERE doc_id = $1", {id});
      query("INSERT INTO annotations(doc_id, span_begin, span_end, label) "
            "SELECT $1, b, e, l FROM unnest($2::integer[], $3::integer[], $4::text[]) AS t(b, e, l)",
            {id, begins, ends, labels});
      query("UPDATE documents SET length = $1, annotation_count = $2, status = 'aligned' WHERE doc_id = $3",
            {std::to_string(new_length), std::to_string(aligned.size()), id});
      query("COMMIT", {});
    } catch (...) {
      PQclear(PQexec(connection_, "ROLLBACK"));
      throw;
    }
  }

 private:
  using Result = std::unique_ptr<PGresult, decltype(&PQclear)>;

  static std::string array_text(const std::string& value) {
    std::string quoted = "\"";
    for (char c : value) {
      if (c == '"' || c == '\\') quoted += '\\';
      quoted += c;
    }
    return quoted + "\"";
  }

  Result query(const char* sql, const std::vector<std::string>& params) {
    std::vector<const char*> values;
    for (const auto& param : params) values.push_back(param.c_str());
    Result result(PQexecParams(connection_, sql, static_cast<int>(values.size()), nullptr, values.data(), nullptr,
                               nullptr, 0),
                  &PQclear);
    const auto status = PQresultStatus(result.get());
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      throw std::runtime_error(std::string("postgresql: ") + sql + ": " + PQerrorMessage(connection_));
    }
    return result;
  }

  PGconn* connection_;
};

}  // namespace

std::unique_ptr<Database> connect(const std::string& url) {
  if (url.rfind("sqlite:", 0) == 0) return std::make_unique<SqliteDatabase>(url.substr(7));
  if (url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0) return std::make_unique<PostgresDatabase>(url);
  throw UsageError("--db must be sqlite:PATH or postgresql://user:pass@host:port/db, got '" + url + "'");
}

// --- the job --------------------------------------------------------------------------------

namespace {

void align_one(Database& database, const std::string& docs_dir, std::int64_t doc_id, JobTimes& times) {
  Document document;
  std::vector<Annotation> annotations;
  times.io_ns += time_ns([&] {
    document = read_document(docs_dir, doc_id);
    annotations = database.annotations_of(doc_id);
  });
  std::vector<Annotation> aligned;
  times.cpu_ns += time_ns([&] { aligned = align_annotations(document.old_text, document.new_text, annotations); });
  times.io_ns += time_ns([&] {
    database.store_aligned(doc_id, static_cast<std::int64_t>(document.new_text.size()), aligned);
  });
  ++times.docs;
}

std::unique_ptr<Database> timed_connect(const std::string& url, JobTimes& times) {
  std::unique_ptr<Database> database;
  times.connect_ns += time_ns([&] { database = connect(url); });
  return database;
}

// The work list, read over a connection of its own that is closed again.
std::vector<std::int64_t> pending_documents(const std::string& url, JobTimes& times) {
  return timed_connect(url, times)->pending_documents();
}

// The concurrent models time each unit on its own; the job's figures are their sums.
class SummedTimes {
 public:
  void add(const JobTimes& part) {
    std::lock_guard lock(mutex_);
    total_.cpu_ns += part.cpu_ns;
    total_.io_ns += part.io_ns;
    total_.connect_ns += part.connect_ns;
    total_.docs += part.docs;
  }
  JobTimes total() const { return total_; }

 private:
  std::mutex mutex_;
  JobTimes total_;
};

}  // namespace

JobTimes job_seq(const std::string& url, const std::string& docs_dir) {
  JobTimes times;
  auto database = timed_connect(url, times);
  for (std::int64_t doc_id : database->pending_documents()) align_one(*database, docs_dir, doc_id, times);
  times.workers_used = times.docs > 0 ? 1 : 0;
  return times;
}

JobTimes job_threads(const std::string& url, const std::string& docs_dir, const ChunkWorkers& workers, BusyLog* busy) {
  SummedTimes summed;
  JobTimes list_times;
  const std::vector<std::int64_t> work = pending_documents(url, list_times);
  summed.add(list_times);
  // One document is one chunk. Each worker opens its connection on its own thread; it is closed
  // when the worker's processor is destroyed, on that thread, before the join (cold) or before the
  // round ends (warm).
  const ChunkPlan plan(static_cast<std::int64_t>(work.size()), 1);
  const ChunkRun ran = workers.run(plan, [&] {
    JobTimes connecting;
    std::shared_ptr<Database> database = timed_connect(url, connecting);
    summed.add(connecting);
    return [&, database](std::int64_t k) {
      JobTimes times;
      align_one(*database, docs_dir, work[static_cast<std::size_t>(k)], times);
      summed.add(times);
    };
  }, busy);
  JobTimes times = summed.total();
  times.workers_used = ran.workers_used;
  return times;
}

JobTimes job_thread_per_doc(const std::string& url, const std::string& docs_dir) {
  SummedTimes summed;
  JobTimes list_times;
  const std::vector<std::int64_t> work = pending_documents(url, list_times);
  summed.add(list_times);
  std::vector<std::exception_ptr> errors(work.size());
  WorkerTally tally;
  std::string failure;
  {
    std::vector<std::jthread> threads;
    threads.reserve(work.size());
    try {
      for (std::size_t k = 0; k < work.size(); ++k) {
        threads.emplace_back([&, k] {
          JobTimes times;
          try {
            auto own = timed_connect(url, times);
            align_one(*own, docs_dir, work[k], times);
          } catch (...) {
            errors[k] = std::current_exception();
          }
          summed.add(times);
          tally.record(static_cast<std::int64_t>(times.docs));
        });
      }
    } catch (const std::system_error& error) {
      failure = "std::thread creation failed after " + std::to_string(threads.size()) + " threads: " + error.what();
    }
  }
  if (!failure.empty()) throw LimitReached(failure);
  for (const auto& error : errors) {
    if (!error) continue;
    try {
      std::rethrow_exception(error);
    } catch (const std::runtime_error& connect_error) {
      // A server that refuses more connections ("too many clients") is this model's limit.
      if (std::string(connect_error.what()).find("too many clients") != std::string::npos) throw LimitReached(connect_error.what());
      throw;
    }
  }
  JobTimes times = summed.total();
  times.workers_used = tally.result(ChunkPlan(static_cast<std::int64_t>(work.size()), 1)).workers_used;
  return times;
}

namespace {
// The only kernel: lcs_offset_map above is the spec's suffix table dp[i][j] (one std::vector, row
// i at i * (m + 1)) in plain nested loops, its walk and its offset map, as batch-job.md says.
const std::string ALIGNMENT_DETAIL = "reference, transliterated";
}  // namespace

WorkloadInfo describe() {
  return {"batch-job",
          {"docs_dir", "db", "kernel"},
          {{.name = "seq", .family = "seq", .note = "one connection (opened and closed inside the timed region), documents in order"},
           {.name = "threads",
            .family = "threads",
            .workers = true,
            .note = "bounded pool of --workers std::threads, each opening and closing its own connection inside the timed "
                    "region; worker w takes document w, then claims documents one at a time from a shared index",
            .start = THREADS_START},
           {.name = "thread-per-doc",
            .family = "threads",
            .note = "one std::jthread per document, all started at once, each opening its own connection inside the timed region (the "
                    "seed's Ruby Thread idiom); PostgreSQL refusing connections is a limit (exit 3)"}},
          ALIGNMENT_DETAIL};
}

void run(const Invocation& call) {
  const WorkloadInfo info = describe();
  const ModelInfo& model = require_known_model(call, info);
  call.accept_only(model.workers ? std::vector<std::string>{"docs_dir", "db", "kernel", "workers"}
                                 : std::vector<std::string>{"docs_dir", "db", "kernel"});
  const StartMode start = start_mode(call, model);
  const KernelClass kernel = kernel_class(call, info);
  const std::string docs_dir = call.text("docs_dir");
  const std::string url = call.text("db");
  const int worker_count = model.workers ? call.workers() : 1;
  ChunkWorkers workers(worker_kind_named(call.model), worker_count, start);

  std::uint64_t repetitions_started = 0;
  run_repetitions(call, workers.ready(), [&] {
    JobTimes times;
    Repetition repetition;
    // Repetition 0 finds the harness's fresh database; every later one restores the job first,
    // before its clock (prepare_ns).
    const auto preparing = std::chrono::steady_clock::now();
    if (repetitions_started++ > 0) connect(url)->restore_job();
    repetition.prepare_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - preparing).count();
    BusyLog busy(worker_count);
    time_region(repetition, [&] {
      if (call.model == "seq") times = job_seq(url, docs_dir);
      else if (call.model == "threads") times = job_threads(url, docs_dir, workers, &busy);
      else times = job_thread_per_doc(url, docs_dir);
    });
    if (model.workers) repetition.busy = busy.json(repetition.clock_start);
    repetition.items = times.docs;
    // Read back after the timed region; the harness recomputes it from the database as well.
    time_checksum(repetition, [&] { return connect(url)->annotations_digest(); });
    const bool per_doc = call.model == "thread-per-doc";
    repetition.extra = {{per_doc ? "threads" : "workers", per_doc ? static_cast<std::int64_t>(times.docs) : std::int64_t{worker_count}},
                        {"chunks", static_cast<std::int64_t>(times.docs)},
                        {"workers_used", std::int64_t{times.workers_used}},
                        {"cpu_ns", static_cast<std::int64_t>(times.cpu_ns)},
                        {"io_ns", static_cast<std::int64_t>(times.io_ns)},
                        {"connect_ns", static_cast<std::int64_t>(times.connect_ns)},
                        {"db", url.rfind("sqlite:", 0) == 0 ? std::string("sqlite") : std::string("postgresql")}};
    report_kernel(repetition.extra, kernel, ALIGNMENT_DETAIL);
    return repetition;
  });
}

const WorkloadRegistration registered{describe, run};

}  // namespace parbench::batch_job
