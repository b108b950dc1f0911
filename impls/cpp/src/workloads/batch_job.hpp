// batch-job: re-align the annotations of many documents (LCS) and store them in SQLite or PostgreSQL (seed 002).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "chunking.hpp"
#include "protocol.hpp"

namespace parbench::batch_job {

struct Annotation {
  std::int64_t begin;
  std::int64_t end;
  std::string label;
  bool operator==(const Annotation&) const = default;
};

struct Document {
  std::int64_t id = 0;
  std::string old_text;
  std::string new_text;
};

// M from the spec: where each offset of `old_text` (0..n) lands in `new_text`.
std::vector<std::int32_t> lcs_offset_map(std::string_view old_text, std::string_view new_text);
std::vector<Annotation> align_annotations(std::string_view old_text, std::string_view new_text,
                                          const std::vector<Annotation>& annotations);

// Parses the harness's {"id": …, "old": "…", "new": "…"} document file.
Document parse_document(std::string_view json);
Document read_document(const std::string& docs_dir, std::int64_t doc_id);

// docs/protocol.md, batch-job: the job restored from the harness's pristine tables before every
// repetition but the process's first, in one transaction (the same text on both databases).
inline constexpr const char* RESET_STATEMENTS[] = {
    "DELETE FROM annotations",
    "INSERT INTO annotations (doc_id, span_begin, span_end, label) "
    "SELECT doc_id, span_begin, span_end, label FROM pristine_annotations ORDER BY doc_id, span_begin, span_end, label",
    "DELETE FROM documents",
    "INSERT INTO documents (doc_id, length, annotation_count, status) "
    "SELECT doc_id, length, annotation_count, status FROM pristine_documents",
};

// One connection; every concurrent unit opens its own.
class Database {
 public:
  virtual ~Database() = default;
  virtual std::vector<std::int64_t> pending_documents() = 0;
  virtual std::vector<Annotation> annotations_of(std::int64_t doc_id) = 0;
  // In one transaction: replace the document's annotations and mark it aligned.
  virtual void store_aligned(std::int64_t doc_id, std::int64_t new_length, const std::vector<Annotation>& aligned) = 0;
  // RESET_STATEMENTS in one transaction.
  virtual void restore_job() = 0;
  // Order-free digest of "doc_id:span_begin:span_end:label" over every annotations row.
  virtual std::string annotations_digest() = 0;
};

std::uint64_t annotation_row_hash(std::int64_t doc_id, std::int64_t begin, std::int64_t end, std::string_view label);

// "sqlite:PATH" or "postgresql://user:pass@host:port/db".
std::unique_ptr<Database> connect(const std::string& url);

struct JobTimes {
  std::uint64_t cpu_ns = 0;      // alignment, summed over documents
  std::uint64_t io_ns = 0;       // document file and database work, summed over documents
  std::uint64_t connect_ns = 0;  // opening connections, summed over connections
  std::uint64_t docs = 0;
  int workers_used = 0;          // distinct threads that aligned at least one document
};

// Every model opens its connections, reads the work list, runs every document, joins its
// threads and closes its connections before it returns (all inside the timed region).
JobTimes job_seq(const std::string& url, const std::string& docs_dir);
// A bounded pool of threads (fresh in the call, or warm: `workers`), one connection each opened in
// the call, documents handed out one at a time.
JobTimes job_threads(const std::string& url, const std::string& docs_dir, const ChunkWorkers& workers, BusyLog* busy = nullptr);
// One std::thread per pending document, each opening its own connection (the seed's Ruby `thread`).
JobTimes job_thread_per_doc(const std::string& url, const std::string& docs_dir);

WorkloadInfo describe();
void run(const Invocation& call);

}  // namespace parbench::batch_job
