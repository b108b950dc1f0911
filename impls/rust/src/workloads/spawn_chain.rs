//! spawn-chain: `n` units in a chain, each waiting for an integer and passing it on plus one.

use std::sync::mpsc;
use std::time::Instant;

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use serde_json::{Map, Value};

use crate::protocol::{bad_args, crash, repeat, timed, Call, Failure, Outcome, Sample};
use crate::usage::measured;
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
            note: "tokio::spawn tasks linked by tokio::sync::oneshot on a multi-thread runtime of --workers threads, built and shut down (threads joined) inside the timed region",
        },
        Model {
            name: "tokio-current-thread",
            family: "async",
            workers: false,
            params: &[],
            note: "the same tasks on tokio's current-thread runtime, built and dropped inside the timed region",
        },
        Model {
            name: "futures-local",
            family: "async",
            workers: false,
            params: &[],
            note: "futures::executor::LocalPool with futures::channel::oneshot, one thread",
        },
        Model {
            name: "threads",
            family: "threads",
            workers: false,
            params: &["stack_bytes"],
            note: "one std::thread per link with a sync_channel(1), every thread joined inside the timed region; default stack 2 MiB (std), --stack-bytes raises or lowers it as a separate case",
        },
    ],
    run,
};

/// Rust's own default for spawned threads (std::thread docs), unless RUST_MIN_STACK says otherwise.
const STD_DEFAULT_STACK: usize = 2 * 1024 * 1024;
/// tokio tasks linked by oneshot channels; returns what unit 0 hands back to the caller.
pub async fn chain_tokio(n: u64) -> u64 {
    let (to_caller, answer) = tokio::sync::oneshot::channel::<u64>();
    let mut next = to_caller;
    for _ in 0..n {
        let (sender, receiver) = tokio::sync::oneshot::channel::<u64>();
        let downstream = next;
        tokio::spawn(async move {
            let value = receiver.await.expect("the upstream link dropped its sender");
            let _ = downstream.send(value + 1);
        });
        next = sender;
    }
    next.send(0).expect("the last link is waiting");
    answer.await.expect("unit 0 answers")
}

/// The same chain as futures on the futures crate's single-threaded LocalPool.
pub fn chain_futures_local(n: u64) -> u64 {
    let mut pool = LocalPool::new();
    let spawner = pool.spawner();
    let (to_caller, answer) = futures::channel::oneshot::channel::<u64>();
    let mut next = to_caller;
    for _ in 0..n {
        let (sender, receiver) = futures::channel::oneshot::channel::<u64>();
        let downstream = next;
        spawner
            .spawn_local(async move {
                let value = receiver.await.expect("the upstream link dropped its sender");
                let _ = downstream.send(value + 1);
            })
            .expect("the LocalPool accepts tasks while it exists");
        next = sender;
    }
    next.send(0).expect("the last link is waiting");
    pool.run_until(answer).expect("unit 0 answers")
}

/// One OS thread per link, each blocked on its own channel, every thread joined before it
/// returns. A thread that cannot be created is the limit this model exists to find, so its
/// error comes back as `Failure::Limit` (the threads already made unwind: their senders drop).
pub fn chain_threads(n: u64, stack_bytes: Option<usize>) -> Outcome<u64> {
    let (to_caller, answer) = mpsc::sync_channel::<u64>(1);
    let mut next = to_caller;
    let mut links = Vec::with_capacity(n as usize);
    for k in 0..n {
        let (sender, receiver) = mpsc::sync_channel::<u64>(1);
        let downstream = next;
        let link = thread_builder(stack_bytes)
            .spawn(move || {
                if let Ok(value) = receiver.recv() {
                    let _ = downstream.send(value + 1);
                }
            })
            .map_err(|e| Failure::Limit(format!("thread {k} of {n}: {e}")))?;
        links.push(link);
        next = sender;
    }
    next.send(0).map_err(|e| crash("sending 0 to the last link", e))?;
    let value = answer.recv().map_err(|e| crash("waiting for unit 0", e))?;
    for link in links {
        link.join().map_err(|_| crash("a chain thread", "panicked"))?;
    }
    Ok(value)
}

