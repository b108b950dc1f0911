// Where a chunked model's workers come from in each start mode (chunking.hpp).
#include "chunking.hpp"

namespace parbench {

WorkerKind worker_kind_named(const std::string& model) {
  if (model == "threads") return WorkerKind::threads;
  return model == "openmp" ? WorkerKind::openmp : WorkerKind::calling_thread;
}

const StartOffer THREADS_START{
    .cold = "--workers std::jthreads made and joined inside each repetition's clock",
    .warm = "--workers std::threads made once before the ready line (WorkerPool); each repetition hands them its chunks "
            "through a condition variable and waits for the round; joined at exit",
};

const StartOffer OPENMP_START{
    .warm = "libgomp's team of --workers threads, made by a first parallel region before the ready line; every "
            "repetition's parallel region (and its ceiling's) runs on that team",
    .cold_unavailable = "libgomp keeps a parallel region's threads alive and reuses them for the next region; "
                        "omp_pause_resource_all makes its detached threads leave without anything to join them, so a "
                        "repetition cannot wait for the end of the team it made",
};

ChunkWorkers::ChunkWorkers(WorkerKind kind, int workers, StartMode start) : kind_(kind), workers_(workers), start_(start) {
  if (start_ != StartMode::warm) return;
  int team = workers_;
  start_ns_ = time_ns([&] {
    if (kind_ == WorkerKind::threads) pool_ = std::make_unique<WorkerPool>(workers_);
    if (kind_ == WorkerKind::openmp) team = start_openmp_team(workers_);
  });
  // libgomp may give a smaller team than asked (OMP_THREAD_LIMIT): that is not the case asked for.
  if (team != workers_) throw LimitReached("OpenMP made a team of " + std::to_string(team) + " threads, not " + std::to_string(workers_));
}

Ready ChunkWorkers::ready() const {
  if (start_ != StartMode::warm) return {start_};
  return {start_, start_ns_, {{"workers", std::int64_t{workers_}}}};
}

}  // namespace parbench
