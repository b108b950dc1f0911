//! coroutine-swarm: `tasks` coroutines each yielding `steps` times and folding its FizzBuzz lines.

use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use crate::checksum::OrderFreeDigest;
use crate::protocol::{bad_args, repeat, Call, Failure, Outcome, Sample};
use crate::usage::measured;
use crate::workloads::{Model, Workload};

pub const WORKLOAD: Workload = Workload {
    name: "coroutine-swarm",
    params: &["tasks", "steps", "sleep_ms"],
    models: &[
        Model { name: "seq", family: "seq", workers: false, params: &[], note: "plain loop; sleep_ms must be 0" },
        Model {
            name: "tokio",
            family: "async",
            workers: true,
            params: &[],
            note: "tokio::spawn + yield_now / time::sleep on a multi-thread runtime of --workers threads, built and shut down (threads joined) inside the timed region",
        },
        Model {
            name: "tokio-current-thread",
            family: "async",
            workers: false,
            params: &[],
            note: "the same tasks on tokio's current-thread runtime, built and dropped inside the timed region",
        },
    ],
    run,
};

fn push_decimal(line: &mut Vec<u8>, mut value: u64) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    line.extend_from_slice(&digits[start..]);
}

/// Forms "task:step:fizzbuzz(step)" into `line`, reusing its allocation.
pub fn form_line(line: &mut Vec<u8>, task: u64, step: u64) {
    line.clear();
    push_decimal(line, task);
    line.push(b':');
    push_decimal(line, step);
    line.push(b':');
    match (step % 3, step % 5) {
        (0, 0) => line.extend_from_slice(b"FizzBuzz"),
        (_, 0) => line.extend_from_slice(b"Buzz"),
        (0, _) => line.extend_from_slice(b"Fizz"),
        _ => push_decimal(line, step),
    }
}

/// The article's program 1: the same lines in a plain loop, the baseline for switch cost.
pub fn swarm_seq(tasks: u64, steps: u64) -> OrderFreeDigest {
    let mut digest = OrderFreeDigest::default();
    let mut line = Vec::with_capacity(48);
    for task in 0..tasks {
        for step in 0..steps {
            form_line(&mut line, task, step);
            digest.add_item(&line);
        }
    }
    digest
}

async fn one_task(task: u64, steps: u64, sleep: Option<Duration>) -> OrderFreeDigest {
    let mut digest = OrderFreeDigest::default();
    let mut line = Vec::with_capacity(48);
    for step in 0..steps {
        match sleep {
            None => tokio::task::yield_now().await,
            Some(pause) => tokio::time::sleep(pause).await,
        }
        form_line(&mut line, task, step);
        digest.add_item(&line);
    }
    digest
}

/// Spawns every task, then waits for all; returns the digest and the time until all existed.
pub async fn swarm_tokio(tasks: u64, steps: u64, sleep: Option<Duration>, started: Instant) -> (OrderFreeDigest, u128) {
    let handles: Vec<_> = (0..tasks).map(|task| tokio::spawn(one_task(task, steps, sleep))).collect();
    let spawn_ns = started.elapsed().as_nanos();
    let mut digest = OrderFreeDigest::default();
    for handle in handles {
        digest = digest.add(handle.await.expect("a swarm task panicked"));
    }
    (digest, spawn_ns)
}

fn make_runtime(workers: Option<usize>) -> Outcome<tokio::runtime::Runtime> {
    match workers {
        Some(workers) => tokio::runtime::Builder::new_multi_thread().worker_threads(workers).enable_time().build(),
        None => tokio::runtime::Builder::new_current_thread().enable_time().build(),
    }
    .map_err(|e| Failure::Limit(e.to_string()))
}

/// One timed repetition: the runtime built, every task spawned and finished, the runtime
/// dropped (which joins its threads). Returns the digest, ns and spawn_ns.
fn swarm_repetition(tasks: u64, steps: u64, sleep: Option<Duration>, workers: Option<usize>) -> Outcome<(OrderFreeDigest, u128, u128)> {
    let started = Instant::now();
    let runtime = make_runtime(workers)?;
    let (digest, spawn_ns) = runtime.block_on(swarm_tokio(tasks, steps, sleep, started));
    drop(runtime);
    Ok((digest, started.elapsed().as_nanos(), spawn_ns))
}