fn thread_builder(stack_bytes: Option<usize>) -> std::thread::Builder {
    match stack_bytes {
        Some(bytes) => std::thread::Builder::new().stack_size(bytes),
        None => std::thread::Builder::new(),
    }
}

fn make_runtime(workers: Option<usize>) -> Outcome<tokio::runtime::Runtime> {
    match workers {
        Some(workers) => tokio::runtime::Builder::new_multi_thread().worker_threads(workers).build(),
        None => tokio::runtime::Builder::new_current_thread().build(),
    }
    .map_err(|e| Failure::Limit(e.to_string()))
}

/// The chain on a runtime built inside the call and dropped before it returns (dropping a
/// runtime joins every thread it started), so a timed call starts and ends the workers.
/// `workers: None` is the current-thread runtime.
pub fn chain_tokio_run(n: u64, workers: Option<usize>) -> Outcome<u64> {
    let runtime = make_runtime(workers)?;
    Ok(runtime.block_on(chain_tokio(n)))
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

pub fn handoff_tokio_ns(n: u64, workers: Option<usize>) -> Outcome<u128> {
    let runtime = make_runtime(workers)?;
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

/// A model's chain and its ceiling, each a call that a repetition times.
type Chain = Box<dyn Fn() -> Outcome<u64>>;
type Ceiling = Box<dyn Fn() -> Outcome<u128>>;

fn run(call: &Call) -> Outcome<()> {
    let n = call.number("n", None)?;
    let mut common = Map::new();
    let (chain, ceiling): (Chain, Ceiling) = match call.model.as_str() {
        "tokio" => {
            let workers = call.workers()?;
            common.insert("workers".into(), Value::from(workers));
            (Box::new(move || chain_tokio_run(n, Some(workers))), Box::new(move || handoff_tokio_ns(n, Some(workers))))
        }
        "tokio-current-thread" => (Box::new(move || chain_tokio_run(n, None)), Box::new(move || handoff_tokio_ns(n, None))),
        "futures-local" => (Box::new(move || Ok(chain_futures_local(n))), Box::new(move || handoff_futures_local_ns(n))),
        "threads" => {
            let stack_bytes = stack_bytes(call)?;
            let effective_stack = stack_bytes
                .or_else(|| std::env::var("RUST_MIN_STACK").ok().and_then(|v| v.parse().ok()))
                .unwrap_or(STD_DEFAULT_STACK);
            common.insert("stack_bytes".into(), Value::from(effective_stack));
            (Box::new(move || chain_threads(n, stack_bytes)), Box::new(move || handoff_threads_ns(n, stack_bytes)))
        }
        other => unreachable!("the registry lists no spawn-chain model '{other}'"),
    };
    repeat(call, &common, || {
        let ((value, ns), usage) = measured(|| timed(&chain));
        let checksum = value?.to_string();
        let ceiling_ns = ceiling()?;
        Ok(Sample::new(ns, n, checksum).with_usage(usage).with("ceiling", "hand-off").with("ceiling_ns", ceiling_ns as u64))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_is_n_for_every_model() {
        for n in [0, 1, 2, 1000, 12_345] {
            assert_eq!(chain_tokio_run(n, Some(2)).unwrap(), n, "tokio n={n}");
            assert_eq!(chain_tokio_run(n, None).unwrap(), n, "tokio-current-thread n={n}");
            assert_eq!(chain_futures_local(n), n, "futures-local n={n}");
        }
        for n in [0, 1, 500] {
            assert_eq!(chain_threads(n, Some(64 * 1024)).unwrap(), n, "threads n={n}");
        }
    }

    #[test]
    fn the_hand_off_ceiling_hands_over_n_times_for_every_model() {
        // handed_over fails the ceiling unless exactly one unit received the count n.
        for n in [0, 1, 2, 999] {
            assert!(handoff_tokio_ns(n, Some(2)).unwrap() > 0, "tokio n={n}");
            assert!(handoff_tokio_ns(n, None).unwrap() > 0, "tokio-current-thread n={n}");
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
