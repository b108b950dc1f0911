//! spawn-chain: `n` units in a chain, each waiting for an integer and passing it on plus one.

use std::sync::mpsc;
use std::thread::JoinHandle;

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use serde_json::{Map, Value};

use crate::protocol::{bad_args, crash, repeat, timed, Call, Failure, Outcome, Sample};

pub const MODELS: &[&str] = &["tokio", "tokio-current-thread", "threads", "futures-local"];

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

/// One OS thread per link, each blocked on its own channel. A thread that cannot be created is
/// the limit this model exists to find, so its error comes back as `Failure::Limit`.
pub fn chain_threads(n: u64, stack_bytes: Option<usize>) -> Outcome<(u64, Vec<JoinHandle<()>>)> {
    let (to_caller, answer) = mpsc::sync_channel::<u64>(1);
    let mut next = to_caller;
    let mut links = Vec::with_capacity(n as usize);
    for k in 0..n {
        let (sender, receiver) = mpsc::sync_channel::<u64>(1);
        let downstream = next;
        let mut builder = std::thread::Builder::new();
        if let Some(bytes) = stack_bytes {
            builder = builder.stack_size(bytes);
        }
        let link = builder
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
    Ok((value, links))
}

pub fn run(call: &Call) -> Outcome<()> {
    call.only_params(&["n", "workers", "stack-bytes"])?;
    let n = call.number("n", None)?;
    let mut common = Map::new();
    let result = |value: u64, ns| Ok(Sample::new(ns, n, value.to_string()));
    match call.model.as_str() {
        "tokio" => {
            let workers = call.workers()?;
            common.insert("workers".into(), Value::from(workers));
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(workers)
                .build()
                .map_err(|e| Failure::Limit(e.to_string()))?;
            repeat(call, &common, || {
                let (value, ns) = timed(|| runtime.block_on(chain_tokio(n)));
                result(value, ns)
            })
        }
        "tokio-current-thread" => {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .build()
                .map_err(|e| Failure::Limit(e.to_string()))?;
            repeat(call, &common, || {
                let (value, ns) = timed(|| runtime.block_on(chain_tokio(n)));
                result(value, ns)
            })
        }
        "futures-local" => repeat(call, &common, || {
            let (value, ns) = timed(|| chain_futures_local(n));
            result(value, ns)
        }),
        "threads" => {
            let stack_bytes = match call.number("stack-bytes", Some(0))? {
                0 => None,
                bytes if bytes < 16 * 1024 => return Err(bad_args("--stack-bytes must be at least 16384")),
                bytes => Some(bytes as usize),
            };
            let effective_stack = stack_bytes
                .or_else(|| std::env::var("RUST_MIN_STACK").ok().and_then(|v| v.parse().ok()))
                .unwrap_or(STD_DEFAULT_STACK);
            common.insert("stack_bytes".into(), Value::from(effective_stack));
            repeat(call, &common, || {
                let (outcome, ns) = timed(|| chain_threads(n, stack_bytes));
                let (value, links) = outcome?;
                // Joined outside the timed region so exiting threads do not leak into the next rep.
                for link in links {
                    link.join().map_err(|_| crash("a chain thread", "panicked"))?;
                }
                result(value, ns)
            })
        }
        _ => Err(call.unknown_model(MODELS)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokio_chain(n: u64, workers: usize) -> u64 {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(workers).build().unwrap();
        runtime.block_on(chain_tokio(n))
    }

    #[test]
    fn the_answer_is_n_for_every_model() {
        for n in [0, 1, 2, 1000, 12_345] {
            assert_eq!(tokio_chain(n, 2), n, "tokio n={n}");
            let current = tokio::runtime::Builder::new_current_thread().build().unwrap();
            assert_eq!(current.block_on(chain_tokio(n)), n, "tokio-current-thread n={n}");
            assert_eq!(chain_futures_local(n), n, "futures-local n={n}");
        }
        for n in [0, 1, 500] {
            let (value, links) = chain_threads(n, Some(64 * 1024)).unwrap();
            links.into_iter().for_each(|l| l.join().unwrap());
            assert_eq!(value, n, "threads n={n}");
        }
    }
}
