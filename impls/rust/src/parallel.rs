//! What every parallel model shares: the one chunking rule, the count of workers that really
//! ran, and the workers themselves, made in each repetition (cold) or once per process (warm).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Barrier, Mutex};
use std::time::Instant;

use crate::protocol::{bad_args, timed, Busy, Call, Failure, Outcome, Ready, Sample, Start};

/// `chunk = min(cap, ceil(total / workers))`, or `--chunk` when given (docs/workloads/README.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunking {
    pub total: usize,
    pub workers: usize,
    pub chunk: usize,
}

impl Chunking {
    pub fn new(total: usize, workers: usize, cap: usize, chunk_override: Option<usize>) -> Chunking {
        // max(1): an empty input still has a well-formed (zero-chunk) split.
        let chunk = chunk_override.unwrap_or_else(|| cap.min(total.div_ceil(workers))).max(1);
        Chunking { total, workers, chunk }
    }

    /// The rule for a call: `--workers` and `--chunk` (0 is refused) over `total` units.
    pub fn of_call(call: &Call, total: usize, cap: usize) -> Outcome<Chunking> {
        let chunk_override = match call.number("chunk", Some(0))? {
            0 if call.has("chunk") => return Err(bad_args("--chunk must be at least 1")),
            0 => None,
            chunk => Some(chunk as usize),
        };
        Ok(Chunking::new(total, call.workers()?, cap, chunk_override))
    }

    /// How many chunks the rule makes; the models count the ones they ran instead (`Ran`).
    #[cfg(test)]
    pub fn chunks(&self) -> usize {
        self.total.div_ceil(self.chunk)
    }
}

/// What a parallel run really did, counted by the workers as they ran: the chunks run, and
/// each worker's busy interval (which also says how many workers were used).
pub struct Ran {
    pub chunks: usize,
    pub busy: Busy,
}

impl Ran {
    pub fn workers_used(&self) -> usize {
        self.busy.used()
    }
}

impl std::fmt::Debug for Ran {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Ran {{ chunks: {}, workers_used: {} }}", self.chunks, self.workers_used())
    }
}

impl Sample {
    /// The contract's `workers`, `chunk`, `chunks` and `workers_used`, and protocol 2's `busy`.
    pub fn with_ran(self, chunking: &Chunking, ran: &Ran) -> Sample {
        self.with("workers", chunking.workers)
            .with("chunk", chunking.chunk)
            .with("chunks", ran.chunks)
            .with("workers_used", ran.workers_used())
            .with_busy(&ran.busy)
    }
}

/// Builds a pool of exactly `workers` Rayon threads, runs `work` on it, drops the pool (Rayon
/// then tells its threads to leave its loop) and joins every pool thread (`JoinHandle::join`,
/// which returns once the OS thread has ended) before returning. So a model timed around this
/// call has started and ended its workers on the clock. With `wait_for_all`, a broadcast first
/// waits until every thread runs (the `rayon-broadcast` model and the ceilings); without it
/// the work starts at once, as Rayon's own `par_iter` in a fresh pool does.
fn in_joined_rayon_pool<R>(workers: usize, wait_for_all: bool, work: impl FnOnce(&rayon::ThreadPool) -> R) -> Outcome<R> {
    let mut threads = Vec::with_capacity(workers);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .spawn_handler(|thread| {
            threads.push(std::thread::Builder::new().spawn(|| thread.run())?);
            Ok(())
        })
        .build();
    // Threads started before a failed build end when the builder drops them; joined here too.
    let outcome = pool.map(|pool| {
        if wait_for_all {
            pool.broadcast(|_| ());
        }
        work(&pool)
    });
    for thread in threads {
        thread.join().expect("a Rayon pool thread panicked outside a job");
    }
    outcome.map_err(|e| rayon_limit(workers, e))
}

fn rayon_limit(workers: usize, error: rayon::ThreadPoolBuildError) -> Failure {
    Failure::Limit(format!("starting {workers} Rayon threads: {error}"))
}

/// The pool thread's own index (0 … workers−1): Rayon's worker number.
pub fn rayon_worker() -> usize {
    rayon::current_thread_index().expect("called on a Rayon pool thread")
}

