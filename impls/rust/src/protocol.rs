//! The harness protocol: argument parsing, the timed repetition loop and the JSON lines.

use std::collections::BTreeMap;
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
    pub warmup: usize,
    pub repeat: usize,
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
        let mut call = Call { workload, model, warmup: 0, repeat: 1, params };
        call.warmup = call.take_number("warmup", 0)?;
        call.repeat = call.take_number("repeat", 1)?;
        Ok(call)
    }

    fn take_number(&mut self, name: &str, default: usize) -> Outcome<usize> {
        match self.params.remove(name) {
            None => Ok(default),
            Some(text) => text
                .parse()
                .map_err(|_| bad_args(format!("--{name} must be a non-negative integer, got '{text}'"))),
        }
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

/// What one repetition measured; `extra` holds the figures the workload adds.
pub struct Sample {
    pub ns: u128,
    pub items: u64,
    pub checksum: String,
    pub extra: Map<String, Value>,
}

impl Sample {
    pub fn new(ns: u128, items: u64, checksum: String) -> Sample {
        Sample { ns, items, checksum, extra: Map::new() }
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

/// Runs the warm-up repetitions silently, then prints one JSON line per timed repetition.
/// `common` is merged into every line's `extra` (workers, flags, load_ns…).
pub fn repeat(
    call: &Call,
    common: &Map<String, Value>,
    mut one_repetition: impl FnMut() -> Outcome<Sample>,
) -> Outcome<()> {
    for _ in 0..call.warmup {
        one_repetition()?;
    }
    for rep in 0..call.repeat {
        let sample = one_repetition()?;
        let mut extra = common.clone();
        extra.extend(sample.extra);
        let mut line = json!({"rep": rep, "ns": sample.ns as u64, "items": sample.items, "checksum": sample.checksum});
        if !extra.is_empty() {
            line["extra"] = Value::Object(extra);
        }
        println!("{line}");
    }
    Ok(())
}
