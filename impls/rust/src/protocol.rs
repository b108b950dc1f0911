//! The harness protocol: argument parsing, the ready line, the variants read from stdin, the
//! timed repetition loop and the JSON lines.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

use serde_json::{json, Map, Value};

/// Why a call could not produce results; `main` turns each into its exit code.
#[derive(Debug)]
pub enum Failure {
    /// Exit 2: the arguments are wrong; the text says what is valid.
    BadArguments(String),
    /// Exit 3: a resource limit stopped the work; the text is the runtime's own message.
    Limit(String),
    /// Any other exit: the work itself failed (I/O, database…).
    Crash(String),
}

pub type Outcome<T> = Result<T, Failure>;

pub fn bad_args(message: impl Into<String>) -> Failure {
    Failure::BadArguments(message.into())
}

pub fn crash(context: &str, error: impl std::fmt::Display) -> Failure {
    Failure::Crash(format!("{context}: {error}"))
}

/// `run <workload> --model M [--param value ...]` as plain data.
#[derive(Debug, Clone)]
pub struct Call {
    pub workload: String,
    pub model: String,
    /// `--start` as the registry resolved it for the model (`None`: the model takes none).
    pub start: Option<Start>,
    params: BTreeMap<String, String>,
}

impl Call {
    pub fn parse(args: &[String]) -> Outcome<Call> {
        let workload = args.first().cloned().ok_or_else(|| bad_args("missing workload; try --list"))?;
        let mut params = BTreeMap::new();
        let mut rest = args[1..].iter();
        while let Some(flag) = rest.next() {
            let name = flag
                .strip_prefix("--")
                .ok_or_else(|| bad_args(format!("expected --<param> <value>, got '{flag}'")))?;
            let value = rest.next().ok_or_else(|| bad_args(format!("--{name} needs a value")))?;
            params.insert(name.to_string(), value.clone());
        }
        let model = params.remove("model").ok_or_else(|| bad_args("missing --model"))?;
        // No --warmup or --repeat (protocol 4): the launcher alone decides how many repetitions
        // run, so either is an unknown param to the registry's check, like any other.
        Ok(Call { workload, model, start: None, params })
    }

    /// The call with its start mode resolved (the registry knows the model's modes).
    pub fn with_start(self, start: Option<Start>) -> Call {
        Call { start, ..self }
    }

    /// `--kernel portable|tuned` (default portable); `tuned` only where the workload has one.
    pub fn kernel(&self, has_tuned: bool) -> Outcome<KernelClass> {
        match (self.text("kernel", Some("portable"))?.as_str(), has_tuned) {
            ("portable", _) => Ok(KernelClass::Portable),
            ("tuned", true) => Ok(KernelClass::Tuned),
            (other, _) => {
                let valid = if has_tuned { "portable, tuned" } else { "portable" };
                Err(bad_args(format!("unknown --kernel '{other}' for {}; valid: {valid}", self.workload)))
            }
        }
    }

    /// A comma-separated list of non-negative integers (`--probes`); empty when not given.
    pub fn numbers(&self, name: &str) -> Outcome<Vec<u64>> {
        self.params.get(name).map_or(Ok(Vec::new()), |text| number_list(name, text))
    }

    pub fn text(&self, name: &str, default: Option<&str>) -> Outcome<String> {
        match (self.params.get(name), default) {
            (Some(value), _) => Ok(value.clone()),
            (None, Some(default)) => Ok(default.to_string()),
            (None, None) => Err(bad_args(format!("{} needs --{name}", self.workload))),
        }
    }

    pub fn has(&self, name: &str) -> bool {
        self.params.contains_key(name)
    }

    pub fn number(&self, name: &str, default: Option<u64>) -> Outcome<u64> {
        match self.params.get(name) {
            None => default.ok_or_else(|| bad_args(format!("{} needs --{name}", self.workload))),
            Some(text) => text
                .parse()
                .map_err(|_| bad_args(format!("--{name} must be a non-negative integer, got '{text}'"))),
        }
    }

