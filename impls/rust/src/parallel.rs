//! What every parallel model shares: the one chunking rule, the count of workers that really
//! ran, and pools and threads that start and end inside the call that is timed.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Barrier, Mutex};
use std::time::Instant;

use crate::protocol::{bad_args, Busy, Call, Failure, Outcome, Sample};

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

/// Builds a pool of exactly `workers` Rayon threads, runs `work` on it, and returns only after
/// every pool thread has left Rayon's loop: `build_scoped` spawns them in a
/// `std::thread::scope`, the pool is dropped when `work` returns (Rayon then tells its threads
/// to stop) and the scope waits for every thread's closure to return. So a model timed around
/// this call has started and ended its workers on the clock; what is left after it is the
/// OS's own thread teardown (TLS destructors, exit). With `wait_for_all`, a broadcast first
/// waits until every thread runs (the `rayon-broadcast` model and the ceilings); without it
/// the work starts at once, as Rayon's own `par_iter` in a fresh pool does.
pub fn in_rayon_pool<R>(workers: usize, wait_for_all: bool, work: impl FnOnce(&rayon::ThreadPool) -> R) -> Outcome<R> {
    in_rayon_pool_noting_exits(workers, wait_for_all, || (), work)
}

/// `in_rayon_pool`, calling `on_exit` on each pool thread as it leaves Rayon's loop.
fn in_rayon_pool_noting_exits<R>(
    workers: usize,
    wait_for_all: bool,
    on_exit: impl Fn() + Sync,
    work: impl FnOnce(&rayon::ThreadPool) -> R,
) -> Outcome<R> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build_scoped(
            |thread| {
                thread.run();
                on_exit();
            },
            |pool| {
                if wait_for_all {
                    pool.broadcast(|_| ());
                }
                work(pool)
            },
        )
        .map_err(|e| Failure::Limit(format!("starting {workers} Rayon threads: {e}")))
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

/// Runs `work(w, hand)` on one scoped thread per hand and joins them all before returning.
pub fn on_scoped_threads<H: Send, T: Send>(hands: Vec<H>, work: impl Fn(usize, H) -> T + Sync) -> Vec<T> {
    std::thread::scope(|scope| {
        let work = &work;
        let threads: Vec<_> = hands.into_iter().enumerate().map(|(w, hand)| scope.spawn(move || work(w, hand))).collect();
        threads.into_iter().map(|t| t.join().expect("a worker thread panicked")).collect()
    })
}

