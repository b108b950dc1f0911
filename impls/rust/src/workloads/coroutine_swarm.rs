//! coroutine-swarm: `tasks` coroutines each yielding `steps` times and folding its FizzBuzz lines.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use tokio::sync::Semaphore;

use crate::digest::OrderFreeDigest;
use crate::parallel::{nothing_to_warm, TokioWorkers, TOKIO_START};
use crate::protocol::{bad_args, measure, repeat, timed, Busy, Call, Conversation, Failure, Outcome, Ready, Sample};
use crate::workloads::{Model, Workload};

pub const WORKLOAD: Workload = Workload {
    name: "coroutine-swarm",
    params: &["tasks", "steps", "sleep_ms"],
    models: &[
        Model { name: "seq", family: "seq", workers: false, params: &[], note: "plain loop; sleep_ms must be 0", start: &[], detail: "", start_unavailable: &[] },
        Model {
            name: "tokio",
            family: "async",
            workers: true,
            params: &[],
            note: "tokio::spawn (every task behind a start gate, a Semaphore opened once all exist) + yield_now / time::sleep on a multi-thread runtime of --workers threads (the tasks are made in every repetition in both modes; cold: the runtime built and shut down, threads joined, in each repetition; warm: built once before the ready line)",
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
    ],
    kernels: &[],
    run,
};

/// Forms "task:step:fizzbuzz(step)" into `line`, reusing its allocation.
pub fn form_line(line: &mut Vec<u8>, task: u64, step: u64) {
    line.clear();
    // Writing into a Vec<u8> cannot fail.
    let _ = match (step % 3, step % 5) {
        (0, 0) => write!(line, "{task}:{step}:FizzBuzz"),
        (_, 0) => write!(line, "{task}:{step}:Buzz"),
        (0, _) => write!(line, "{task}:{step}:Fizz"),
        _ => write!(line, "{task}:{step}:{step}"),
    };
}

/// The scheduler's passes from one task to another, counted at every step as protocol 2 says:
/// `prev = last.swap(me); if prev != me: switches += 1` (the first step of all has no `prev`).
#[derive(Debug)]
pub struct Switches {
    last: AtomicU64,
    count: AtomicU64,
}

const NO_TASK: u64 = u64::MAX;

impl Default for Switches {
    fn default() -> Switches {
        Switches { last: AtomicU64::new(NO_TASK), count: AtomicU64::new(0) }
    }
}

impl Switches {
    pub fn step(&self, me: u64) {
        let prev = self.last.swap(me, Ordering::Relaxed);
        if prev != me && prev != NO_TASK {
            self.count.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }
}

/// Protocol 4's proof of interleaving: every step draws the next ticket (a fetch-add: tasks step
/// on several worker threads), so tickets number the steps in the order they ran; about 16 probe
/// tasks, picked by the salt (`(task + salt) % stride == 0`), keep their first and last tickets.
#[derive(Debug)]
pub struct Tickets {
    drawn: AtomicU64,
    stride: u64,
    salt: u64,
    probes: Mutex<Vec<[u64; 3]>>,
}

impl Tickets {
    pub fn new(tasks: u64, salt: u64) -> Tickets {
        Tickets { drawn: AtomicU64::new(0), stride: (tasks / 16).max(1), salt, probes: Mutex::new(Vec::new()) }
    }

    pub fn draw(&self) -> u64 {
        self.drawn.fetch_add(1, Ordering::Relaxed)
    }

    /// Once a task: the lock is taken by probe tasks only.
    pub fn finished(&self, task: u64, first: u64, last: u64) {
        if (task + self.salt) % self.stride == 0 {
            self.probes.lock().expect("a probe's lock was poisoned").push([task, first, last]);
        }
    }

    pub fn drawn(&self) -> u64 {
        self.drawn.load(Ordering::Relaxed)
    }

    pub fn probes(&self) -> Vec<[u64; 3]> {
        self.probes.lock().expect("a probe's lock was poisoned").clone()
    }
}

/// The article's program 1: the same lines in a plain loop, the baseline for switch cost.
/// Task t's lines carry the id `t + salt`. Returns the digest and the switches (one thread,
/// so a plain variable: `tasks − 1`, the tasks never interleave).
pub fn swarm_seq(tasks: u64, steps: u64, salt: u64) -> (OrderFreeDigest, u64) {
    let mut digest = OrderFreeDigest::default();
    let mut line = Vec::with_capacity(48);
    let (mut last, mut switches) = (NO_TASK, 0);
    for task in 0..tasks {
        for step in 0..steps {
            if last != task && last != NO_TASK {
                switches += 1;
            }
            last = task;
            form_line(&mut line, task + salt, step);
            digest.add_item(&line);
        }
    }
    (digest, switches)
}

/// What every task of one swarm shares: the switch count and, on the multi-thread runtime,
/// the busy intervals of its worker threads.
pub struct Shared {
    pub switches: Switches,
    pub tickets: Tickets,
    pub busy: Option<Busy>,
}

async fn one_task(task: u64, steps: u64, salt: u64, sleep: Option<Duration>, shared: Arc<Shared>, gate: Arc<Semaphore>) -> OrderFreeDigest {
    drop(gate.acquire().await.expect("the start gate is never closed"));
    let mut digest = OrderFreeDigest::default();
    let mut line = Vec::with_capacity(48);
    let (mut first, mut ticket) = (0, 0);
    for step in 0..steps {
        match sleep {
            None => tokio::task::yield_now().await,
            Some(pause) => tokio::time::sleep(pause).await,
        }
        shared.switches.step(task);
        ticket = shared.tickets.draw();
        if step == 0 {
            first = ticket;
        }
        if let Some(busy) = &shared.busy {
            busy.touch_here();
        }
        form_line(&mut line, task + salt, step);
        digest.add_item(&line);
    }
    if steps > 0 {
        shared.tickets.finished(task, first, ticket);
    }
    digest
}

/// Spawns every task behind a start gate, opens it, then waits for all; returns the digest and
/// the time until all existed. The gate, as Go's swarm has: on the multi-thread runtime the
/// workers would otherwise take each task as it is spawned and run it to its end before the next
/// exists (at 5,000 tasks, one salt in five found its probe tasks' tickets disjoint).
pub async fn swarm_tokio(tasks: u64, steps: u64, salt: u64, sleep: Option<Duration>, started: Instant, shared: Arc<Shared>) -> (OrderFreeDigest, u128) {
    let gate = Arc::new(Semaphore::new(0));
    let handles: Vec<_> =
        (0..tasks).map(|task| tokio::spawn(one_task(task, steps, salt, sleep, shared.clone(), gate.clone()))).collect();
    let spawn_ns = started.elapsed().as_nanos();
    gate.add_permits(tasks.max(1) as usize);
    let mut digest = OrderFreeDigest::default();
    for handle in handles {
        digest = digest.add(handle.await.expect("a swarm task panicked"));
    }
    (digest, spawn_ns)
}

fn multi_thread_runtime(workers: usize) -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().worker_threads(workers).enable_time().build()
}

fn current_thread_runtime() -> Outcome<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread().enable_time().build().map_err(|e| Failure::Limit(e.to_string()))
}