    /// `--workers N`, defaulting to the machine's logical CPUs as the protocol says.
    pub fn workers(&self) -> Outcome<usize> {
        let default = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1) as u64;
        match self.number("workers", Some(default))? {
            0 => Err(bad_args("--workers must be at least 1")),
            n => Ok(n as usize),
        }
    }

    /// Rejects params the model does not take, so a typo is exit 2 rather than a silent default.
    pub fn only_params(&self, known: &[String]) -> Outcome<()> {
        for name in self.params.keys() {
            if !known.contains(name) {
                return Err(bad_args(format!(
                    "unknown param --{name} for {}; valid: {}",
                    self.workload,
                    known.iter().map(|k| format!("--{k}")).collect::<Vec<_>>().join(", ")
                )));
            }
        }
        Ok(())
    }

    pub fn unknown_model(&self, valid: &[&str]) -> Failure {
        bad_args(format!("unknown model '{}' for {}; valid: {}", self.model, self.workload, valid.join(", ")))
    }
}

fn number_list(name: &str, text: &str) -> Outcome<Vec<u64>> {
    text.split(',')
        .filter(|part| !part.is_empty())
        .map(|part| {
            part.trim().parse().map_err(|_| bad_args(format!("--{name} takes non-negative integers separated by commas, got '{text}'")))
        })
        .collect()
}

/// The kernel class of protocol 2: the spec's algorithm as plain code, or an engineered one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelClass {
    Portable,
    Tuned,
}

impl KernelClass {
    pub fn name(self) -> &'static str {
        match self {
            KernelClass::Portable => "portable",
            KernelClass::Tuned => "tuned",
        }
    }
}

/// Protocol 3's start mode of a parallel model: its workers made and ended in every repetition
/// (cold), or made once before the ready line and handed every repetition's work (warm).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    Cold,
    Warm,
}

impl Start {
    pub fn parse(name: &str) -> Option<Start> {
        match name {
            "cold" => Some(Start::Cold),
            "warm" => Some(Start::Warm),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Start::Cold => "cold",
            Start::Warm => "warm",
        }
    }
}

/// What the ready line says (protocol 3): the start mode that runs and, for warm, how long
/// making the workers took before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ready {
    /// A model without start modes (seq models, chains, swarms).
    None,
    Cold,
    Warm { start_ns: u128, workers: usize },
}

impl Ready {
    /// The line itself: `{"ready":"warm","start_ns":…,"extra":{"workers":…}}`.
    fn line(&self) -> Value {
        match *self {
            Ready::None => json!({"ready": "none"}),
            Ready::Cold => json!({"ready": "cold"}),
            Ready::Warm { start_ns, workers } => json!({"ready": "warm", "start_ns": start_ns as u64, "extra": {"workers": workers}}),
        }
    }

    /// The mode every repetition echoes in `extra.start`.
    fn start(&self) -> Option<Start> {
        match self {
            Ready::None => None,
            Ready::Cold => Some(Start::Cold),
            Ready::Warm { .. } => Some(Start::Warm),
        }
    }
}

/// The process's CPU time (user and kernel) and minor page faults, from
/// getrusage(RUSAGE_SELF): every thread of the process, ended ones included.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub user_ns: u64,
    pub sys_ns: u64,
    pub minor_faults: u64,
}

impl Usage {
    pub fn now() -> Usage {
        // SAFETY: getrusage only writes the struct it is given.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
            return Usage::default();
        }
        let ns = |time: libc::timeval| time.tv_sec as u64 * 1_000_000_000 + time.tv_usec as u64 * 1000;
        Usage { user_ns: ns(usage.ru_utime), sys_ns: ns(usage.ru_stime), minor_faults: usage.ru_minflt as u64 }
    }

    /// What was used between `earlier` and this reading.
    pub fn since(&self, earlier: &Usage) -> Usage {
        Usage {
            user_ns: self.user_ns.saturating_sub(earlier.user_ns),
            sys_ns: self.sys_ns.saturating_sub(earlier.sys_ns),
            minor_faults: self.minor_faults.saturating_sub(earlier.minor_faults),
        }
    }
}

