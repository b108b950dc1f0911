// The workers the workload tests run a chunked model on.
#pragma once

#include "chunking.hpp"

// The model's default start (docs/protocol.md): cold where offered (threads), warm for OpenMP's
// team, none for the calling thread; `start` asks for another.
inline parbench::ChunkWorkers workers_for(parbench::WorkerKind kind, int workers) {
  using parbench::StartMode;
  using parbench::WorkerKind;
  const StartMode start = kind == WorkerKind::threads  ? StartMode::cold
                          : kind == WorkerKind::openmp ? StartMode::warm
                                                       : StartMode::none;
  return {kind, workers, start};
}

inline constexpr parbench::WorkerKind CHUNKED_KINDS[] = {parbench::WorkerKind::calling_thread, parbench::WorkerKind::threads,
                                                          parbench::WorkerKind::openmp};
inline constexpr parbench::WorkerKind PARALLEL_KINDS[] = {parbench::WorkerKind::threads, parbench::WorkerKind::openmp};