/// As `on_scoped_threads`, but timed only from when the first thread starts its hand (all of
/// them exist by then) until the last one has finished: the ceilings' clock for the threads
/// models. Each thread reads the clock itself, so a main thread that the OS runs late cannot
/// shorten the span.
pub fn timed_on_started_threads<H: Send>(hands: Vec<H>, work: impl Fn(usize, H) + Sync) -> u128 {
    let gate = Barrier::new(hands.len());
    let spans = on_scoped_threads(hands, |w, hand| {
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

/// The data-parallel shapes sdes-ecb and keygen share: one loop, Rayon's own parallel
/// iterator, a Rayon pool driven by broadcast, scoped threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Seq,
    Rayon,
    RayonBroadcast,
    Threads,
}

/// The notes of the shapes' models, shared by the workloads that run them.
pub const RAYON_NOTE: &str = "Rayon's own scheduler: par_chunks_mut(chunk).enumerate().for_each_init (work stealing decides which pool thread runs which chunk, so at small sizes one thread may run them all: workers_used shows it) in a ThreadPool of --workers threads built with build_scoped and joined inside the timed region (pool.install)";
pub const RAYON_BROADCAST_NOTE: &str = "ThreadPool::broadcast, each pool thread claims chunks from an atomic counter (its own index first, after a broadcast that waits until every thread runs), so every worker gets a chunk at every size; pool of --workers threads built and joined inside the timed region (build_scoped)";
pub const THREADS_NOTE: &str = "--workers std::thread::scope threads spawned and joined inside the timed region; chunks dealt round-robin (static split)";

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

/// The whole of a data-parallel repetition: start the workers, fill every chunk of `slots`,
/// join the workers. `origin` is the repetition's clock start (busy intervals count from it).
/// Returns what ran (`None` for `seq`, which has no workers to report).
pub fn run_chunks<T: Send, S>(
    shape: Shape,
    slots: &mut [T],
    chunking: &Chunking,
    origin: Instant,
    init: impl Fn() -> S + Sync + Send,
    fill: impl Fill<S, T> + Send,
) -> Outcome<Option<Ran>> {
    let busy = Busy::new(chunking.workers, origin);
    let chunks = match shape {
        Shape::Seq => {
            fill(&mut init(), 0, slots);
            return Ok(None);
        }
        Shape::Rayon => in_rayon_pool(chunking.workers, false, |pool| rayon_par_chunks(pool, slots, chunking.chunk, &init, &fill, &busy))?,
        Shape::RayonBroadcast => {
            in_rayon_pool(chunking.workers, true, |pool| rayon_broadcast_chunks(pool, slots, chunking.chunk, &init, &fill, &busy))?
        }
        Shape::Threads => on_scoped_threads(dealt_chunks(slots, chunking), |w, hand| run_hand(w, hand, &init, &fill, &busy)).iter().sum(),
    };
    Ok(Some(Ran { chunks, busy }))
}

/// The same chunks in the same shape, timed with the workers already started: the ceilings'
/// clock (what the machine needs for the bare work, without starting or ending a pool).
pub fn time_chunks<T: Send, S>(
    shape: Shape,
    slots: &mut [T],
    chunking: &Chunking,
    init: impl Fn() -> S + Sync + Send,
    fill: impl Fill<S, T> + Send,
) -> Outcome<u128> {
    let busy = Busy::new(chunking.workers, Instant::now());
    Ok(match shape {
        Shape::Seq => crate::protocol::timed(|| fill(&mut init(), 0, slots)).1,
        Shape::Rayon => in_rayon_pool(chunking.workers, true, |pool| {
            crate::protocol::timed(|| rayon_par_chunks(pool, slots, chunking.chunk, &init, &fill, &busy)).1
        })?,
        Shape::RayonBroadcast => in_rayon_pool(chunking.workers, true, |pool| {
            crate::protocol::timed(|| rayon_broadcast_chunks(pool, slots, chunking.chunk, &init, &fill, &busy)).1
        })?,
        Shape::Threads => timed_on_started_threads(dealt_chunks(slots, chunking), |w, hand| {
            run_hand(w, hand, &init, &fill, &busy);
        }),
    })
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

    #[test]
    fn rayon_pool_has_exactly_the_workers_asked() {
        let threads = in_rayon_pool(3, true, |pool| pool.broadcast(|context| context.index())).unwrap();
        assert_eq!(threads, vec![0, 1, 2]);
    }

    #[test]
    fn every_rayon_pool_thread_has_left_rayon_when_the_call_returns() {
        let exited = std::sync::atomic::AtomicUsize::new(0);
        in_rayon_pool_noting_exits(
            3,
            false,
            || {
                exited.fetch_add(1, Ordering::SeqCst);
            },
            |pool| pool.install(|| ()),
        )
        .unwrap();
        assert_eq!(exited.load(Ordering::SeqCst), 3);
    }


    #[test]
    fn started_threads_are_timed_from_start_to_the_last_finish() {
        let ns = timed_on_started_threads(vec![10u64, 30], |_, ms| std::thread::sleep(std::time::Duration::from_millis(ms)));
        assert!(ns >= 30_000_000, "{ns} ns is shorter than the slowest hand");
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
        for shape in [Shape::RayonBroadcast, Shape::Threads] {
            let seen = (Mutex::new(HashSet::new()), Condvar::new());
            let mut out = vec![0u8; 4000];
            let chunking = Chunking::new(out.len(), 2, 1 << 20, None);
            let ran = run_chunks(shape, &mut out, &chunking, Instant::now(), || (), fill_waiting_for_two_threads(&seen)).unwrap().unwrap();
            assert_eq!((ran.chunks, ran.workers_used()), (2, 2), "{shape:?}");
            assert_eq!(ran.busy.intervals().as_array().unwrap().len(), 2, "{shape:?}");
            assert!(out.iter().enumerate().all(|(k, &b)| b == k as u8), "{shape:?} filled every chunk");
        }
    }

    #[test]
    fn seq_fills_everything_in_one_call_and_reports_no_workers() {
        let mut out = vec![0u8; 10];
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let chunking = Chunking::new(10, 1, usize::MAX, None);
        let ran = run_chunks(Shape::Seq, &mut out, &chunking, Instant::now(), || (), |_: &mut (), first, part: &mut [u8]| {
            calls.fetch_add(1, Ordering::Relaxed);
            assert_eq!((first, part.len()), (0, 10));
        });
        assert!(ran.unwrap().is_none());
        assert_eq!(calls.into_inner(), 1);
    }

    #[test]
    fn rayon_par_chunks_runs_every_chunk_on_pool_threads_and_records_them() {
        let mut out = vec![0u8; 10_000];
        let chunking = Chunking::new(out.len(), 2, 1000, None);
        let ran = run_chunks(Shape::Rayon, &mut out, &chunking, Instant::now(), || (), |_: &mut (), first, part: &mut [u8]| {
            part.iter_mut().enumerate().for_each(|(k, b)| *b = (first + k) as u8)
        })
        .unwrap()
        .unwrap();
        assert_eq!(ran.chunks, 10);
        assert!((1..=2).contains(&ran.workers_used()), "{ran:?}");
        assert!(out.iter().enumerate().all(|(k, &b)| b == k as u8));
    }

    #[test]
    fn every_shape_times_its_ceiling_over_every_chunk() {
        for shape in [Shape::Seq, Shape::Rayon, Shape::RayonBroadcast, Shape::Threads] {
            let mut out = vec![0u8; 3001];
            let chunking = Chunking::new(out.len(), 2, 1000, None);
            let ns = time_chunks(shape, &mut out, &chunking, || (), |_: &mut (), _, part: &mut [u8]| part.fill(1)).unwrap();
            assert!(ns > 0 && out.iter().all(|&b| b == 1), "{shape:?}");
        }
    }
}
