# frozen_string_literal: true

require "json"
require_relative "../digest"
require_relative "batch_job/database"
require_relative "parallel_units"

module Parbench
  module Workloads
    # batch-job (seed 002): re-align every pending document's annotations (LCS, CPU) and store
    # them in one transaction per document (database I/O).
    class BatchJob
      PARAMS = { "docs_dir" => nil, "db" => nil, "kernel" => "portable" }.freeze
      # The alignment is plain Ruby already: there is no tuned kernel.
      KERNELS = { portable: "reference, transliterated" }.freeze
      # A process's first repetition is its only fully cold one: later ones (after the reset) may
      # find an OS thread that an earlier repetition ended (Ruby 3.1 keeps those 3 s for its
      # next Thread or Ractor), which the steady-state columns show beside the first.
      PER_DOCUMENT_WARM = "its units are made per document, as the work list comes: units made before the ready line " \
                          "would be a pool, which is the bounded model's warm start"
      MODELS = {
        "seq" => { family: "seq", note: "one connection, documents in order (the seed's serial job)" },
        "thread" => { family: "threads",
                      note: "one Thread per document, each with its own connection (the seed's Thread model; the GVL serialises the Ruby code)",
                      start: { cold: "a Thread per document, made, joined and its connection closed in the repetition" },
                      start_unavailable: { warm: PER_DOCUMENT_WARM } },
        "thread-pool" => { family: "threads", workers: true,
                           note: "W Threads pulling document ids from a Queue, one connection each (OS threads; the GVL lets one run Ruby " \
                                 "code at a time, the others overlap it only while they wait on the database or the disk)",
                           start: { cold: "W Threads made in the repetition, each opening its connection; every Thread joined and " \
                                          "connection closed before the clock stops",
                                    warm: "W Threads and their W connections made before the ready line, each waiting on its own " \
                                          "inbox; each repetition hands every Thread the repetition's Queue of document ids" } },
        "fork" => { family: "processes",
                    note: "one Process.fork per document, each with its own connection; cpu_ns/io_ns back over a pipe with Marshal (the seed's process model)",
                    start: { cold: "a process forked per document, its connection opened and closed in it, reaped in the repetition" },
                    start_unavailable: { warm: PER_DOCUMENT_WARM } },
        "fork-pool" => { family: "processes", workers: true,
                         note: "W forked workers, one connection each, taking documents one at a time from a shared pipe of tickets; figures back over a pipe with Marshal",
                         start: { cold: "W processes forked in the repetition, each opening its connection; every one reaped " \
                                        "before the clock stops",
                                  warm: "W processes and their W connections made before the ready line, reading document ids " \
                                        "from one ticket pipe; each repetition writes its document ids there" } },
        "ractor" => { family: "actors",
                      note: "one Ractor per document reads its JSON file and aligns; the sqlite3/pg objects are not shareable, so every database read and transaction runs in the main Ractor",
                      start: { cold: "a Ractor per document, made and its value taken in the repetition" },
                      start_unavailable: { warm: PER_DOCUMENT_WARM } }
      }.freeze
      TICKET = "L<" # a document's index in the work list, as fork-pool hands it out
      TICKET_BYTES = 4

      def initialize(model:, workers:, docs_dir:, db:, kernel: "portable")
        @kernel = Protocol.check_kernel(KERNELS, kernel)
        BatchDatabase.check_url(db)
        raise BadArguments, "--docs-dir '#{docs_dir}' is not a directory" unless File.directory?(docs_dir)

        @model = model
        @workers = workers
        @docs_dir = docs_dir
        @url = db
      end

      def extra
        fields = { kernel: @kernel, kernel_detail: KERNELS[@kernel.to_sym] }
        @model.end_with?("-pool") ? fields.merge(workers: @workers) : fields
      end

      # No variants. Before every repetition but the first (which finds the harness's fresh
      # database) the job is restored from the pristine tables, inside prepare_ns (docs/protocol.md).
      def prepare(_variant)
        @repetitions_prepared = (@repetitions_prepared || 0) + 1
        with_connection(&:restore_job) if @repetitions_prepared > 1
      end

      # Every model answers [timings, worker] per document: timings are [cpu_ns, io_ns], worker
      # names the Thread, process or Ractor that aligned it. The pools also report each
      # worker's busy interval.
      def run
        @busy = @model.end_with?("-pool") ? [] : nil
        doc_ids = with_connection(&:pending_doc_ids)
        results = send("run_#{@model.tr('-', '_')}", doc_ids)
        extra = { cpu_ns: results.sum { |(cpu_ns, _), _| cpu_ns }, io_ns: results.sum { |(_, io_ns), _| io_ns } }
        extra.merge!(chunks: doc_ids.size, workers_used: results.map(&:last).uniq.size) unless @model == "seq"
        Outcome.new(items: doc_ids.size, checksum: -> { checksum }, extra: extra, busy: @busy)
      end

      def checksum
        rows = with_connection(&:all_annotation_rows)
        Digest::OrderFree.of(rows.map { |row| row.join(":") }).to_s
      end

      def with_connection
        database = BatchDatabase.open(@url)
        yield database
      ensure
        database&.close
      end

      def run_seq(doc_ids)
        with_connection { |database| doc_ids.map { |doc_id| [process(doc_id, database), :main] } }
      end

      def run_thread(doc_ids)
        doc_ids.map do |doc_id|
          Thread.new { with_connection { |database| [process(doc_id, database), Thread.current.object_id] } }
        end.map(&:value)
      end

      def run_thread_pool(doc_ids)
        queue = Queue.new
        doc_ids.each { |doc_id| queue << doc_id }
        queue.close
        return run_warm_threads(queue) if @inboxes

        busy = @busy
        Array.new(@workers) do |w|
          Thread.new { with_connection { |database| drain(queue, database, w, busy) } }
        end.flat_map(&:value)
      end

      # One Thread's share of a repetition: documents from `queue` until it is empty; its busy
      # interval goes to `busy` (Array#<< holds the GVL: no two threads interleave in it).
      def drain(queue, database, worker, busy)
        started = Protocol.now_ns
        results = []
        while (doc_id = queue.pop)
          results << [process(doc_id, database), Thread.current.object_id]
        end
        results
      ensure
        busy << [worker, started, Protocol.now_ns]
      end

      # The warm start (protocol 3): thread-pool's W Threads, or fork-pool's W processes, and
      # their connections, made before the ready line.
      def start_workers
        @model == "fork-pool" ? start_forked_pool : start_threads
      end

      def stop_workers
        @model == "fork-pool" ? stop_forked_pool : stop_threads
      end

      # Each Thread opens its connection, says so, then drains one repetition's Queue per
      # message in its inbox; a failure goes to `@answers` in place of its results.
      def start_threads
        @answers = Queue.new
        @inboxes = Array.new(@workers) { Queue.new }
        @warm_threads = @inboxes.each_with_index.map do |inbox, w|
          Thread.new do
            with_connection do |database|
              @answers << :connected
              while (queue, busy = inbox.pop)
                @answers << drain(queue, database, w, busy)
              end
            end
          rescue Exception => e # rubocop:disable Lint/RescueException -- else the main thread would wait forever
            @answers << e
          end
        end
        @workers.times { take_answer }
      end

      def run_warm_threads(queue)
        @inboxes.each { |inbox| inbox << [queue, @busy] }
        Array.new(@workers) { take_answer }.flat_map(&:itself)
      end

      def take_answer
        answer = @answers.pop
        raise answer if answer.is_a?(Exception)

        answer
      end

      def stop_threads
        @inboxes&.each(&:close)
        @warm_threads&.each(&:join)
      end

      def run_fork(doc_ids)
        workers = ParallelUnits.fork_workers(doc_ids.size) do |k, channel|
          with_connection { |database| channel.send_message(Marshal.dump([process(doc_ids[k], database), Process.pid])) }
        end
        gather_forked(workers)
      end

      # Documents go out one at a time through a shared pipe of 4-byte tickets (writes of at
      # most PIPE_BUF bytes are atomic, so each read takes one whole ticket): an idle worker
      # takes the next document, as a pool's queue does.
      def run_fork_pool(doc_ids)
        return run_warm_fork_pool(doc_ids) if @pool

        tickets, ticket_writer = IO.pipe
        workers = ParallelUnits.fork_workers(@workers) do |_w, channel|
          ticket_writer.close
          with_connection do |database|
            while (k = BatchJob.next_ticket(tickets))
              channel.send_message(Marshal.dump([process(doc_ids[k], database), Process.pid]))
            end
          end
        end
        tickets.close
        # A thread feeds the tickets so that a full ticket pipe never waits on the results below.
        feeder = Thread.new { BatchJob.write_tickets(ticket_writer, doc_ids.size) }
        gather_forked(workers, @busy).tap { feeder.join }
      end

      def self.write_tickets(writer, count)
        count.times { |k| writer.write([k].pack(TICKET)) }
      ensure
        writer.close
      end

      # fork-pool's warm start: W processes, each with its connection, reading document ids
      # (not indices: the work list is read in each repetition) from one ticket pipe that a
      # feeder Thread, made with them, fills from the main thread's work lists.
      def start_forked_pool
        tickets, ticket_writer = IO.pipe
        @pool = ParallelUnits.fork_workers(@workers) do |_w, channel|
          ticket_writer.close
          with_connection do |database|
            channel.send_message(Marshal.dump(:connected))
            while (doc_id = BatchJob.next_ticket(tickets))
              started = Protocol.now_ns
              times = process(doc_id, database)
              channel.send_message(Marshal.dump([times, Process.pid, started, Protocol.now_ns]))
            end
          end
        end
        tickets.close
        @work_lists = Queue.new
        @feeder = Thread.new { BatchJob.feed_tickets(@work_lists, ticket_writer) }
        ParallelUnits.receive_messages(@pool, @workers) { |_worker, message| Marshal.load(message) }
      rescue StandardError => e
        # A worker that could not connect fails the start. The others, connected and waiting
        # for tickets, are ended and reaped with it: no process outlives the failed call.
        begin
          stop_forked_pool
        rescue StandardError
          nil # the first failure is the one to report
        end
        raise e
      end

      def self.feed_tickets(work_lists, writer)
        while (doc_ids = work_lists.pop)
          doc_ids.each { |doc_id| writer.write([doc_id].pack(TICKET)) }
        end
      ensure
        writer.close
      end

      # One repetition on the warm processes: a result per document, each with its worker's
      # busy interval, gathered into one interval per worker.
      def run_warm_fork_pool(doc_ids)
        @work_lists << doc_ids
        spans = {}
        results = []
        ParallelUnits.receive_messages(@pool, doc_ids.size) do |worker, message|
          times, pid, started, ended = Marshal.load(message)
          first, last = spans[worker.index]
          spans[worker.index] = [[first || started, started].min, [last || ended, ended].max]
          results << [times, pid]
        end
        spans.each { |index, (first, last)| @busy << [index, first, last] }
        results
      end

      # Closing the feed ends the ticket pipe: every worker reads its end, closes its connection
      # and exits; each is reaped here.
      def stop_forked_pool
        @work_lists&.close
        @feeder&.join
        ParallelUnits.each_message(@pool) { |_worker, _message| nil } if @pool
      end

      # The warm processes' CPU so far: they are not reaped inside the clock, so getrusage
      # cannot see it (Protocol adds it to cpu_user_ns).
      def workers_cpu_ns
        @pool ? Protocol.processes_cpu_ns(@pool.map(&:pid)) : 0
      end

      def self.next_ticket(tickets)
        tickets.sysread(TICKET_BYTES).unpack1(TICKET)
      rescue EOFError
        nil
      end

      def gather_forked(workers, busy = nil)
        results = []
        ParallelUnits.each_message(workers, busy: busy) { |_worker, message| results << Marshal.load(message) }
        results
      end

      def run_ractor(doc_ids)
        with_connection do |database|
          pending = doc_ids.to_h do |doc_id|
            started = Protocol.now_ns
            rows = database.annotations(doc_id)
            read_ns = Protocol.now_ns - started
            ractor = Ractor.new(doc_id, @docs_dir, rows.map { |_id, *span| span }) do |id, dir, spans|
              BatchJob.read_and_align(id, dir, spans)
            end
            [ractor, [rows.map(&:first), read_ns]]
          end
          Array.new(doc_ids.size) { store_aligned(database, pending) }
        end
      end

      # Takes the next Ractor's alignment (its block's value: the Ractor has ended) and stores it.
      def store_aligned(database, pending)
        ractor, (doc_id, new_length, aligned, cpu_ns, file_ns) = Ractor.select(*pending.keys)
        ids, read_ns = pending.delete(ractor)
        started = Protocol.now_ns
        database.replace_annotations(doc_id, ids, aligned, new_length)
        [[cpu_ns, file_ns + read_ns + Protocol.now_ns - started], ractor.object_id]
      end

      def process(doc_id, database)
        BatchJob.process(doc_id, @docs_dir, database)
      end

      # One document start to finish on `database`; returns [cpu_ns, io_ns].
      def self.process(doc_id, docs_dir, database)
        started = Protocol.now_ns
        document = read_document(doc_id, docs_dir)
        rows = database.annotations(doc_id)
        read = Protocol.now_ns
        aligned = align_annotations(document["old"], document["new"], rows.map { |_id, *span| span })
        aligned_at = Protocol.now_ns
        database.replace_annotations(doc_id, rows.map(&:first), aligned, document["new"].bytesize)
        [aligned_at - read, read - started + Protocol.now_ns - aligned_at]
      end

      # The Ractor's share: file and alignment, no database. Returns what the main Ractor stores.
      def self.read_and_align(doc_id, docs_dir, spans)
        started = Protocol.now_ns
        document = read_document(doc_id, docs_dir)
        read = Protocol.now_ns
        aligned = align_annotations(document["old"], document["new"], spans)
        [doc_id, document["new"].bytesize, aligned, Protocol.now_ns - read, read - started]
      end

      def self.read_document(doc_id, docs_dir)
        JSON.parse(File.read(File.join(docs_dir, "#{doc_id}.json")))
      end

      # Annotation [b, e) becomes [M[b], M[e]); dropped when that is empty.
      def self.align_annotations(old, new, spans)
        offsets = offset_map(old, new)
        spans.filter_map do |span_begin, span_end, label|
          moved_begin = offsets[span_begin]
          moved_end = offsets[span_end]
          [moved_begin, moved_end, label] if moved_begin < moved_end
        end
      end

      # M from workloads/batch-job.md: M[i] is where byte i of `old` lands in `new`.
      def self.offset_map(old, new)
        a = old.bytes
        b = new.bytes
        lcs = suffix_lcs_table(a, b)
        matched_to = Array.new(a.size)
        i = j = 0
        while i < a.size && j < b.size
          if a[i] == b[j]
            matched_to[i] = j
            i += 1
            j += 1
          elsif lcs[i + 1][j] >= lcs[i][j + 1]
            i += 1
          else
            j += 1
          end
        end
        offsets = Array.new(a.size + 1)
        offsets[a.size] = b.size
        (a.size - 1).downto(0) { |k| offsets[k] = matched_to[k] || offsets[k + 1] }
        offsets
      end

      # dp[i][j] = LCS(a[i..], b[j..]), one row per i; a while loop because this is the job's
      # whole CPU cost and a block call per cell would double it.
      def self.suffix_lcs_table(a, b)
        m = b.size
        below = Array.new(m + 1, 0)
        rows = Array.new(a.size + 1)
        rows[a.size] = below
        (a.size - 1).downto(0) do |i|
          byte = a[i]
          row = Array.new(m + 1, 0)
          right = 0
          j = m - 1
          while j >= 0
            right = if byte == b[j]
                      below[j + 1] + 1
                    else
                      down = below[j]
                      down >= right ? down : right
                    end
            row[j] = right
            j -= 1
          end
          rows[i] = row
          below = row
        end
        rows
      end
    end
  end
end
