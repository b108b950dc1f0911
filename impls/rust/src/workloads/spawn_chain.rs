//! spawn-chain: `n` units in a chain, each waiting for an integer and passing it on plus one.

use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Instant;

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use serde_json::{Map, Value};

use crate::parallel::{nothing_to_warm, TokioWorkers, TOKIO_START};
use crate::protocol::{bad_args, crash, measure, repeat, timed, Busy, Call, Conversation, Failure, Outcome, Ready, Sample};
use crate::workloads::{Model, Workload};

pub const WORKLOAD: Workload = Workload {
    name: "spawn-chain",
    params: &["n"],
    models: &[
        Model {
            name: "tokio",
            family: "async",
            workers: true,
            params: &[],
            note: "tokio::spawn tasks linked by tokio::sync::oneshot on a multi-thread runtime of --workers threads (the tasks are made in every repetition in both modes; cold: the runtime built and shut down, threads joined, in each repetition; warm: built once before the ready line)",
            start: TOKIO_START,
            detail: "",
            start_unavailable: &[],
        },
        Model {
            name: "tokio-current-thread",
            family: "async",
            workers: false,
            params: &[],
            note: "the same tasks on tokio's current-thread runtime, built and dropped inside the timed region",
            start: &[],
            detail: "",
            start_unavailable: &[],
        },
        Model {
            name: "futures-local",
            family: "async",
            workers: false,
            params: &[],
            note: "futures::executor::LocalPool with futures::channel::oneshot, one thread",
            start: &[],
            detail: "",
            start_unavailable: &[],
        },
        Model {
            name: "threads",
            family: "threads",
            workers: false,
            params: &["stack_bytes"],
            note: "one std::thread per link with a sync_channel(1), every thread joined inside the timed region; default stack 2 MiB (std), --stack-bytes raises or lowers it as a separate case",
            start: &[],
            detail: "",
            start_unavailable: &[],
        },
    ],
    kernels: &[],
    run,
};

/// Rust's own default for spawned threads (std::thread docs), unless RUST_MIN_STACK says otherwise.
const STD_DEFAULT_STACK: usize = 2 * 1024 * 1024;

/// What a chain run gives back: the value unit 0 handed to the caller, and how many units
/// existed at once (`extra.live_units`): those that had started and not ended when the start
/// value was sent. Each unit counts itself in when it starts running and out when it ends,
/// and the caller sends the start value only once every unit has started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chained {
    pub value: u64,
    pub live_units: usize,
}

/// The units' shared count of the started and not yet ended.
#[derive(Default)]
struct Live(AtomicUsize);

impl Live {
    /// A unit starts; true for the one that brings the count to `n` (all have started).
    fn start(&self, n: u64) -> bool {
        self.0.fetch_add(1, Ordering::SeqCst) + 1 == n as usize
    }

    fn end(&self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }

    fn now(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

/// tokio tasks linked by oneshot channels; `start` goes in at the far end. With `busy`, each
/// link marks its worker thread busy when it starts and when it passes the value on.
pub async fn chain_tokio(n: u64, start: u64, busy: Option<Arc<Busy>>) -> Chained {
    let live = Arc::new(Live::default());
    let all_started = Arc::new(tokio::sync::Notify::new());
    let (to_caller, answer) = tokio::sync::oneshot::channel::<u64>();
    let mut next = to_caller;
    for _ in 0..n {
        let (sender, receiver) = tokio::sync::oneshot::channel::<u64>();
        let downstream = next;
        let (live, all_started, busy) = (live.clone(), all_started.clone(), busy.clone());
        tokio::spawn(async move {
            if live.start(n) {
                all_started.notify_one();
            }
            if let Some(busy) = &busy {
                busy.touch_here();
            }
            let value = receiver.await.expect("the upstream link dropped its sender");
            let _ = downstream.send(value + 1);
            if let Some(busy) = &busy {
                busy.touch_here();
            }
            live.end();
        });
        next = sender;
    }
    if n > 0 {
        // notify_one keeps a permit if the last unit started before this waits.
        all_started.notified().await;
    }
    let live_units = live.now();
    next.send(start).expect("the last link is waiting");
    Chained { value: answer.await.expect("unit 0 answers"), live_units }
}

/// The same chain as futures on the futures crate's single-threaded LocalPool.
pub fn chain_futures_local(n: u64, start: u64) -> Chained {
    let mut pool = LocalPool::new();
    let spawner = pool.spawner();
    let live = Rc::new(Live::default());
    let (to_caller, answer) = futures::channel::oneshot::channel::<u64>();
    let mut next = to_caller;
    for _ in 0..n {
        let (sender, receiver) = futures::channel::oneshot::channel::<u64>();
        let downstream = next;
        let live = live.clone();
        spawner
            .spawn_local(async move {
                live.start(n);
                let value = receiver.await.expect("the upstream link dropped its sender");
                let _ = downstream.send(value + 1);
                live.end();
            })
            .expect("the LocalPool accepts tasks while it exists");
        next = sender;
    }
    // Every unit runs up to its first wait, so all have started before the value goes in.
    pool.run_until_stalled();
    let live_units = live.now();
    next.send(start).expect("the last link is waiting");
    Chained { value: pool.run_until(answer).expect("unit 0 answers"), live_units }
}

/// One OS thread per link, each blocked on its own channel, every thread joined before it
/// returns. A thread that cannot be created is the limit this model exists to find, so its
/// error comes back as `Failure::Limit` (the threads already made unwind: their senders drop).
pub fn chain_threads(n: u64, start: u64, stack_bytes: Option<usize>) -> Outcome<Chained> {
    let live = Arc::new(Live::default());
    let (all_started, started) = mpsc::sync_channel::<()>(1);
    let (to_caller, answer) = mpsc::sync_channel::<u64>(1);
    let mut next = to_caller;
    let mut links = Vec::with_capacity(n as usize);
    for k in 0..n {
        let (sender, receiver) = mpsc::sync_channel::<u64>(1);
        let downstream = next;
        let (live, all_started) = (live.clone(), all_started.clone());
        let link = thread_builder(stack_bytes)
            .spawn(move || {
                if live.start(n) {
                    let _ = all_started.send(());
                }
                if let Ok(value) = receiver.recv() {
                    let _ = downstream.send(value + 1);
                }
                live.end();
            })
            .map_err(|e| Failure::Limit(format!("thread {k} of {n}: {e}")))?;
        links.push(link);
        next = sender;
    }
    drop(all_started);
    if n > 0 {
        started.recv().map_err(|e| crash("waiting for every link to start", e))?;
    }
    let live_units = live.now();
    next.send(start).map_err(|e| crash("sending the start value to the last link", e))?;
    let value = answer.recv().map_err(|e| crash("waiting for unit 0", e))?;
    for link in links {
        link.join().map_err(|_| crash("a chain thread", "panicked"))?;
    }
    Ok(Chained { value, live_units })
}

fn thread_builder(stack_bytes: Option<usize>) -> std::thread::Builder {
    match stack_bytes {
        Some(bytes) => std::thread::Builder::new().stack_size(bytes),
        None => std::thread::Builder::new(),
    }
}

fn multi_thread_runtime(workers: usize) -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().worker_threads(workers).build()
}

fn current_thread_runtime() -> Outcome<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread().build().map_err(|e| Failure::Limit(e.to_string()))
}

/// The chain on the model's multi-thread runtime: built inside the call and dropped before it
/// returns (cold: dropping a runtime joins every thread it started), or the warm one.
pub fn chain_tokio_run(n: u64, start: u64, tokio: &TokioWorkers, busy: Arc<Busy>) -> Outcome<Chained> {
    tokio.on_runtime(|runtime| runtime.block_on(chain_tokio(n, start, Some(busy))))
}

/// The chain on a current-thread runtime built and dropped inside the call.
pub fn chain_tokio_current_thread(n: u64, start: u64) -> Outcome<Chained> {
    Ok(current_thread_runtime()?.block_on(chain_tokio(n, start, None)))
}

// The hand-off ceiling: two units of the model's kind, created before the clock, pass a count
// back and forth with the model's own primitive. A oneshot is used once, so each hand-off
// carries the sender for the reply, as each link of the chain has its own oneshot.
// The unit that receives the count `n` returns `Some(n)`; the other ends when its inbox's
// sender is dropped.