/// The yield ceiling: one task on a runtime of the same shape yields `yields` times, forming
/// no lines; the runtime is built before the clock and dropped after it.
fn yield_ceiling_ns(yields: u64, workers: Option<usize>) -> Outcome<u128> {
    let runtime = make_runtime(workers)?;
    runtime.block_on(async {
        let started = Instant::now();
        let unit = tokio::spawn(async move {
            for _ in 0..yields {
                tokio::task::yield_now().await;
            }
        });
        unit.await.map_err(|e| crate::protocol::crash("the yield ceiling's task", e))?;
        Ok(started.elapsed().as_nanos())
    })
}

fn run(call: &Call) -> Outcome<()> {
    let tasks = call.number("tasks", None)?;
    let steps = call.number("steps", Some(10))?;
    let sleep_ms = call.number("sleep-ms", Some(0))?;
    let sleep = (sleep_ms > 0).then(|| Duration::from_millis(sleep_ms));
    let mut common = Map::new();
    let workers = match call.model.as_str() {
        "seq" if sleep.is_some() => {
            return Err(bad_args("seq has no scheduler to sleep in; valid --sleep-ms for seq: 0"))
        }
        "seq" => {
            return repeat(call, &common, || {
                let started = Instant::now();
                let digest = swarm_seq(tasks, steps);
                Ok(Sample::new(started.elapsed().as_nanos(), tasks, digest.hex()))
            })
        }
        "tokio" => {
            let workers = call.workers()?;
            common.insert("workers".into(), Value::from(workers));
            Some(workers)
        }
        "tokio-current-thread" => None,
        other => unreachable!("the registry lists no coroutine-swarm model '{other}'"),
    };
    repeat(call, &common, || {
        let (outcome, usage) = measured(|| swarm_repetition(tasks, steps, sleep, workers));
        let (digest, ns, spawn_ns) = outcome?;
        let sample = Sample::new(ns, tasks, digest.hex()).with("spawn_ns", spawn_ns as u64).with_usage(usage);
        if sleep.is_some() {
            return Ok(sample);
        }
        let ceiling_ns = yield_ceiling_ns(tasks * steps, workers)?;
        Ok(sample.with("ceiling", "yield").with("ceiling_ns", ceiling_ns as u64))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokio_swarm(tasks: u64, steps: u64, sleep: Option<Duration>, workers: Option<usize>) -> String {
        swarm_repetition(tasks, steps, sleep, workers).unwrap().0.hex()
    }

    #[test]
    fn task0_step0_is_0_0_fizzbuzz() {
        let mut line = Vec::new();
        form_line(&mut line, 0, 0);
        assert_eq!(line, b"0:0:FizzBuzz");
        form_line(&mut line, 12, 7);
        assert_eq!(line, b"12:7:7");
        form_line(&mut line, 1, 9);
        assert_eq!(line, b"1:9:Fizz");
        form_line(&mut line, 1, 10);
        assert_eq!(line, b"1:10:Buzz");
    }

    #[test]
    fn tasks3_steps10() {
        assert_eq!(swarm_seq(3, 10).hex(), "1161d008ce58dc37");
        assert_eq!(tokio_swarm(3, 10, None, Some(2)), "1161d008ce58dc37");
    }

    #[test]
    fn every_model_agrees_on_arbitrary_parameters() {
        for (tasks, steps) in [(301, 7), (1000, 16), (1, 31)] {
            let expected = swarm_seq(tasks, steps).hex();
            assert_eq!(tokio_swarm(tasks, steps, None, Some(2)), expected);
            assert_eq!(tokio_swarm(tasks, steps, None, None), expected);
        }
        assert_eq!(tokio_swarm(50, 3, Some(Duration::from_millis(1)), Some(2)), swarm_seq(50, 3).hex());
    }

    #[test]
    fn the_yield_ceiling_is_timed_for_both_runtimes() {
        assert!(yield_ceiling_ns(1000, Some(2)).unwrap() > 0);
        assert!(yield_ceiling_ns(1000, None).unwrap() > 0);
    }

    #[test]
    fn spawn_ns_is_within_ns() {
        let (_, ns, spawn_ns) = swarm_repetition(100, 2, None, Some(2)).unwrap();
        assert!(spawn_ns > 0 && spawn_ns <= ns);
    }
}