/// A timed region: the monotonic clock and the process's CPU time around the work.
#[derive(Debug, Clone, Copy)]
pub struct Measured {
    pub ns: u128,
    pub usage: Usage,
}

/// Runs `work` as the timed region. `work` gets the clock's start, from which busy intervals
/// are counted; rusage is read right after starting the clock and right before stopping it.
pub fn measure<T>(work: impl FnOnce(Instant) -> T) -> (T, Measured) {
    let started = Instant::now();
    let before = Usage::now();
    let result = work(started);
    let after = Usage::now();
    let ns = started.elapsed().as_nanos();
    (result, Measured { ns, usage: after.since(&before) })
}

thread_local! {
    // The worker number of the calling thread in one `Busy` record (its id, the number): pool
    // threads without an index of their own (tokio's) are numbered in the order they first record.
    static NUMBERED: Cell<(u64, usize)> = const { Cell::new((0, 0)) };
}
static NEXT_BUSY_ID: AtomicU64 = AtomicU64::new(1);

/// One worker's interval, on its own cache line: only that worker writes it.
#[repr(align(64))]
struct Interval {
    first: AtomicU64,
    last: AtomicU64,
}

/// Each worker's busy interval in one repetition (`extra.busy`), from the moment it starts
/// its first unit of work to the moment it finishes its last, in ns from the clock's start.
/// A worker that recorded nothing did no work, so this is also `workers_used`.
pub struct Busy {
    origin: Instant,
    id: u64,
    next: AtomicUsize,
    intervals: Vec<Interval>,
}

impl Busy {
    pub fn new(workers: usize, origin: Instant) -> Busy {
        let intervals = (0..workers).map(|_| Interval { first: AtomicU64::new(u64::MAX), last: AtomicU64::new(0) }).collect();
        Busy { origin, id: NEXT_BUSY_ID.fetch_add(1, Ordering::Relaxed), next: AtomicUsize::new(0), intervals }
    }

    fn offset(&self, at: Instant) -> u64 {
        at.saturating_duration_since(self.origin).as_nanos() as u64
    }

    /// Worker `worker` was busy from `start` to `end`. A worker number is written by one
    /// thread only, so plain loads and stores suffice (no read-modify-write on the hot path).
    pub fn record(&self, worker: usize, start: Instant, end: Instant) {
        let Some(interval) = self.intervals.get(worker) else { return };
        if interval.first.load(Ordering::Relaxed) == u64::MAX {
            interval.first.store(self.offset(start), Ordering::Relaxed);
        }
        interval.last.store(self.offset(end), Ordering::Relaxed);
    }

    /// Runs `work` as busy time of `worker`.
    pub fn span<T>(&self, worker: usize, work: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let result = work();
        self.record(worker, start, Instant::now());
        result
    }

    /// The calling thread's worker number here, given in the order threads first ask.
    pub fn this_worker(&self) -> usize {
        NUMBERED.with(|numbered| {
            let (id, worker) = numbered.get();
            if id == self.id {
                return worker;
            }
            let worker = self.next.fetch_add(1, Ordering::Relaxed);
            numbered.set((self.id, worker));
            worker
        })
    }

    /// Runs `work` as busy time of the calling thread's worker number.
    pub fn span_here<T>(&self, work: impl FnOnce() -> T) -> T {
        let worker = self.this_worker();
        self.span(worker, work)
    }

    /// The calling thread's worker did a moment of work now (one clock read: a link of a
    /// chain, a step of a coroutine).
    pub fn touch_here(&self) {
        let now = Instant::now();
        self.record(self.this_worker(), now, now);
    }

    /// How many workers recorded work.
    pub fn used(&self) -> usize {
        self.intervals.iter().filter(|i| i.first.load(Ordering::Relaxed) != u64::MAX).count()
    }