struct TokioBaton(u64, tokio::sync::oneshot::Sender<TokioBaton>);

async fn tokio_player(mut inbox: tokio::sync::oneshot::Receiver<TokioBaton>, n: u64) -> Option<u64> {
    while let Ok(TokioBaton(count, reply_to)) = inbox.await {
        if count == n {
            return Some(count);
        }
        let (sender, receiver) = tokio::sync::oneshot::channel();
        reply_to.send(TokioBaton(count + 1, sender)).ok()?;
        inbox = receiver;
    }
    None
}

struct LocalBaton(u64, futures::channel::oneshot::Sender<LocalBaton>);

async fn local_player(mut inbox: futures::channel::oneshot::Receiver<LocalBaton>, n: u64) -> Option<u64> {
    while let Ok(LocalBaton(count, reply_to)) = inbox.await {
        if count == n {
            return Some(count);
        }
        let (sender, receiver) = futures::channel::oneshot::channel();
        reply_to.send(LocalBaton(count + 1, sender)).ok()?;
        inbox = receiver;
    }
    None
}

fn thread_player(inbox: mpsc::Receiver<u64>, reply_to: mpsc::SyncSender<u64>, n: u64) -> Option<u64> {
    while let Ok(count) = inbox.recv() {
        if count == n {
            return Some(count);
        }
        reply_to.send(count + 1).ok()?;
    }
    None
}

fn handed_over(n: u64, ends: [Option<u64>; 2]) -> Outcome<()> {
    match ends {
        [Some(count), None] | [None, Some(count)] if count == n => Ok(()),
        other => Err(crash("the hand-off ceiling", format!("ended with {other:?}, expected one unit at {n}"))),
    }
}

/// The hand-off on `runtime` (the model's own, or a current-thread one), both tasks spawned
/// before the clock starts.
pub fn handoff_tokio_ns(n: u64, runtime: &tokio::runtime::Runtime) -> Outcome<u128> {
    runtime.block_on(async {
        let (to_a, inbox_a) = tokio::sync::oneshot::channel();
        let (to_b, inbox_b) = tokio::sync::oneshot::channel();
        let (a, b) = (tokio::spawn(tokio_player(inbox_a, n)), tokio::spawn(tokio_player(inbox_b, n)));
        let started = Instant::now();
        let _ = to_a.send(TokioBaton(0, to_b));
        let ends = [a.await.ok().flatten(), b.await.ok().flatten()];
        let ns = started.elapsed().as_nanos();
        handed_over(n, ends).map(|()| ns)
    })
}

pub fn handoff_futures_local_ns(n: u64) -> Outcome<u128> {
    let mut pool = LocalPool::new();
    let spawner = pool.spawner();
    let (to_a, inbox_a) = futures::channel::oneshot::channel();
    let (to_b, inbox_b) = futures::channel::oneshot::channel();
    let spawn = |inbox| spawner.spawn_local_with_handle(local_player(inbox, n)).map_err(|e| crash("LocalPool", e));
    let (a, b) = (spawn(inbox_a)?, spawn(inbox_b)?);
    pool.run_until_stalled();
    let started = Instant::now();
    let _ = to_a.send(LocalBaton(0, to_b));
    let ends = pool.run_until(futures::future::join(a, b));
    let ns = started.elapsed().as_nanos();
    handed_over(n, ends.into()).map(|()| ns)
}

pub fn handoff_threads_ns(n: u64, stack_bytes: Option<usize>) -> Outcome<u128> {
    let (to_a, inbox_a) = mpsc::sync_channel(1);
    let (to_b, inbox_b) = mpsc::sync_channel(1);
    let start = to_a.clone();
    let spawn = |inbox, reply_to| {
        thread_builder(stack_bytes)
            .spawn(move || thread_player(inbox, reply_to, n))
            .map_err(|e| Failure::Limit(format!("a hand-off thread: {e}")))
    };
    let (a, b) = (spawn(inbox_a, to_b)?, spawn(inbox_b, to_a)?);
    let started = Instant::now();
    start.send(0).map_err(|e| crash("starting the hand-off", e))?;
    drop(start);
    let ends = [a.join().ok().flatten(), b.join().ok().flatten()];
    let ns = started.elapsed().as_nanos();
    handed_over(n, ends).map(|()| ns)
}

