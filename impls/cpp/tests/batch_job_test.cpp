// batch-job against workloads/batch-job.md: the LCS offset map, span rules, document files, and both models on SQLite.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>

#include "workloads/batch_job.hpp"

using namespace parbench::batch_job;
namespace fs = std::filesystem;

// Expected values below come from the harness's oracle (src/parbench/oracle.py).
TEST(LcsOffsetMap, InsertedWordShiftsWhatFollows) {
  EXPECT_EQ(lcs_offset_map("the cat sat", "the big cat sat"),
            (std::vector<std::int32_t>{0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15}));
}

TEST(LcsOffsetMap, NothingInCommonMapsEverythingToTheEnd) {
  EXPECT_EQ(lcs_offset_map("abcde", "xyz"), (std::vector<std::int32_t>{3, 3, 3, 3, 3, 3}));
}

TEST(LcsOffsetMap, EmptyOldTextMapsToLengthOfNew) { EXPECT_EQ(lcs_offset_map("", "abc"), (std::vector<std::int32_t>{3})); }

TEST(AlignAnnotations, SpanIsDroppedWhenItCollapses) {
  const std::vector<Annotation> spans{{0, 5, "PERSON"}, {6, 10, "ORG"}, {11, 15, "DATE"}};
  EXPECT_EQ(align_annotations("alpha beam core", "alpha core delta", spans),
            (std::vector<Annotation>{{0, 5, "PERSON"}, {6, 16, "DATE"}}));
}

TEST(AlignAnnotations, MovedWordsKeepTheirLabels) {
  const std::vector<Annotation> spans{{0, 4, "PLACE"}, {5, 10, "WORK"}, {11, 15, "EVENT"}, {0, 15, "ORG"}};
  EXPECT_EQ(align_annotations("flow graph heap", "flow heap graph", spans),
            (std::vector<Annotation>{{0, 4, "PLACE"}, {7, 9, "WORK"}, {12, 15, "EVENT"}, {0, 15, "ORG"}}));
}

TEST(DocumentFile, ReadsIdOldAndNewWithEscapes) {
  const Document doc = parse_document(R"({"id": 3, "old": "a \"b\"\\c\n", "new": "caf\u00e9 \ud83d\ude00"})");
  EXPECT_EQ(doc.id, 3);
  EXPECT_EQ(doc.old_text, "a \"b\"\\c\n");
  EXPECT_EQ(doc.new_text, "caf\xc3\xa9 \xf0\x9f\x98\x80");
}

