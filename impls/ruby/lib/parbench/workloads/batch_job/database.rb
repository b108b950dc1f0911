# frozen_string_literal: true

module Parbench
  module Workloads
    # One connection to the batch-job database, SQLite (`sqlite:PATH`) or PostgreSQL (a URL),
    # behind the four statements the job needs.
    class BatchDatabase
      PENDING = "SELECT doc_id FROM documents WHERE status = 'pending' ORDER BY doc_id"
      ALL_ROWS = "SELECT doc_id, span_begin, span_end, label FROM annotations"
      # docs/protocol.md, batch-job: the job restored from the harness's pristine tables before
      # every repetition but the process's first, in one transaction (same text on both databases).
      RESET = [
        "DELETE FROM annotations",
        "INSERT INTO annotations (doc_id, span_begin, span_end, label) " \
        "SELECT doc_id, span_begin, span_end, label FROM pristine_annotations ORDER BY doc_id, span_begin, span_end, label",
        "DELETE FROM documents",
        "INSERT INTO documents (doc_id, length, annotation_count, status) " \
        "SELECT doc_id, length, annotation_count, status FROM pristine_documents"
      ].freeze

      def self.open(url)
        url.start_with?("postgres") ? Postgres.new(url) : Sqlite.new(url)
      end

      def self.check_url(url)
        return if url.start_with?("sqlite:", "postgres://", "postgresql://")

        raise BadArguments, "--db must be sqlite:PATH or postgresql://user:pass@host:port/db, got '#{url}'"
      end

      def pending_doc_ids
        rows(PENDING).map { |row| Integer(row[0]) }
      end

      def all_annotation_rows
        rows(ALL_ROWS).map { |doc_id, span_begin, span_end, label| [Integer(doc_id), Integer(span_begin), Integer(span_end), label] }
      end

      def restore_job
        transaction { RESET.each { |sql| execute(sql) } }
      end

      # [[id, span_begin, span_end, label], ...] in id order.
      def annotations(doc_id)
        rows(self.class::ANNOTATIONS, doc_id).map { |id, b, e, label| [Integer(id), Integer(b), Integer(e), label] }
      end

      # The rows keep the ids of the ones they replace (an alignment never adds annotations), so
      # no auto-increment is needed: PostgreSQL's `id INTEGER PRIMARY KEY` has none.
      def replace_annotations(doc_id, ids, aligned, new_length)
        transaction do
          execute(self.class::DELETE, doc_id)
          aligned.each_with_index do |(span_begin, span_end, label), k|
            execute(self.class::INSERT, ids[k], doc_id, span_begin, span_end, label)
          end
          execute(self.class::UPDATE, new_length, aligned.size, doc_id)
        end
      end

      # SQLite in WAL mode with synchronous=FULL, so every commit reaches the disk.
      class Sqlite < BatchDatabase
        ANNOTATIONS = "SELECT id, span_begin, span_end, label FROM annotations WHERE doc_id = ? ORDER BY id"
        DELETE = "DELETE FROM annotations WHERE doc_id = ?"
        INSERT = "INSERT INTO annotations(id, doc_id, span_begin, span_end, label) VALUES (?, ?, ?, ?, ?)"
        UPDATE = "UPDATE documents SET length = ?, annotation_count = ?, status = 'aligned' WHERE doc_id = ?"

        def initialize(url)
          require "sqlite3"
          path = url.delete_prefix("sqlite:").sub(%r{\A//(?=/)}, "")
          @db = SQLite3::Database.new(path)
          # Concurrent writers wait. Not busy_timeout: the gem keeps the GVL while SQLite sleeps
          # in it, so the thread holding the write lock could never run to release it; a Ruby
          # `sleep` in the handler gives the GVL away.
          @db.busy_handler { |_attempt| sleep(0.0005) || true }
          @db.execute("PRAGMA journal_mode=WAL")
          @db.execute("PRAGMA synchronous=FULL")
        end

        def rows(sql, *binds)
          @db.execute(sql, binds)
        end

        def execute(sql, *binds)
          @db.execute(sql, binds)
        end

        # IMMEDIATE takes the write lock up front: a deferred transaction upgrading its read lock
        # in WAL mode fails with SQLITE_BUSY at once instead of waiting.
        def transaction(&block)
          @db.transaction(:immediate, &block)
        end

        def close
          @db.close
        end
      end

      # PostgreSQL through ruby-pg, whose calls release the GVL while they wait on the server.
      class Postgres < BatchDatabase
        ANNOTATIONS = "SELECT id, span_begin, span_end, label FROM annotations WHERE doc_id = $1 ORDER BY id"
        DELETE = "DELETE FROM annotations WHERE doc_id = $1"
        INSERT = "INSERT INTO annotations(id, doc_id, span_begin, span_end, label) VALUES ($1, $2, $3, $4, $5)"
        UPDATE = "UPDATE documents SET length = $1, annotation_count = $2, status = 'aligned' WHERE doc_id = $3"

        def initialize(url)
          require "pg"
          @connection = PG.connect(url)
        end

        def rows(sql, *binds)
          @connection.exec_params(sql, binds).values
        end

        def execute(sql, *binds)
          @connection.exec_params(sql, binds)
        end

        def transaction(&block)
          @connection.transaction(&block)
        end

        def close
          @connection.close
        end
      end
    end
  end
end