/// What a repetition of a tokio model gives back.
pub struct Swarmed {
    pub digest: OrderFreeDigest,
    pub spawn_ns: u128,
    pub shared: Arc<Shared>,
}

/// A tokio model's runtime for the whole process: the multi-thread one (cold or warm, as the
/// start mode says), or a current-thread one built in each repetition.
pub enum Swarmer {
    MultiThread(TokioWorkers),
    CurrentThread,
}

impl Swarmer {
    /// Runs `work` on the model's runtime; a runtime the call builds is dropped before it returns.
    fn on_runtime<R>(&self, work: impl FnOnce(&tokio::runtime::Runtime) -> R) -> Outcome<R> {
        match self {
            Swarmer::MultiThread(tokio) => tokio.on_runtime(work),
            Swarmer::CurrentThread => Ok(work(&current_thread_runtime()?)),
        }
    }

    fn workers(&self) -> Option<usize> {
        match self {
            Swarmer::MultiThread(tokio) => Some(tokio.count),
            Swarmer::CurrentThread => None,
        }
    }

    /// One timed repetition (`started` is the clock's start): the runtime built (cold), every
    /// task spawned and finished, the runtime dropped (cold; which joins its threads).
    fn swarm(&self, tasks: u64, steps: u64, salt: u64, sleep: Option<Duration>, started: Instant) -> Outcome<Swarmed> {
        let shared = Arc::new(Shared { switches: Switches::default(), tickets: Tickets::new(tasks, salt), busy: self.workers().map(|w| Busy::new(w, started)) });
        let (digest, spawn_ns) = self.on_runtime(|runtime| runtime.block_on(swarm_tokio(tasks, steps, salt, sleep, started, shared.clone())))?;
        Ok(Swarmed { digest, spawn_ns, shared })
    }