/// Deals `items` to `workers` round-robin: worker w gets items w, w + workers, w + 2·workers…
/// (a static split: every worker with at least one item is used, whatever the timing).
pub fn deal<T>(items: impl IntoIterator<Item = T>, workers: usize) -> Vec<Vec<T>> {
    let mut hands: Vec<Vec<T>> = (0..workers).map(|_| Vec::new()).collect();
    for (index, item) in items.into_iter().enumerate() {
        hands[index % workers].push(item);
    }
    hands
}

/// A job a team thread runs with its worker number, borrowed only while `ThreadTeam::run` waits.
type TeamJob = &'static (dyn Fn(usize) + Sync);

/// The warm `threads` models' workers: OS threads made once, each waiting on its own channel
/// for the next repetition's job, running it with its worker number and reporting back; the
/// threads are joined when the team is dropped (at exit).
pub struct ThreadTeam {
    jobs: Vec<mpsc::Sender<TeamJob>>,
    finished: mpsc::Receiver<std::thread::Result<()>>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl ThreadTeam {
    /// `workers` threads, each running a first (empty) job before this returns, so every one
    /// exists and has run before the caller goes on.
    pub fn start(workers: usize) -> Outcome<ThreadTeam> {
        let (report, finished) = mpsc::channel();
        let mut team = ThreadTeam { jobs: Vec::with_capacity(workers), finished, threads: Vec::with_capacity(workers) };
        for worker in 0..workers {
            let (jobs, inbox) = mpsc::channel::<TeamJob>();
            let report = report.clone();
            let thread = std::thread::Builder::new()
                .name(format!("team-{worker}"))
                .spawn(move || serve(worker, inbox, report))
                .map_err(|e| Failure::Limit(format!("starting team thread {worker} of {workers}: {e}")))?;
            team.jobs.push(jobs);
            team.threads.push(thread);
        }
        team.run(&|_| ());
        Ok(team)
    }

    /// Runs `work(w)` on every team thread w and returns when all have finished; a panic in
    /// one is raised here once every thread has reported.
    pub fn run(&self, work: &(dyn Fn(usize) + Sync)) {
        // SAFETY: the threads get `work` for this call only: it returns after every thread that
        // was handed the job has reported finishing it (a panic in the job is caught and
        // reported too), so no thread holds the reference once the borrow ends.
        let job: TeamJob = unsafe { std::mem::transmute::<&(dyn Fn(usize) + Sync), TeamJob>(work) };
        let handed = self.jobs.iter().take_while(|jobs| jobs.send(job).is_ok()).count();
        let reports: Vec<_> = (0..handed).map(|_| self.finished.recv()).collect();
        assert_eq!(handed, self.jobs.len(), "a team thread has ended");
        for report in reports {
            if let Err(panic) = report.expect("every team thread reports the job it took") {
                std::panic::resume_unwind(panic);
            }
        }
    }
}

/// A team thread's life: each job it is handed, run and reported, until the team is dropped.
fn serve(worker: usize, inbox: mpsc::Receiver<TeamJob>, report: mpsc::Sender<std::thread::Result<()>>) {
    for job in inbox {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(worker)));
        if report.send(outcome).is_err() {
            return;
        }
    }
}

