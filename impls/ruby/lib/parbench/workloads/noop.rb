# frozen_string_literal: true

module Parbench
  module Workloads
    # The empty workload: its timing is the harness's measure of boot and protocol overhead.
    class Noop
      PARAMS = {}.freeze
      MODELS = { "seq" => { family: "seq" } }.freeze

      def initialize(model:, workers:); end

      def extra
        {}
      end

      def prepare(_variant); end

      def run
        Outcome.new(items: 0, checksum: "noop")
      end
    end
  end
end