    /// The yield ceiling: one task on the model's runtime (cold: built before the clock and
    /// dropped after it) yields `yields` times, forming no lines.
    fn yield_ceiling_ns(&self, yields: u64) -> Outcome<u128> {
        self.on_runtime(|runtime| {
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
        })?
    }
}

fn run(call: &Call, talk: &mut Conversation) -> Outcome<()> {
    let tasks = call.number("tasks", None)?;
    let steps = call.number("steps", Some(10))?;
    let sleep_ms = call.number("sleep-ms", Some(0))?;
    let sleep = (sleep_ms > 0).then(|| Duration::from_millis(sleep_ms));
    let mut common = Map::new();
    let (swarmer, ready) = match call.model.as_str() {
        "seq" if sleep.is_some() => {
            return Err(bad_args("seq has no scheduler to sleep in; valid --sleep-ms for seq: 0"))
        }
        "seq" => {
            return repeat(talk, Ready::None, &common, |rep| {
                let ((digest, switches), measured) = measure(|_| swarm_seq(tasks, steps, rep.variant));
                let (checksum, checksum_ns) = timed(|| digest.hex());
                Ok(Sample::new(measured, tasks, checksum).with("checksum_ns", checksum_ns as u64).with("switches", switches))
            })
        }
        "tokio" => {
            let workers = call.workers()?;
            common.insert("workers".into(), Value::from(workers));
            let (tokio, ready) = TokioWorkers::start(workers, call.start, multi_thread_runtime, nothing_to_warm)?;
            (Swarmer::MultiThread(tokio), ready)
        }
        "tokio-current-thread" => (Swarmer::CurrentThread, Ready::None),
        other => unreachable!("the registry lists no coroutine-swarm model '{other}'"),
    };
    repeat(talk, ready, &common, |rep| {
        // The variant is the salt: task t's lines carry the id t + salt.
        let (outcome, measured) = measure(|started| swarmer.swarm(tasks, steps, rep.variant, sleep, started));
        let swarmed = outcome?;
        let (checksum, checksum_ns) = timed(|| swarmed.digest.hex());
        let mut sample = Sample::new(measured, tasks, checksum)
            .with("checksum_ns", checksum_ns as u64)
            .with("spawn_ns", swarmed.spawn_ns as u64)
            .with("switches", swarmed.shared.switches.count())
            .with("tickets", swarmed.shared.tickets.drawn())
            .with("ticket_probes", serde_json::json!(swarmed.shared.tickets.probes()));
        if let Some(busy) = &swarmed.shared.busy {
            sample = sample.with_busy(busy);
        }
        if sleep.is_some() {
            return Ok(sample);
        }
        let ceiling_ns = swarmer.yield_ceiling_ns(tasks * steps)?;
        Ok(sample.with("ceiling", "yield").with("ceiling_ns", ceiling_ns as u64))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Start;

    fn swarmer(workers: Option<usize>, start: Start) -> Swarmer {
        match workers {
            Some(w) => Swarmer::MultiThread(TokioWorkers::start(w, Some(start), multi_thread_runtime, nothing_to_warm).unwrap().0),
            None => Swarmer::CurrentThread,
        }
    }

    fn tokio_swarmed(tasks: u64, steps: u64, salt: u64, sleep: Option<Duration>, workers: Option<usize>) -> Swarmed {
        swarmer(workers, Start::Cold).swarm(tasks, steps, salt, sleep, Instant::now()).unwrap()
    }

    fn tokio_swarm(tasks: u64, steps: u64, sleep: Option<Duration>, workers: Option<usize>) -> String {
        tokio_swarmed(tasks, steps, 0, sleep, workers).digest.hex()
    }

    fn seq_hex(tasks: u64, steps: u64, salt: u64) -> String {
        swarm_seq(tasks, steps, salt).0.hex()
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
        assert_eq!(seq_hex(3, 10, 0), "1161d008ce58dc37");
        assert_eq!(tokio_swarm(3, 10, None, Some(2)), "1161d008ce58dc37");
    }

    #[test]
    fn tasks3_steps10_salted() {
        for (salt, digest) in [(0, "1161d008ce58dc37"), (1000, "bb33744708f665dd"), (4_294_967_295, "2540eadf7cfb00ad")] {
            assert_eq!(seq_hex(3, 10, salt), digest, "seq salt {salt}");
            for workers in [Some(2), None] {
                assert_eq!(tokio_swarmed(3, 10, salt, None, workers).digest.hex(), digest, "tokio {workers:?} salt {salt}");
            }
        }
    }

    #[test]
    fn switches_count_every_pass_from_one_task_to_another() {
        assert_eq!(swarm_seq(50, 10, 0).1, 49);
        let switches = Switches::default();
        for task in [0, 0, 1, 1, 0, 2] {
            switches.step(task);
        }
        assert_eq!(switches.count(), 3);
        // Yielding tasks interleave: far more switches than tasks − 1.
        for workers in [Some(2), None] {
            let swarmed = tokio_swarmed(50, 10, 0, None, workers);
            assert!(swarmed.shared.switches.count() > 49, "{workers:?}: {:?}", swarmed.shared.switches);
        }
    }

    /// Protocol 4: 40 tasks × 5 steps under salt 3 draw 200 tickets; the probes are every
    /// 40 / 16 = 2nd task from (−3) mod 2 = 1; and some probe drew a ticket in another's life.
    #[test]
    fn the_salts_probe_tasks_drew_interleaved_tickets() {
        for workers in [Some(2), None] {
            let swarmed = tokio_swarmed(40, 5, 3, None, workers);
            assert_eq!(swarmed.shared.tickets.drawn(), 200);
            let mut probes = swarmed.shared.tickets.probes();
            probes.sort_by_key(|probe| probe[1]);
            let mut probed: Vec<u64> = probes.iter().map(|probe| probe[0]).collect();
            probed.sort();
            assert_eq!(probed, (1..40).step_by(2).collect::<Vec<u64>>(), "{workers:?}");
            assert!(probes.windows(2).any(|pair| pair[1][1] < pair[0][2]), "{workers:?}: {probes:?}");
        }
    }

    #[test]
    fn the_multi_thread_swarm_records_its_worker_threads_busy() {
        let swarmed = tokio_swarmed(200, 10, 0, None, Some(2));
        let busy = swarmed.shared.busy.as_ref().unwrap();
        assert!((1..=2).contains(&busy.used()));
        assert!(tokio_swarmed(10, 2, 0, None, None).shared.busy.is_none());
    }

    #[test]
    fn every_model_agrees_on_arbitrary_parameters() {
        for (tasks, steps) in [(301, 7), (1000, 16), (1, 31)] {
            let expected = seq_hex(tasks, steps, 0);
            assert_eq!(tokio_swarm(tasks, steps, None, Some(2)), expected);
            assert_eq!(tokio_swarm(tasks, steps, None, None), expected);
        }
        assert_eq!(tokio_swarm(50, 3, Some(Duration::from_millis(1)), Some(2)), seq_hex(50, 3, 0));
    }

    #[test]
    fn the_yield_ceiling_is_timed_for_both_runtimes_in_both_modes() {
        for start in [Start::Cold, Start::Warm] {
            assert!(swarmer(Some(2), start).yield_ceiling_ns(1000).unwrap() > 0);
        }
        assert!(swarmer(None, Start::Cold).yield_ceiling_ns(1000).unwrap() > 0);
    }

    #[test]
    fn a_warm_swarm_gives_every_salt_its_own_digest_on_one_runtime() {
        let warm = swarmer(Some(2), Start::Warm);
        for (salt, digest) in [(0, "1161d008ce58dc37"), (1000, "bb33744708f665dd"), (4_294_967_295, "2540eadf7cfb00ad")] {
            let swarmed = warm.swarm(3, 10, salt, None, Instant::now()).unwrap();
            assert_eq!(swarmed.digest.hex(), digest, "salt {salt}");
        }
        assert!(warm.swarm(50, 10, 0, None, Instant::now()).unwrap().shared.switches.count() > 49);
    }

    #[test]
    fn spawn_ns_is_within_ns() {
        let started = Instant::now();
        let spawn_ns = swarmer(Some(2), Start::Cold).swarm(100, 2, 0, None, started).unwrap().spawn_ns;
        assert!(spawn_ns > 0 && spawn_ns <= started.elapsed().as_nanos());
    }
}