impl Drop for ThreadTeam {
    fn drop(&mut self) {
        // Closing the channels ends each thread's loop.
        self.jobs.clear();
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// The data-parallel shapes sdes-ecb and keygen share: one loop, Rayon's own parallel
/// iterator, a Rayon pool driven by broadcast, OS threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Seq,
    Rayon,
    RayonBroadcast,
    Threads,
}

/// The notes of the shapes' models, shared by the workloads that run them.
pub const RAYON_NOTE: &str = "Rayon's own scheduler: par_chunks_mut(chunk).enumerate().for_each_init inside pool.install on a ThreadPool of --workers threads (work stealing decides which pool thread runs which chunk, so at small sizes one thread may run them all: workers_used shows it); cold: the pool is built in each repetition and dropped in it, and its threads (wound down by the drop) are joined before the clock stops; warm: one pool built before the ready line, install per repetition";
pub const RAYON_BROADCAST_NOTE: &str = "ThreadPool::broadcast, each pool thread claims chunks from an atomic counter (its own index first), so every worker gets a chunk at every size; cold: a pool built, broadcast to until every thread runs, dropped and its threads joined in each repetition; warm: one pool built before the ready line, broadcast per repetition";
pub const THREADS_NOTE: &str = "--workers OS threads, chunks dealt round-robin (static split); cold: std::thread::scope threads spawned and joined in each repetition; warm: threads spawned once before the ready line, handed each repetition's chunks through a channel each, joined at exit";

/// `--list`'s `start` of each shape's models: what each mode makes and where.
pub const RAYON_START: &[(&str, &str)] = &[
    ("cold", "a ThreadPool of --workers threads built and dropped in each repetition; its threads, wound down by the drop, are joined before the clock stops"),
    ("warm", "one ThreadPool of --workers threads built before the ready line; pool.install per repetition"),
];
pub const RAYON_BROADCAST_START: &[(&str, &str)] = &[
    ("cold", "a ThreadPool of --workers threads built, broadcast to and dropped in each repetition; its threads, wound down by the drop, are joined before the clock stops"),
    ("warm", "one ThreadPool of --workers threads built before the ready line; pool.broadcast per repetition"),
];
pub const THREADS_START: &[(&str, &str)] = &[
    ("cold", "--workers std::thread::scope threads spawned and joined in each repetition"),
    ("warm", "--workers std threads spawned before the ready line, handed each repetition's work through a channel each, joined at exit"),
];

impl Shape {
    pub fn of(call: &Call) -> Shape {
        match call.model.as_str() {
            "seq" => Shape::Seq,
            "rayon" => Shape::Rayon,
            "rayon-broadcast" => Shape::RayonBroadcast,
            "threads" => Shape::Threads,
            other => unreachable!("the registry lists no {} model '{other}'", call.workload),
        }
    }

    /// The chunking of a call: the rule for parallel models, one whole chunk for `seq`.
    pub fn chunking(self, call: &Call, total: usize, cap: usize) -> Outcome<Chunking> {
        match self {
            Shape::Seq => Ok(Chunking::new(total, 1, usize::MAX, None)),
            _ => Chunking::of_call(call, total, cap),
        }
    }
}

/// The workers a model runs on for a whole process: for cold, only their number (each
/// repetition makes and ends its own); for warm, the pool or team made once.
pub struct Workers {
    pub shape: Shape,
    pub count: usize,
    warm: Option<WarmPool>,
}

enum WarmPool {
    Rayon(rayon::ThreadPool),
    Threads(ThreadTeam),
}

impl Workers {
    /// `count` workers of `shape` in the start mode of the call (`None` for `seq`). A warm pool
    /// is made here, every thread running before this returns; the ready line says how long
    /// that took.
    pub fn start(shape: Shape, count: usize, start: Option<Start>) -> Outcome<(Workers, Ready)> {
        let cold = Workers { shape, count, warm: None };
        match (shape, start) {
            (Shape::Seq, _) | (_, None) => Ok((cold, Ready::None)),
            (_, Some(Start::Cold)) => Ok((cold, Ready::Cold)),
            (_, Some(Start::Warm)) => {
                let (warm, start_ns) = timed(|| WarmPool::start(shape, count));
                Ok((Workers { warm: Some(warm?), ..cold }, Ready::Warm { start_ns, workers: count }))
            }
        }
    }

    /// Runs `work` on this model's Rayon pool: a pool built and joined around it (cold;
    /// `wait_for_all` first waits until every thread runs), or the warm pool, whose threads
    /// all run already.
    pub fn in_rayon_pool<R>(&self, wait_for_all: bool, work: impl FnOnce(&rayon::ThreadPool) -> R) -> Outcome<R> {
        match &self.warm {
            Some(WarmPool::Rayon(pool)) => Ok(work(pool)),
            Some(WarmPool::Threads(_)) => unreachable!("a threads model has no Rayon pool"),
            None => in_joined_rayon_pool(self.count, wait_for_all, work),
        }
    }

    /// Runs `work(w)` on each of the `count` OS threads, w = 0 … count−1, and returns their
    /// results in that order once all have finished: scoped threads spawned and joined here
    /// (cold), or the warm team.
    pub fn on_each_thread<T: Send>(&self, work: impl Fn(usize) -> T + Sync) -> Vec<T> {
        match &self.warm {
            Some(WarmPool::Threads(team)) => {
                let results: Vec<Mutex<Option<T>>> = (0..self.count).map(|_| Mutex::new(None)).collect();
                team.run(&|w| *results[w].lock().expect("a result slot") = Some(work(w)));
                results.into_iter().map(|r| r.into_inner().expect("a result slot").expect("every team thread ran")).collect()
            }
            Some(WarmPool::Rayon(_)) => unreachable!("a Rayon model has no thread team"),
            None => std::thread::scope(|scope| {
                let work = &work;
                let threads: Vec<_> = (0..self.count).map(|w| scope.spawn(move || work(w))).collect();
                threads.into_iter().map(|t| t.join().expect("a worker thread panicked")).collect()
            }),
        }
    }