namespace {

struct Fixture {
  std::int64_t id;
  const char* old_text;
  const char* new_text;
  std::vector<Annotation> spans;
};

const std::vector<Fixture> fixtures = {
    {0, "alpha beam core", "alpha core delta", {{0, 5, "PERSON"}, {6, 10, "ORG"}, {11, 15, "DATE"}}},
    {1, "flow graph heap", "flow heap graph", {{0, 4, "PLACE"}, {5, 10, "WORK"}, {11, 15, "EVENT"}, {0, 15, "ORG"}}},
};

// A fresh job folder: one JSON file per document and a SQLite database in the harness's schema.
fs::path make_job(const std::string& name) {
  const fs::path folder = fs::temp_directory_path() / ("parbench-cpp-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(folder);
  fs::create_directories(folder / "docs");
  sqlite3* db = nullptr;
  sqlite3_open((folder / "job.sqlite").c_str(), &db);
  std::string sql =
      // WAL from the start, as the harness writes it: workers that switch a rollback-journal database to WAL at once can deadlock, and SQLite answers "locked" without waiting.
      "PRAGMA journal_mode=WAL;"
      "CREATE TABLE documents(doc_id INTEGER PRIMARY KEY, length INTEGER NOT NULL, annotation_count INTEGER NOT NULL, status TEXT NOT NULL);"
      "CREATE TABLE annotations(id INTEGER PRIMARY KEY, doc_id INTEGER NOT NULL, span_begin INTEGER NOT NULL, span_end INTEGER NOT NULL, label TEXT NOT NULL);"
      "CREATE TABLE pristine_documents(doc_id INTEGER PRIMARY KEY, length INTEGER NOT NULL, annotation_count INTEGER NOT NULL, status TEXT NOT NULL);"
      "CREATE TABLE pristine_annotations(doc_id INTEGER NOT NULL, span_begin INTEGER NOT NULL, span_end INTEGER NOT NULL, label TEXT NOT NULL);";
  for (const auto& doc : fixtures) {
    std::ofstream(folder / "docs" / (std::to_string(doc.id) + ".json"))
        << "{\"id\": " << doc.id << ", \"old\": \"" << doc.old_text << "\", \"new\": \"" << doc.new_text << "\"}";
    sql += "INSERT INTO documents VALUES (" + std::to_string(doc.id) + ", " + std::to_string(std::string(doc.old_text).size()) +
           ", " + std::to_string(doc.spans.size()) + ", 'pending');";
    for (const auto& span : doc.spans) {
      sql += "INSERT INTO annotations(doc_id, span_begin, span_end, label) VALUES (" + std::to_string(doc.id) + ", " +
             std::to_string(span.begin) + ", " + std::to_string(span.end) + ", '" + span.label + "');";
    }
  }
  // The harness's pristine copies of the starting rows (docs/protocol.md, batch-job).
  sql += "INSERT INTO pristine_documents SELECT doc_id, length, annotation_count, status FROM documents;"
         "INSERT INTO pristine_annotations SELECT doc_id, span_begin, span_end, label FROM annotations;";
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  return folder;
}

}  // namespace

TEST(BatchJob, SeqOnSqliteLeavesTheOracleDigest) {
  const fs::path job = make_job("seq");
  const std::string url = "sqlite:" + (job / "job.sqlite").string();
  const JobTimes times = job_seq(url, (job / "docs").string());
  EXPECT_EQ(times.docs, 2u);
  EXPECT_EQ(times.workers_used, 1);
  auto database = connect(url);
  EXPECT_EQ(database->annotations_digest(), "552704ffb02a6422");
  EXPECT_TRUE(database->pending_documents().empty());
  database.reset();
  fs::remove_all(job);
}

TEST(BatchJob, EveryModelRedoesTheWholeJobAfterTheReset) {
  const fs::path job = make_job("reset");
  const std::string url = "sqlite:" + (job / "job.sqlite").string();
  const std::string docs = (job / "docs").string();
  const parbench::ChunkWorkers warm(parbench::WorkerKind::threads, 2, parbench::StartMode::warm);
  const std::string first = (job_seq(url, docs), connect(url)->annotations_digest());
  for (int model = 0; model < 3; ++model) {
    connect(url)->restore_job();
    EXPECT_EQ(connect(url)->pending_documents().size(), 2u) << model;
    const JobTimes times = model == 0 ? job_seq(url, docs) : model == 1 ? job_threads(url, docs, warm) : job_thread_per_doc(url, docs);
    EXPECT_EQ(times.docs, 2u) << model;
    EXPECT_EQ(connect(url)->annotations_digest(), first) << model;
  }
  fs::remove_all(job);
}

TEST(BatchJob, ThreadsOnSqliteAgreeWithSeqAndUseEveryWorker) {
  const fs::path job = make_job("threads");
  const std::string url = "sqlite:" + (job / "job.sqlite").string();
  const JobTimes times = job_threads(url, (job / "docs").string(), parbench::ChunkWorkers(parbench::WorkerKind::threads, 2, parbench::StartMode::cold));
  EXPECT_EQ(times.docs, 2u);
  EXPECT_EQ(times.workers_used, 2);  // worker w takes document w first
  EXPECT_GT(times.connect_ns, 0u);
  EXPECT_EQ(connect(url)->annotations_digest(), "552704ffb02a6422");
  fs::remove_all(job);
}

TEST(BatchJob, WarmThreadsOnSqliteAgreeWithSeqAndUseEveryWorker) {
  const fs::path job = make_job("warm-threads");
  const std::string url = "sqlite:" + (job / "job.sqlite").string();
  const parbench::ChunkWorkers warm(parbench::WorkerKind::threads, 2, parbench::StartMode::warm);
  const JobTimes times = job_threads(url, (job / "docs").string(), warm);
  EXPECT_EQ(times.docs, 2u);
  EXPECT_EQ(times.workers_used, 2);
  EXPECT_EQ(connect(url)->annotations_digest(), "552704ffb02a6422");
  fs::remove_all(job);
}

TEST(BatchJob, ThreadPerDocOnSqliteAgreesWithSeq) {
  const fs::path job = make_job("thread-per-doc");
  const std::string url = "sqlite:" + (job / "job.sqlite").string();
  const JobTimes times = job_thread_per_doc(url, (job / "docs").string());
  EXPECT_EQ(times.docs, 2u);
  EXPECT_EQ(times.workers_used, 2);
  EXPECT_EQ(connect(url)->annotations_digest(), "552704ffb02a6422");
  fs::remove_all(job);
}

TEST(BatchJob, UnknownDatabaseUrlIsAUsageError) { EXPECT_THROW(connect("mysql://x"), parbench::UsageError); }
