# frozen_string_literal: true

require_relative "parbench/protocol"
require_relative "parbench/digest"
require_relative "parbench/workloads/noop"
require_relative "parbench/workloads/keygen"
require_relative "parbench/workloads/sdes_ecb"
require_relative "parbench/workloads/batch_job"
require_relative "parbench/workloads/spawn_chain"
require_relative "parbench/workloads/coroutine_swarm"
require_relative "parbench/workloads/echo_server"

# The Ruby implementation of the parbench workloads.
module Parbench
  WORKLOADS = {
    "noop" => Workloads::Noop,
    "keygen" => Workloads::Keygen,
    "sdes-ecb" => Workloads::SdesEcb,
    "batch-job" => Workloads::BatchJob,
    "spawn-chain" => Workloads::SpawnChain,
    "coroutine-swarm" => Workloads::CoroutineSwarm,
    "echo-server" => Workloads::EchoServer
  }.freeze

  def self.description
    {
      runtime: "ruby",
      version: RUBY_DESCRIPTION,
      flags: "none (CRuby interpreter, YJIT off, GVL)",
      sources: { strong: "SecureRandom.random_bytes (Random.urandom, getrandom(2))" }
    }
  end
end