    /// `on_each_thread` with one hand of work per thread (`hands.len()` = `count`).
    pub fn on_each_hand<H: Send, T: Send>(&self, hands: Vec<H>, work: impl Fn(usize, H) -> T + Sync) -> Vec<T> {
        assert_eq!(hands.len(), self.count, "one hand per worker");
        let hands: Vec<Mutex<Option<H>>> = hands.into_iter().map(|hand| Mutex::new(Some(hand))).collect();
        self.on_each_thread(|w| work(w, hands[w].lock().expect("a hand").take().expect("each hand is taken once")))
    }

    /// As `on_each_hand`, but timed only from when the first thread starts its hand (all of
    /// them exist by then) until the last one has finished: the ceilings' clock for the threads
    /// models. Each thread reads the clock itself, so a main thread that the OS runs late cannot
    /// shorten the span.
    pub fn timed_on_started_threads<H: Send>(&self, hands: Vec<H>, work: impl Fn(usize, H) + Sync) -> u128 {
        let gate = Barrier::new(hands.len());
        let spans = self.on_each_hand(hands, |w, hand| {
            gate.wait();
            let started = Instant::now();
            work(w, hand);
            (started, Instant::now())
        });
        match (spans.iter().map(|s| s.0).min(), spans.iter().map(|s| s.1).max()) {
            (Some(first), Some(last)) => last.duration_since(first).as_nanos(),
            _ => 0,
        }
    }
}

impl WarmPool {
    fn start(shape: Shape, count: usize) -> Outcome<WarmPool> {
        match shape {
            Shape::Rayon | Shape::RayonBroadcast => {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(count).build().map_err(|e| rayon_limit(count, e))?;
                // Every pool thread running before the ready line, as the team's are.
                pool.broadcast(|_| ());
                Ok(WarmPool::Rayon(pool))
            }
            Shape::Threads => Ok(WarmPool::Threads(ThreadTeam::start(count)?)),
            Shape::Seq => unreachable!("seq has no workers to keep warm"),
        }
    }
}

/// A tokio model's multi-thread runtime: built and shut down in each repetition (cold:
/// dropping a runtime joins its worker and blocking threads), or built once before the ready
/// line and given every repetition's work with `block_on` (warm).
pub struct TokioWorkers {
    pub count: usize,
    build: fn(usize) -> std::io::Result<tokio::runtime::Runtime>,
    warm: Option<tokio::runtime::Runtime>,
}

/// `--list`'s `start` of the tokio models that build nothing but the runtime.
pub const TOKIO_START: &[(&str, &str)] = &[
    ("cold", "a multi-thread tokio runtime of --workers threads built and shut down (threads joined) in each repetition"),
    ("warm", "one multi-thread tokio runtime of --workers threads built before the ready line; block_on per repetition"),
];

impl TokioWorkers {
    /// `build(count)` makes the runtime; for warm it runs here and then `warm_up` makes
    /// whatever threads the runtime would otherwise start on demand (its blocking pool).
    pub fn start(
        count: usize,
        start: Option<Start>,
        build: fn(usize) -> std::io::Result<tokio::runtime::Runtime>,
        warm_up: fn(&tokio::runtime::Runtime, usize),
    ) -> Outcome<(TokioWorkers, Ready)> {
        let cold = TokioWorkers { count, build, warm: None };
        match start {
            None => Ok((cold, Ready::None)),
            Some(Start::Cold) => Ok((cold, Ready::Cold)),
            Some(Start::Warm) => {
                let (runtime, start_ns) = timed(|| {
                    let runtime = cold.build()?;
                    warm_up(&runtime, count);
                    Ok(runtime)
                });
                Ok((TokioWorkers { warm: Some(runtime?), ..cold }, Ready::Warm { start_ns, workers: count }))
            }
        }
    }

    fn build(&self) -> Outcome<tokio::runtime::Runtime> {
        (self.build)(self.count).map_err(|e| Failure::Limit(format!("starting a tokio runtime of {} threads: {e}", self.count)))
    }