    /// `[[worker, start_ns, end_ns], …]` of the workers that recorded work.
    pub fn intervals(&self) -> Value {
        let listed: Vec<Value> = self
            .intervals
            .iter()
            .enumerate()
            .filter(|(_, i)| i.first.load(Ordering::Relaxed) != u64::MAX)
            .map(|(w, i)| json!([w, i.first.load(Ordering::Relaxed), i.last.load(Ordering::Relaxed)]))
            .collect();
        Value::Array(listed)
    }
}

/// One repetition as the workload sees it: its index (0, 1, 2 …) and its variant, read
/// from stdin when it starts (the key, the seed, the start value, the salt; 0 where ignored).
#[derive(Debug, Clone, Copy)]
pub struct Rep {
    pub index: usize,
    pub variant: u64,
}

/// What one repetition measured; `extra` holds the figures the workload adds.
pub struct Sample {
    pub ns: u128,
    pub items: u64,
    pub checksum: String,
    pub extra: Map<String, Value>,
}

impl Sample {
    /// A repetition's line: `ns` and the CPU time of the timed region (`cpu_user_ns`,
    /// `cpu_sys_ns`, and `minor_faults` as a diagnostic).
    pub fn new(measured: Measured, items: u64, checksum: String) -> Sample {
        let usage = measured.usage;
        Sample { ns: measured.ns, items, checksum, extra: Map::new() }
            .with("cpu_user_ns", usage.user_ns)
            .with("cpu_sys_ns", usage.sys_ns)
            .with("minor_faults", usage.minor_faults)
    }

    /// The busy intervals of a model whose workers are counted.
    pub fn with_busy(self, busy: &Busy) -> Sample {
        self.with("busy", busy.intervals())
    }

    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Sample {
        self.extra.insert(key.to_string(), value.into());
        self
    }
}

/// Times `work` once with the monotonic clock, returning its result and the nanoseconds taken.
pub fn timed<T>(work: impl FnOnce() -> T) -> (T, u128) {
    let started = Instant::now();
    let result = work();
    (result, started.elapsed().as_nanos())
}

/// The process's side of the protocol's conversation: variants come in (stdin), lines go out
/// (stdout).
pub struct Conversation<'a> {
    input: Box<dyn BufRead + 'a>,
    output: Box<dyn Write + 'a>,
}

impl Conversation<'static> {
    pub fn standard() -> Conversation<'static> {
        Conversation::new(std::io::stdin().lock(), std::io::stdout())
    }
}

impl<'a> Conversation<'a> {
    pub fn new(input: impl BufRead + 'a, output: impl Write + 'a) -> Conversation<'a> {
        Conversation { input: Box::new(input), output: Box::new(output) }
    }

    /// One line out, flushed: a server's ready and stats lines (echo-server talks for itself).
    pub fn say(&mut self, line: &Value) -> Outcome<()> {
        print_line(&mut self.output, line)
    }

    /// The next stdin line's variant, as `repeat` reads it; `None` at end of file.
    pub fn next_variant(&mut self, index: usize) -> Outcome<Option<u64>> {
        read_variant(&mut self.input, index)
    }
}

/// Prints the ready line, then runs one repetition per variant line on stdin, read before it
/// (outside any clock), and prints its line `{"rep":i,…}`, until stdin ends: the process never
/// knows how many repetitions there will be, nor which the harness times (protocol 4). `common`
/// is merged into every line's `extra` (workers, kernel, load_ns…), and so is the start mode of
/// the ready line. The caller's warm workers end when it returns, as before.
pub fn repeat(
    talk: &mut Conversation,
    ready: Ready,
    common: &Map<String, Value>,
    mut one_repetition: impl FnMut(Rep) -> Outcome<Sample>,
) -> Outcome<()> {
    let mut common = common.clone();
    if let Some(start) = ready.start() {
        common.insert("start".into(), Value::from(start.name()));
    }
    print_line(&mut talk.output, &ready.line())?;
    for index in 0.. {
        let Some(variant) = read_variant(&mut talk.input, index)? else { break };
        let sample = one_repetition(Rep { index, variant })?;
        let mut extra = common.clone();
        extra.extend(sample.extra);
        let mut line = json!({"rep": index, "ns": sample.ns as u64, "items": sample.items, "checksum": sample.checksum});
        line["extra"] = Value::Object(extra);
        print_line(&mut talk.output, &line)?;
    }
    Ok(())
}