fn stack_bytes(call: &Call) -> Outcome<Option<usize>> {
    match call.number("stack-bytes", Some(0))? {
        0 => Ok(None),
        bytes if bytes < 16 * 1024 => Err(bad_args("--stack-bytes must be at least 16384")),
        bytes => Ok(Some(bytes as usize)),
    }
}

/// A model's units and what runs them for the whole process.
enum Chainer {
    Tokio(TokioWorkers),
    TokioCurrentThread,
    FuturesLocal,
    Threads(Option<usize>),
}

impl Chainer {
    /// The chain of one repetition (given the start value and the clock's start), with the
    /// busy record of a model with workers.
    fn chain(&self, n: u64, start: u64, origin: Instant) -> Outcome<(Chained, Option<Arc<Busy>>)> {
        match self {
            Chainer::Tokio(tokio) => {
                let busy = Arc::new(Busy::new(tokio.count, origin));
                Ok((chain_tokio_run(n, start, tokio, busy.clone())?, Some(busy)))
            }
            Chainer::TokioCurrentThread => Ok((chain_tokio_current_thread(n, start)?, None)),
            Chainer::FuturesLocal => Ok((chain_futures_local(n, start), None)),
            Chainer::Threads(stack_bytes) => Ok((chain_threads(n, start, *stack_bytes)?, None)),
        }
    }

    /// The hand-off ceiling on units of the model's kind: a runtime of the model's own (cold:
    /// built before the ceiling's clock and dropped after it; warm: the model's).
    fn ceiling_ns(&self, n: u64) -> Outcome<u128> {
        match self {
            Chainer::Tokio(tokio) => tokio.on_runtime(|runtime| handoff_tokio_ns(n, runtime))?,
            Chainer::TokioCurrentThread => handoff_tokio_ns(n, &current_thread_runtime()?),
            Chainer::FuturesLocal => handoff_futures_local_ns(n),
            Chainer::Threads(stack_bytes) => handoff_threads_ns(n, *stack_bytes),
        }
    }
}