    /// Runs `work` with the model's runtime: one built and dropped around it (cold), or the
    /// warm one.
    pub fn on_runtime<R>(&self, work: impl FnOnce(&tokio::runtime::Runtime) -> R) -> Outcome<R> {
        match &self.warm {
            Some(runtime) => Ok(work(runtime)),
            None => {
                let runtime = self.build()?;
                let result = work(&runtime);
                drop(runtime);
                Ok(result)
            }
        }
    }
}

/// A warm-up for runtimes that start every thread they use when they are built.
pub fn nothing_to_warm(_: &tokio::runtime::Runtime, _: usize) {}

/// `fill(state, first, part)` does the work of the chunk `part` of the output, whose first
/// unit has index `first`; `init` makes a worker's own state (a generator, nothing…).
pub trait Fill<S, T>: Fn(&mut S, usize, &mut [T]) + Sync {}
impl<S, T, F: Fn(&mut S, usize, &mut [T]) + Sync> Fill<S, T> for F {}

/// Rayon's own way: `par_chunks_mut` over the chunks, `for_each_init` giving each of Rayon's
/// job splits its state; which thread runs a chunk is Rayon's work stealing.
fn rayon_par_chunks<T: Send, S>(pool: &rayon::ThreadPool, slots: &mut [T], chunk: usize, init: &(impl Fn() -> S + Sync),
                                fill: &impl Fill<S, T>, busy: &Busy) -> usize {
    use rayon::prelude::*;
    let count = AtomicUsize::new(0);
    pool.install(|| {
        slots.par_chunks_mut(chunk).enumerate().for_each_init(init, |state, (index, part)| {
            busy.span(rayon_worker(), || fill(state, index * chunk, part));
            count.fetch_add(1, Ordering::Relaxed);
        })
    });
    count.into_inner()
}

/// On every thread of the pool (a broadcast): each thread takes the chunk of its own index
/// first, then claims the next unclaimed one (an atomic counter), so every worker gets work
/// at every size with at least one chunk per worker. `par_chunks_mut`'s work stealing does
/// not promise that: at 1 MiB the first thread could finish both chunks before the second,
/// just woken, stole one.
fn rayon_broadcast_chunks<T: Send, S>(pool: &rayon::ThreadPool, slots: &mut [T], chunk: usize, init: &(impl Fn() -> S + Sync),
                                      fill: &impl Fill<S, T>, busy: &Busy) -> usize {
    let parts: Vec<Mutex<Option<(usize, &mut [T])>>> =
        slots.chunks_mut(chunk).enumerate().map(|(i, part)| Mutex::new(Some((i * chunk, part)))).collect();
    let next = AtomicUsize::new(pool.current_num_threads());
    let done = pool.broadcast(|context| {
        let mut state: Option<S> = None;
        let mut count = 0;
        let mut index = context.index();
        while index < parts.len() {
            if let Some((first, part)) = parts[index].lock().expect("chunk").take() {
                busy.span(context.index(), || fill(state.get_or_insert_with(init), first, part));
                count += 1;
            }
            index = next.fetch_add(1, Ordering::Relaxed);
        }
        count
    });
    done.iter().sum()
}

/// The threads' way: chunks dealt round-robin, one hand per worker thread.
fn dealt_chunks<'a, T>(slots: &'a mut [T], chunking: &Chunking) -> Vec<Vec<(usize, &'a mut [T])>> {
    let chunk = chunking.chunk;
    deal(slots.chunks_mut(chunk).enumerate().map(|(i, part)| (i * chunk, part)), chunking.workers)
}

fn run_hand<T, S>(w: usize, hand: Vec<(usize, &mut [T])>, init: &impl Fn() -> S, fill: &impl Fill<S, T>, busy: &Busy) -> usize {
    let mut state = init();
    let chunks = hand.len();
    for (first, part) in hand {
        busy.span(w, || fill(&mut state, first, part));
    }
    chunks
}