/// One write per line, flushed, so the launcher's timestamp of a line is when it was made
/// (and it writes the next variant only once it has read this line).
fn print_line(output: &mut impl Write, line: &Value) -> Outcome<()> {
    writeln!(output, "{line}").and_then(|()| output.flush()).map_err(|e| crash("writing a result line", e))
}

/// The variant of repetition `index`: one decimal line on stdin; `None` at end of file, where
/// the launcher wants no further repetition.
fn read_variant(input: &mut impl BufRead, index: usize) -> Outcome<Option<u64>> {
    let mut line = String::new();
    match input.read_line(&mut line) {
        Ok(0) => Ok(None),
        Ok(_) => line.trim().parse().map(Some).map_err(|_| {
            bad_args(format!("the variant of repetition {index} must be a non-negative decimal integer, got '{}'", line.trim()))
        }),
        Err(e) => Err(crash("reading a variant from stdin", e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(args: &[&str]) -> Outcome<Call> {
        Call::parse(&args.iter().map(|a| a.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn touching_fresh_pages_counts_minor_faults_and_cpu_time() {
        let (touched, measured) = measure(|_| {
            // 64 MiB mapped fresh and written: the kernel faults its pages in.
            let mut pages = vec![0u8; 64 << 20];
            pages.iter_mut().step_by(4096).for_each(|b| *b = 1);
            std::hint::black_box(&pages);
            pages.len()
        });
        let usage = measured.usage;
        assert_eq!(touched, 64 << 20);
        assert!(usage.minor_faults >= 32, "{usage:?}");
        assert!(usage.user_ns + usage.sys_ns > 0, "{usage:?}");
        assert!(measured.ns > 0);
    }

    /// The conversation with `fed` on stdin: each repetition's line holds its variant as the
    /// checksum; the output's lines, parsed.
    fn conversation(ready: Ready, fed: &str) -> (Outcome<()>, Vec<Value>) {
        let mut output = Vec::new();
        let mut talk = Conversation::new(fed.as_bytes(), &mut output);
        let outcome = repeat(&mut talk, ready, &Map::new(), |rep| {
            Ok(Sample { ns: 1, items: 0, checksum: rep.variant.to_string(), extra: Map::new() }.with("index", rep.index))
        });
        drop(talk);
        let lines = String::from_utf8(output).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        (outcome, lines)
    }

    #[test]
    fn the_ready_line_comes_first_then_one_rep_line_per_variant_read() {
        let (outcome, lines) = conversation(Ready::None, "642\n1023\n5\n");
        assert!(outcome.is_ok());
        assert_eq!(lines[0], json!({"ready": "none"}));
        assert_eq!((&lines[1]["rep"], &lines[1]["checksum"]), (&json!(0), &json!("642")));
        assert_eq!((&lines[2]["rep"], &lines[2]["checksum"]), (&json!(1), &json!("1023")));
        assert_eq!((&lines[3]["rep"], &lines[3]["checksum"]), (&json!(2), &json!("5")));
        assert!(lines.iter().all(|line| line.get("warmup").is_none()), "protocol 4 has no warm-up lines");
        assert!(lines[1]["extra"].get("start").is_none());
    }

    #[test]
    fn each_variant_is_read_only_when_its_repetition_starts() {
        // A reader that counts the lines taken: repetition j sees exactly j + 1 of them.
        struct Counting<'a>(&'a [u8], &'a Cell<usize>);
        impl std::io::Read for Counting<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                // One line at a time, as a pipe that the launcher writes only when asked.
                let end = self.0.iter().position(|&b| b == b'\n').map_or(self.0.len(), |p| p + 1).min(buf.len());
                buf[..end].copy_from_slice(&self.0[..end]);
                self.0 = &self.0[end..];
                self.1.set(self.1.get() + 1);
                Ok(end)
            }
        }
        let taken = Cell::new(0);
        let input = std::io::BufReader::new(Counting(b"11\n12\n13\n", &taken));
        let mut seen = Vec::new();
        repeat(&mut Conversation::new(input, Vec::new()), Ready::None, &Map::new(), |rep| {
            seen.push((rep.index, rep.variant, taken.get()));
            Ok(Sample { ns: 1, items: 0, checksum: String::new(), extra: Map::new() })
        })
        .unwrap();
        assert_eq!(seen, [(0, 11, 1), (1, 12, 2), (2, 13, 3)]);
    }

    #[test]
    fn end_of_stdin_ends_the_case_cleanly_after_its_variants_and_a_bad_variant_is_bad_arguments() {
        for (fed, k) in [("", 0), ("642\n", 1), ("642\n1023\n", 2)] {
            let (outcome, lines) = conversation(Ready::None, fed);
            assert!(outcome.is_ok(), "{fed:?}: {outcome:?}");
            assert_eq!(lines.len(), k + 1, "{fed:?}: the ready line and one line per variant");
            assert!(lines[1..].iter().enumerate().all(|(j, line)| line["rep"] == json!(j)), "{lines:?}");
        }
        let (outcome, _) = conversation(Ready::None, "642\nkey\n");
        assert!(matches!(outcome, Err(Failure::BadArguments(_))));
    }

    #[test]
    fn a_warm_ready_line_carries_start_ns_and_every_line_echoes_the_mode() {
        let (_, lines) = conversation(Ready::Warm { start_ns: 1234, workers: 2 }, "1\n2\n");
        assert_eq!(lines[0], json!({"ready": "warm", "start_ns": 1234, "extra": {"workers": 2}}));
        assert!(lines[1..].iter().all(|line| line["extra"]["start"] == "warm"));
        let (_, lines) = conversation(Ready::Cold, "1\n2\n");
        assert_eq!(lines[0], json!({"ready": "cold"}));
        assert!(lines[1..].iter().all(|line| line["extra"]["start"] == "cold"));
    }

    #[test]
    fn kernel_defaults_to_portable_and_tuned_only_where_it_exists() {
        let portable = call(&["keygen", "--model", "seq"]).unwrap();
        assert_eq!(portable.kernel(true).unwrap(), KernelClass::Portable);
        let tuned = call(&["keygen", "--model", "seq", "--kernel", "tuned"]).unwrap();
        assert_eq!(tuned.kernel(true).unwrap(), KernelClass::Tuned);
        assert!(matches!(tuned.kernel(false), Err(Failure::BadArguments(_))));
    }

    #[test]
    fn probes_are_a_list_of_indices() {
        let c = call(&["keygen", "--model", "seq", "--probes", "0,100,256"]).unwrap();
        assert_eq!(c.numbers("probes").unwrap(), vec![0, 100, 256]);
        assert!(call(&["keygen", "--model", "seq"]).unwrap().numbers("probes").unwrap().is_empty());
    }

    #[test]
    fn busy_keeps_one_interval_per_worker_from_first_start_to_last_end() {
        let origin = Instant::now();
        let busy = Busy::new(3, origin);
        let at = |ns| origin + std::time::Duration::from_nanos(ns);
        busy.record(0, at(10), at(20));
        busy.record(0, at(30), at(40));
        busy.record(2, at(15), at(25));
        assert_eq!(busy.used(), 2);
        assert_eq!(busy.intervals(), json!([[0, 10, 40], [2, 15, 25]]));
    }

    #[test]
    fn threads_are_numbered_in_the_order_they_first_record() {
        let busy = Busy::new(2, Instant::now());
        let here = busy.this_worker();
        assert_eq!(busy.this_worker(), here);
        let there = std::thread::scope(|s| s.spawn(|| busy.this_worker()).join().unwrap());
        assert_eq!((here, there), (0, 1));
        // A new record numbers afresh.
        assert_eq!(Busy::new(2, Instant::now()).this_worker(), 0);
    }
}