fn run(call: &Call, talk: &mut Conversation) -> Outcome<()> {
    let n = call.number("n", None)?;
    let mut common = Map::new();
    let (chainer, ready) = match call.model.as_str() {
        "tokio" => {
            let workers = call.workers()?;
            common.insert("workers".into(), Value::from(workers));
            let (tokio, ready) = TokioWorkers::start(workers, call.start, multi_thread_runtime, nothing_to_warm)?;
            (Chainer::Tokio(tokio), ready)
        }
        "tokio-current-thread" => (Chainer::TokioCurrentThread, Ready::None),
        "futures-local" => (Chainer::FuturesLocal, Ready::None),
        "threads" => {
            let stack_bytes = stack_bytes(call)?;
            let effective_stack = stack_bytes
                .or_else(|| std::env::var("RUST_MIN_STACK").ok().and_then(|v| v.parse().ok()))
                .unwrap_or(STD_DEFAULT_STACK);
            common.insert("stack_bytes".into(), Value::from(effective_stack));
            (Chainer::Threads(stack_bytes), Ready::None)
        }
        other => unreachable!("the registry lists no spawn-chain model '{other}'"),
    };
    repeat(talk, ready, &common, |rep| {
        // The variant is the start value sent into the chain; the answer is start + n.
        let (outcome, measured) = measure(|origin| chainer.chain(n, rep.variant, origin));
        let (chained, busy) = outcome?;
        let (checksum, checksum_ns) = timed(|| chained.value.to_string());
        let mut sample = Sample::new(measured, n, checksum)
            .with("checksum_ns", checksum_ns as u64)
            .with("live_units", chained.live_units as u64);
        if let Some(busy) = busy {
            sample = sample.with_busy(&busy);
        }
        let ceiling_ns = chainer.ceiling_ns(n)?;
        Ok(sample.with("ceiling", "hand-off").with("ceiling_ns", ceiling_ns as u64))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Start;

    fn tokio(start: Start) -> TokioWorkers {
        TokioWorkers::start(2, Some(start), multi_thread_runtime, nothing_to_warm).unwrap().0
    }

    fn every_model(n: u64, start: u64) -> Vec<(&'static str, Chained)> {
        let busy = || Arc::new(Busy::new(2, Instant::now()));
        let mut results = vec![
            ("tokio cold", chain_tokio_run(n, start, &tokio(Start::Cold), busy()).unwrap()),
            ("tokio warm", chain_tokio_run(n, start, &tokio(Start::Warm), busy()).unwrap()),
            ("tokio-current-thread", chain_tokio_current_thread(n, start).unwrap()),
            ("futures-local", chain_futures_local(n, start)),
        ];
        if n <= 500 {
            results.push(("threads", chain_threads(n, start, Some(64 * 1024)).unwrap()));
        }
        results
    }

    #[test]
    fn the_answer_is_start_plus_n_and_every_unit_was_live_for_every_model() {
        for n in [0, 1, 2, 500, 1000, 12_345] {
            for (model, chained) in every_model(n, 0) {
                assert_eq!(chained, Chained { value: n, live_units: n as usize }, "{model} n={n}");
            }
        }
    }

    #[test]
    fn n1000_start123456_gives_124456() {
        for (model, chained) in every_model(1000, 123_456) {
            assert_eq!(chained.value.to_string(), "124456", "{model}");
        }
    }

    #[test]
    fn the_tokio_chain_records_its_worker_threads_busy() {
        for start in [Start::Cold, Start::Warm] {
            let busy = Arc::new(Busy::new(2, Instant::now()));
            chain_tokio_run(2000, 5, &tokio(start), busy.clone()).unwrap();
            assert!((1..=2).contains(&busy.used()), "{start:?}");
        }
    }

    /// The threads that ran 200 tasks in each of four repetitions on `tokio`'s runtime.
    fn threads_of_four_repetitions(tokio: &TokioWorkers) -> std::collections::HashSet<std::thread::ThreadId> {
        let seen = Arc::new(std::sync::Mutex::new(std::collections::HashSet::new()));
        for _ in 0..4 {
            let recorded = seen.clone();
            tokio
                .on_runtime(|runtime| {
                    runtime.block_on(async move {
                        let tasks: Vec<_> = (0..200)
                            .map(|_| {
                                let recorded = recorded.clone();
                                tokio::spawn(async move { recorded.lock().unwrap().insert(std::thread::current().id()) })
                            })
                            .collect();
                        for task in tasks {
                            task.await.unwrap();
                        }
                    })
                })
                .unwrap();
        }
        Arc::into_inner(seen).unwrap().into_inner().unwrap()
    }

    #[test]
    fn a_warm_runtime_runs_every_repetition_on_its_two_threads_and_a_cold_one_on_new_ones() {
        // ThreadIds are never reused: each cold repetition's runtime adds threads of its own.
        assert!(threads_of_four_repetitions(&tokio(Start::Warm)).len() <= 2);
        assert!(threads_of_four_repetitions(&tokio(Start::Cold)).len() >= 4);
    }

    #[test]
    fn the_hand_off_ceiling_hands_over_n_times_for_every_model() {
        // handed_over fails the ceiling unless exactly one unit received the count n.
        for n in [0, 1, 2, 999] {
            for start in [Start::Cold, Start::Warm] {
                assert!(Chainer::Tokio(tokio(start)).ceiling_ns(n).unwrap() > 0, "tokio {start:?} n={n}");
            }
            assert!(Chainer::TokioCurrentThread.ceiling_ns(n).unwrap() > 0, "tokio-current-thread n={n}");
            assert!(handoff_futures_local_ns(n).unwrap() > 0, "futures-local n={n}");
            assert!(handoff_threads_ns(n, Some(64 * 1024)).unwrap() > 0, "threads n={n}");
        }
    }

    #[test]
    fn a_hand_off_that_stops_short_is_an_error() {
        assert!(handed_over(5, [Some(4), None]).is_err());
        assert!(handed_over(5, [None, None]).is_err());
        assert!(handed_over(5, [None, Some(5)]).is_ok());
    }
}