/// The whole of a data-parallel repetition: start the workers (cold), fill every chunk of
/// `slots`, join the workers (cold). `origin` is the repetition's clock start (busy intervals
/// count from it). Returns what ran (`None` for `seq`, which has no workers to report).
pub fn run_chunks<T: Send, S>(
    workers: &Workers,
    slots: &mut [T],
    chunking: &Chunking,
    origin: Instant,
    init: impl Fn() -> S + Sync + Send,
    fill: impl Fill<S, T> + Send,
) -> Outcome<Option<Ran>> {
    let busy = Busy::new(chunking.workers, origin);
    let chunks = match workers.shape {
        Shape::Seq => {
            fill(&mut init(), 0, slots);
            return Ok(None);
        }
        Shape::Rayon => workers.in_rayon_pool(false, |pool| rayon_par_chunks(pool, slots, chunking.chunk, &init, &fill, &busy))?,
        Shape::RayonBroadcast => workers.in_rayon_pool(true, |pool| rayon_broadcast_chunks(pool, slots, chunking.chunk, &init, &fill, &busy))?,
        Shape::Threads => workers.on_each_hand(dealt_chunks(slots, chunking), |w, hand| run_hand(w, hand, &init, &fill, &busy)).iter().sum(),
    };
    Ok(Some(Ran { chunks, busy }))
}

/// The same chunks in the same shape, timed with the workers already started: the ceilings'
/// clock (what the machine needs for the bare work, without starting or ending a pool). Cold
/// models start a pool or threads of their own for it; warm ones use theirs.
pub fn time_chunks<T: Send, S>(
    workers: &Workers,
    slots: &mut [T],
    chunking: &Chunking,
    init: impl Fn() -> S + Sync + Send,
    fill: impl Fill<S, T> + Send,
) -> Outcome<u128> {
    let busy = Busy::new(chunking.workers, Instant::now());
    Ok(match workers.shape {
        Shape::Seq => timed(|| fill(&mut init(), 0, slots)).1,
        Shape::Rayon => workers.in_rayon_pool(true, |pool| timed(|| rayon_par_chunks(pool, slots, chunking.chunk, &init, &fill, &busy)).1)?,
        Shape::RayonBroadcast => {
            workers.in_rayon_pool(true, |pool| timed(|| rayon_broadcast_chunks(pool, slots, chunking.chunk, &init, &fill, &busy)).1)?
        }
        Shape::Threads => workers.timed_on_started_threads(dealt_chunks(slots, chunking), |w, hand| {
            run_hand(w, hand, &init, &fill, &busy);
        }),
    })
}

/// The three parallel shapes: with seq, every model of a chunked workload.
#[cfg(test)]
pub const PARALLEL_SHAPES: [Shape; 3] = [Shape::Rayon, Shape::RayonBroadcast, Shape::Threads];

