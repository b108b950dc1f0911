# frozen_string_literal: true

module Parbench
  # The one chunking rule of every data-parallel model (docs/workloads/README.md):
  # chunk = min(cap, ceil(total / workers)), unless `--chunk` overrides it.
  module Chunking
    module_function

    # `override` 0 means "no --chunk given".
    def chunk_size(total:, workers:, cap:, override: 0)
      return override if override.positive?

      [[cap, (total + workers - 1) / workers].min, 1].max
    end

    # The chunks as ranges of unit indices (bytes, keys), in order.
    def ranges(total, chunk)
      (0...total).step(chunk).map { |first| first...[first + chunk, total].min }
    end

    # A static split: worker w takes chunks w, w + workers, w + 2 * workers, ...
    def stripes(chunks, workers)
      Array.new(workers) { |w| chunks.each_slice(workers).filter_map { |round| round[w] } }
    end
  end
end