/// Every shape in every start mode it has, `workers` each (seq has one): what the tests of a
/// chunked workload run every model on.
#[cfg(test)]
pub fn every_shape_and_start(workers: usize) -> Vec<Workers> {
    let mut all = vec![Workers::start(Shape::Seq, 1, None).unwrap().0];
    for shape in PARALLEL_SHAPES {
        for start in [Start::Cold, Start::Warm] {
            all.push(Workers::start(shape, workers, Some(start)).unwrap().0);
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::sync::{Condvar, Mutex};
    use std::thread::ThreadId;
    use std::time::Duration;

    #[test]
    fn total_3_workers_2_gives_chunk_2_and_2_chunks() {
        let chunking = Chunking::new(3, 2, 1 << 20, None);
        assert_eq!((chunking.chunk, chunking.chunks()), (2, 2));
    }

    #[test]
    fn total_10_mib_workers_2_gives_chunk_1_mib_and_10_chunks() {
        let chunking = Chunking::new(10 << 20, 2, 1 << 20, None);
        assert_eq!((chunking.chunk, chunking.chunks()), (1 << 20, 10));
    }

    #[test]
    fn keygen_cap_1024_keys() {
        let chunking = Chunking::new(1_000_000, 2, 1024, None);
        assert_eq!((chunking.chunk, chunking.chunks()), (1024, 977));
    }

    #[test]
    fn chunk_override_wins() {
        let chunking = Chunking::new(10 << 20, 2, 1 << 20, Some(1000));
        assert_eq!((chunking.chunk, chunking.chunks()), (1000, 10486));
    }

    #[test]
    fn fewer_units_than_workers_gives_one_unit_chunks() {
        let chunking = Chunking::new(3, 8, 1024, None);
        assert_eq!((chunking.chunk, chunking.chunks()), (1, 3));
    }

    #[test]
    fn empty_input_has_no_chunks() {
        assert_eq!(Chunking::new(0, 2, 1024, None).chunks(), 0);
    }

    #[test]
    fn deal_is_round_robin() {
        assert_eq!(deal(0..5, 2), vec![vec![0, 2, 4], vec![1, 3]]);
        assert_eq!(deal(0..1, 3), vec![vec![0], vec![], vec![]]);
    }

    const PARALLEL: [Shape; 3] = PARALLEL_SHAPES;

    fn workers(shape: Shape, count: usize, start: Start) -> Workers {
        Workers::start(shape, count, Some(start)).unwrap().0
    }

    #[test]
    fn rayon_pool_has_exactly_the_workers_asked_in_both_modes() {
        for start in [Start::Cold, Start::Warm] {
            let threads = workers(Shape::Rayon, 3, start).in_rayon_pool(true, |pool| pool.broadcast(|context| context.index())).unwrap();
            assert_eq!(threads, vec![0, 1, 2], "{start:?}");
        }
    }

    #[test]
    fn the_ready_line_follows_the_mode_and_times_a_warm_start() {
        assert_eq!(Workers::start(Shape::Seq, 1, None).unwrap().1, Ready::None);
        for shape in PARALLEL {
            assert_eq!(Workers::start(shape, 2, Some(Start::Cold)).unwrap().1, Ready::Cold);
            match Workers::start(shape, 2, Some(Start::Warm)).unwrap().1 {
                Ready::Warm { start_ns, workers } => assert!(start_ns > 0 && workers == 2, "{shape:?}"),
                other => panic!("{shape:?}: {other:?}"),
            }
        }
    }

    /// The OS threads that ran the chunks of one repetition of `workers`.
    fn threads_of_a_repetition(workers: &Workers) -> HashSet<ThreadId> {
        let seen = (Mutex::new(HashSet::new()), Condvar::new());
        let mut out = vec![0u8; 4000];
        let chunking = Chunking::new(out.len(), workers.count, 1 << 20, None);
        run_chunks(workers, &mut out, &chunking, Instant::now(), || (), fill_waiting_for_two_threads(&seen)).unwrap();
        seen.0.into_inner().unwrap()
    }

    #[test]
    fn warm_workers_are_the_same_threads_in_every_repetition_and_cold_ones_new_each_time() {
        // ThreadIds are never reused within a process, so a cold repetition's threads are new.
        for shape in PARALLEL {
            let warm = workers(shape, 2, Start::Warm);
            let (first, second) = (threads_of_a_repetition(&warm), threads_of_a_repetition(&warm));
            assert!(!first.is_empty() && second.is_subset(&first), "{shape:?} warm: {first:?} then {second:?}");
            let cold = workers(shape, 2, Start::Cold);
            let (first, second) = (threads_of_a_repetition(&cold), threads_of_a_repetition(&cold));
            assert!(!first.is_empty() && first.is_disjoint(&second), "{shape:?} cold: {first:?} then {second:?}");
        }
    }

    #[test]
    fn a_warm_team_answers_in_worker_order_and_survives_a_panicking_job() {
        let team = workers(Shape::Threads, 3, Start::Warm);
        assert_eq!(team.on_each_thread(|w| w * 10), vec![0, 10, 20]);
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| team.on_each_thread(|w| assert_ne!(w, 1))));
        assert!(panicked.is_err());
        assert_eq!(team.on_each_thread(|w| w), vec![0, 1, 2]);
    }

    /// The id of the calling thread as /proc shows it.
    fn os_thread_id() -> i32 {
        // SAFETY: gettid has no preconditions.
        unsafe { libc::gettid() }
    }

    #[test]
    fn every_cold_rayon_pool_thread_has_ended_when_the_call_returns() {
        let tids = workers(Shape::Rayon, 3, Start::Cold).in_rayon_pool(true, |pool| pool.broadcast(|_| os_thread_id())).unwrap();
        // A joined thread has ended; the kernel drops its /proc entry a moment after the join.
        let gone = |tid: &i32| (0..100).any(|_| !std::path::Path::new(&format!("/proc/self/task/{tid}")).exists() || { std::thread::sleep(Duration::from_millis(1)); false });
        assert!(tids.len() == 3 && tids.iter().all(gone), "{tids:?}");
    }

    #[test]
    fn started_threads_are_timed_from_start_to_the_last_finish() {
        for start in [Start::Cold, Start::Warm] {
            let ns = workers(Shape::Threads, 2, start).timed_on_started_threads(vec![10u64, 30], |_, ms| std::thread::sleep(Duration::from_millis(ms)));
            assert!(ns >= 30_000_000, "{start:?}: {ns} ns is shorter than the slowest hand");
        }
    }

    /// A fill that holds its chunk until a second thread has started one too (or 10 s have
    /// passed), so a model that gives every worker a chunk passes whatever the timing, and one
    /// that leaves a worker idle fails instead of passing by luck.
    fn fill_waiting_for_two_threads(seen: &(Mutex<HashSet<ThreadId>>, Condvar)) -> impl Fill<(), u8> + Send + '_ {
        move |_: &mut (), first: usize, part: &mut [u8]| {
            let (threads, arrived) = seen;
            let mut threads = threads.lock().unwrap();
            threads.insert(std::thread::current().id());
            arrived.notify_all();
            let _ = arrived.wait_timeout_while(threads, Duration::from_secs(10), |t| t.len() < 2).unwrap();
            part.iter_mut().enumerate().for_each(|(k, b)| *b = (first + k) as u8);
        }
    }

    #[test]
    fn broadcast_and_threads_hand_a_chunk_to_every_worker() {
        for (shape, start) in [Shape::RayonBroadcast, Shape::Threads].into_iter().flat_map(|s| [(s, Start::Cold), (s, Start::Warm)]) {
            let seen = (Mutex::new(HashSet::new()), Condvar::new());
            let mut out = vec![0u8; 4000];
            let chunking = Chunking::new(out.len(), 2, 1 << 20, None);
            let ran = run_chunks(&workers(shape, 2, start), &mut out, &chunking, Instant::now(), || (), fill_waiting_for_two_threads(&seen)).unwrap().unwrap();
            assert_eq!((ran.chunks, ran.workers_used()), (2, 2), "{shape:?} {start:?}");
            assert_eq!(ran.busy.intervals().as_array().unwrap().len(), 2, "{shape:?} {start:?}");
            assert!(out.iter().enumerate().all(|(k, &b)| b == k as u8), "{shape:?} {start:?} filled every chunk");
        }
    }

    #[test]
    fn seq_fills_everything_in_one_call_and_reports_no_workers() {
        let mut out = vec![0u8; 10];
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let chunking = Chunking::new(10, 1, usize::MAX, None);
        let seq = Workers::start(Shape::Seq, 1, None).unwrap().0;
        let ran = run_chunks(&seq, &mut out, &chunking, Instant::now(), || (), |_: &mut (), first, part: &mut [u8]| {
            calls.fetch_add(1, Ordering::Relaxed);
            assert_eq!((first, part.len()), (0, 10));
        });
        assert!(ran.unwrap().is_none());
        assert_eq!(calls.into_inner(), 1);
    }

    #[test]
    fn rayon_par_chunks_runs_every_chunk_on_pool_threads_and_records_them() {
        for start in [Start::Cold, Start::Warm] {
            let mut out = vec![0u8; 10_000];
            let chunking = Chunking::new(out.len(), 2, 1000, None);
            let ran = run_chunks(&workers(Shape::Rayon, 2, start), &mut out, &chunking, Instant::now(), || (), |_: &mut (), first, part: &mut [u8]| {
                part.iter_mut().enumerate().for_each(|(k, b)| *b = (first + k) as u8)
            })
            .unwrap()
            .unwrap();
            assert_eq!(ran.chunks, 10);
            assert!((1..=2).contains(&ran.workers_used()), "{ran:?}");
            assert!(out.iter().enumerate().all(|(k, &b)| b == k as u8));
        }
    }

    #[test]
    fn every_shape_times_its_ceiling_over_every_chunk() {
        let every = [(Shape::Seq, None)].into_iter().chain(PARALLEL.into_iter().flat_map(|s| [(s, Some(Start::Cold)), (s, Some(Start::Warm))]));
        for (shape, start) in every {
            let mut out = vec![0u8; 3001];
            let chunking = Chunking::new(out.len(), if shape == Shape::Seq { 1 } else { 2 }, 1000, None);
            let workers = Workers::start(shape, chunking.workers, start).unwrap().0;
            let ns = time_chunks(&workers, &mut out, &chunking, || (), |_: &mut (), _, part: &mut [u8]| part.fill(1)).unwrap();
            assert!(ns > 0 && out.iter().all(|&b| b == 1), "{shape:?} {start:?}");
        }
    }
}
