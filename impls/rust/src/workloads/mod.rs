//! The registry: one entry per workload of workloads/*.md with its params and models, read by
//! both the dispatch and `--list`, so what is listed is exactly what runs.

pub mod batch_job;
pub mod coroutine_swarm;
pub mod echo_server;
pub mod keygen;
pub mod noop;
pub mod sdes_ecb;
pub mod spawn_chain;

use serde_json::{json, Map, Value};

use crate::parallel::{RAYON_BROADCAST_NOTE, RAYON_BROADCAST_START, RAYON_NOTE, RAYON_START, THREADS_NOTE, THREADS_START};
use crate::protocol::{bad_args, Call, Conversation, Failure, KernelClass, Outcome, Start};

pub struct Model {
    pub name: &'static str,
    /// One of the protocol's families: seq, threads, data-parallel, async…
    pub family: &'static str,
    /// Whether `--workers` applies.
    pub workers: bool,
    /// Params only this model takes, spelled as in `--list` (`stack_bytes`).
    pub params: &'static [&'static str],
    /// What the model is, for a reader of the results; empty for none.
    pub note: &'static str,
    /// Protocol 3's start modes it offers, each with what it makes and where (`--list`'s
    /// `start`); empty for a model without workers.
    pub start: &'static [(&'static str, &'static str)],
    /// What a server's model runs (`--list`'s `detail`, its ready line's `model_detail`: echo-server); empty for none.
    pub detail: &'static str,
    /// The modes it cannot offer, each with why (`--list`'s `start_unavailable`).
    pub start_unavailable: &'static [(&'static str, &'static str)],
}

/// The four models of a chunked data-parallel workload (sdes-ecb, keygen): one loop on the main
/// thread, then the three ways parallel.rs hands out the chunks. Only the seq model's note differs.
pub const fn chunked_models(seq_note: &'static str) -> [Model; 4] {
    [
        Model { name: "seq", family: "seq", workers: false, params: &[], note: seq_note, start: &[], detail: "", start_unavailable: &[] },
        Model { name: "rayon", family: "data-parallel", workers: true, params: &[], note: RAYON_NOTE, start: RAYON_START, detail: "", start_unavailable: &[] },
        Model {
            name: "rayon-broadcast",
            family: "data-parallel",
            workers: true,
            params: &[],
            note: RAYON_BROADCAST_NOTE,
            start: RAYON_BROADCAST_START,
            detail: "",
            start_unavailable: &[],
        },
        Model { name: "threads", family: "threads", workers: true, params: &[], note: THREADS_NOTE, start: THREADS_START, detail: "", start_unavailable: &[] },
    ]
}

pub struct Workload {
    pub name: &'static str,
    /// The workload's params, spelled as in `--list` (`docs_dir`; the flag is `--docs-dir`).
    pub params: &'static [&'static str],
    pub models: &'static [Model],
    /// The kernel classes (protocol 2) with what each runs: `("portable", detail)` first, then
    /// `("tuned", detail)` where there is one; empty where the workload has no kernel classes.
    pub kernels: &'static [(&'static str, &'static str)],
    /// Runs one case; only called with a model of `models`, params this entry accepts and the
    /// start mode resolved.
    pub run: fn(&Call, &mut Conversation) -> Outcome<()>,
}

pub const ALL: &[&Workload] = &[
    &noop::WORKLOAD,
    &keygen::WORKLOAD,
    &sdes_ecb::WORKLOAD,
    &batch_job::WORKLOAD,
    &spawn_chain::WORKLOAD,
    &coroutine_swarm::WORKLOAD,
    &echo_server::WORKLOAD,
];

/// A model with no workers, no own params and nothing to note.
pub const fn plain(name: &'static str, family: &'static str) -> Model {
    Model { name, family, workers: false, params: &[], note: "", start: &[], detail: "", start_unavailable: &[] }
}

/// Checks the call against the registry (workload, model, params, start mode), then runs it,
/// talking to the harness through `talk`.
pub fn dispatch(call: &Call, talk: &mut Conversation) -> Outcome<()> {
    let workload = ALL.iter().find(|w| w.name == call.workload).ok_or_else(|| {
        let names: Vec<&str> = ALL.iter().map(|w| w.name).collect();
        bad_args(format!("unknown workload '{}'; valid: {}", call.workload, names.join(", ")))
    })?;
    let model = workload.models.iter().find(|m| m.name == call.model).ok_or_else(|| {
        let names: Vec<&str> = workload.models.iter().map(|m| m.name).collect();
        call.unknown_model(&names)
    })?;
    call.only_params(&workload.accepted_params(model))?;
    if !workload.kernels.is_empty() && call.kernel(workload.has_tuned())? == KernelClass::Tuned {
        // The tuned kernels allocate with mimalloc; the portable ones with the system's.
        crate::allocator::use_mimalloc();
    }
    let call = call.clone().with_start(model.start_mode(call)?);
    (workload.run)(&call, talk)
}

impl Workload {
    /// The flags a call of `model` may carry, spelled as on the command line.
    fn accepted_params(&self, model: &Model) -> Vec<String> {
        let workers: &[&str] = match (model.workers, model.start.is_empty()) {
            (false, _) => &[],
            (true, true) => &["workers"],
            (true, false) => &["workers", "start"],
        };
        let kernel: &[&str] = if self.kernels.is_empty() { &[] } else { &["kernel"] };
        self.params.iter().chain(model.params).chain(workers).chain(kernel).map(|p| p.replace('_', "-")).collect()
    }

    /// Whether `--kernel tuned` exists for this workload.
    pub fn has_tuned(&self) -> bool {
        self.kernels.iter().any(|(class, _)| *class == "tuned")
    }

    fn listed(&self) -> Value {
        let models: Map<String, Value> = self.models.iter().map(|m| (m.name.to_string(), m.listed())).collect();
        let mut entry = json!({"params": self.params, "models": models});
        if !self.kernels.is_empty() {
            let kernels: Map<String, Value> = self.kernels.iter().map(|(class, detail)| (class.to_string(), json!(detail))).collect();
            entry["kernels"] = Value::Object(kernels);
        }
        entry
    }
}

impl Model {
    /// The start mode a call runs: `--start`, else cold where offered, else the only mode;
    /// `None` for a model without start modes. A mode not offered is bad arguments with the
    /// model's reason.
    fn start_mode(&self, call: &Call) -> Outcome<Option<Start>> {
        let offered: Vec<&str> = self.start.iter().map(|(mode, _)| *mode).collect();
        let default = if offered.contains(&"cold") { "cold" } else { offered.first().copied().unwrap_or("") };
        if offered.is_empty() {
            return Ok(None);
        }
        let asked = call.text("start", Some(default))?;
        if offered.contains(&asked.as_str()) {
            return Ok(Start::parse(&asked));
        }
        let why = match self.start_unavailable.iter().find(|(mode, _)| *mode == asked) {
            Some((_, reason)) => format!("{reason}; "),
            None => String::new(),
        };
        Err(Failure::BadArguments(format!(
            "{} {} has no --start {asked}: {why}valid: {}",
            call.workload,
            self.name,
            offered.join(", ")
        )))
    }

    fn listed(&self) -> Value {
        let mut entry = json!({"family": self.family});
        if self.workers {
            entry["workers"] = json!(true);
        }
        if !self.params.is_empty() {
            entry["params"] = json!(self.params);
        }
        if !self.note.is_empty() {
            entry["note"] = json!(self.note);
        }
        if !self.detail.is_empty() {
            entry["detail"] = json!(self.detail);
        }
        let modes = |list: &[(&str, &str)]| Value::Object(list.iter().map(|(mode, what)| (mode.to_string(), json!(what))).collect());
        if !self.start.is_empty() {
            entry["start"] = modes(self.start);
        }
        if !self.start_unavailable.is_empty() {
            entry["start_unavailable"] = modes(self.start_unavailable);
        }
        entry
    }
}

/// The `workloads` object of `--list`.
pub fn listed() -> Value {
    Value::Object(ALL.iter().map(|w| (w.name.to_string(), w.listed())).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(args: &[&str]) -> Call {
        Call::parse(&args.iter().map(|a| a.to_string()).collect::<Vec<_>>()).unwrap()
    }

    /// `dispatch` with `fed` as stdin; the outcome and the lines it printed, parsed.
    fn dispatched(call: &Call, fed: &str) -> (Outcome<()>, Vec<Value>) {
        let mut output = Vec::new();
        let outcome = dispatch(call, &mut Conversation::new(fed.as_bytes(), &mut output));
        let lines = String::from_utf8(output).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        (outcome, lines)
    }

    fn is_bad_args(outcome: Outcome<()>) -> bool {
        matches!(outcome, Err(Failure::BadArguments(_)))
    }

    fn bad_args_of(args: &[&str]) -> bool {
        is_bad_args(dispatched(&call(args), "0\n").0)
    }

    #[test]
    fn list_names_every_registered_model() {
        let listed = listed();
        for workload in ALL {
            for model in workload.models {
                assert!(listed[workload.name]["models"][model.name].is_object(), "{} {}", workload.name, model.name);
            }
        }
    }

    #[test]
    fn every_model_with_workers_lists_its_start_modes_and_no_other_model_does() {
        let listed = listed();
        for workload in ALL {
            for model in workload.models {
                let entry = &listed[workload.name]["models"][model.name];
                let modes: Vec<&String> = entry.get("start").and_then(Value::as_object).map(|m| m.keys().collect()).unwrap_or_default();
                let unavailable = entry.get("start_unavailable").and_then(Value::as_object).map_or(0, |m| m.len());
                if model.workers {
                    assert!(modes.len() + unavailable == 2, "{} {}: {entry}", workload.name, model.name);
                    assert!(modes.iter().all(|m| Start::parse(m).is_some()));
                } else {
                    assert!(modes.is_empty() && unavailable == 0, "{} {}: {entry}", workload.name, model.name);
                }
            }
        }
    }

    #[test]
    fn an_unknown_workload_model_or_param_is_bad_arguments() {
        assert!(bad_args_of(&["nope", "--model", "seq"]));
        assert!(bad_args_of(&["keygen", "--model", "nope", "--count", "1"]));
        assert!(bad_args_of(&["keygen", "--model", "seq", "--count", "1", "--typo", "1"]));
    }

    #[test]
    fn variants_in_argv_are_an_unknown_param_now() {
        assert!(bad_args_of(&["keygen", "--model", "seq", "--count", "1", "--variants", "1"]));
    }

    #[test]
    fn warmup_and_repeat_are_unknown_params_now() {
        assert!(bad_args_of(&["keygen", "--model", "seq", "--count", "1", "--warmup", "1"]));
        assert!(bad_args_of(&["keygen", "--model", "seq", "--count", "1", "--repeat", "1"]));
    }

    #[test]
    fn start_is_refused_where_the_model_has_no_workers_and_checked_where_it_has() {
        assert!(bad_args_of(&["keygen", "--model", "seq", "--count", "1", "--start", "cold"]));
        assert!(bad_args_of(&["keygen", "--model", "rayon", "--count", "1", "--start", "hot"]));
        let rayon = &keygen::WORKLOAD.models[1];
        assert_eq!(rayon.start_mode(&call(&["keygen", "--model", "rayon"])).unwrap(), Some(Start::Cold), "cold by default");
        assert_eq!(rayon.start_mode(&call(&["keygen", "--model", "rayon", "--start", "warm"])).unwrap(), Some(Start::Warm));
        let warm_only = Model { start: &[("warm", "made once")], start_unavailable: &[("cold", "always running")], ..plain("x", "async") };
        assert_eq!(warm_only.start_mode(&call(&["keygen", "--model", "x"])).unwrap(), Some(Start::Warm), "the only mode by default");
        match warm_only.start_mode(&call(&["keygen", "--model", "x", "--start", "cold"])) {
            Err(Failure::BadArguments(message)) => assert!(message.contains("always running"), "{message}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn kernels_are_listed_where_the_workload_has_classes() {
        let listed = listed();
        for workload in ["sdes-ecb", "keygen", "batch-job"] {
            let portable = listed[workload]["kernels"]["portable"].as_str().unwrap();
            assert!(portable == "reference, transliterated" || portable.starts_with("reference, transliterated: "), "{workload}: {portable}");
        }
        assert!(listed["sdes-ecb"]["kernels"]["tuned"].is_string());
        assert!(listed["keygen"]["kernels"]["tuned"].is_string());
        assert!(listed["batch-job"]["kernels"].get("tuned").is_none());
        assert!(bad_args_of(&["batch-job", "--model", "seq", "--docs-dir", "x", "--db", "sqlite:x", "--kernel", "tuned"]));
    }

    #[test]
    fn rayon_is_par_chunks_wherever_it_is_listed() {
        let listed = listed();
        for workload in ["sdes-ecb", "keygen"] {
            let note = listed[workload]["models"]["rayon"]["note"].as_str().unwrap();
            assert!(note.contains("par_chunks"), "{workload}: {note}");
        }
        assert!(listed["batch-job"]["models"]["rayon"]["note"].as_str().unwrap().contains("par_iter"));
    }

    #[test]
    fn workers_is_refused_where_the_model_has_none() {
        assert!(bad_args_of(&["keygen", "--model", "seq", "--count", "1", "--workers", "2"]));
    }

    /// Small params under which every model of a workload runs in a moment; `tag` names the
    /// case's own batch-job database (each process gets a fresh one).
    fn small_case(workload: &str, scratch: &std::path::Path, tag: &str) -> Vec<String> {
        let text = |s: &str| s.to_string();
        match workload {
            "noop" => vec![],
            "keygen" => ["--count", "50", "--bytes", "20"].map(text).to_vec(),
            "sdes-ecb" => {
                let input = scratch.join("plain.txt");
                std::fs::write(&input, b"The quick brown fox jumps over the lazy dog\n").unwrap();
                vec![text("--input"), input.display().to_string(), text("--cipher"), text("bitwise")]
            }
            "batch-job" => {
                let (docs_dir, _) = batch_job::tests::prepare_job(&format!("registry-{tag}"), 4);
                let db = format!("sqlite:{}", docs_dir.join("job.sqlite").display());
                vec![text("--docs-dir"), docs_dir.display().to_string(), text("--db"), db]
            }
            "spawn-chain" => ["--n", "20"].map(text).to_vec(),
            "coroutine-swarm" => ["--tasks", "5", "--steps", "2"].map(text).to_vec(),
            "echo-server" => vec![],
            other => panic!("no small case for {other}"),
        }
    }

    #[test]
    fn every_registered_model_runs_through_dispatch_in_every_start_mode() {
        let _alone = batch_job::tests::TOKIO_RUNTIMES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let scratch = std::env::temp_dir().join(format!("parbench-rust-registry-{}", std::process::id()));
        std::fs::create_dir_all(&scratch).unwrap();
        for workload in ALL {
            for model in workload.models {
                let modes: Vec<Option<&str>> = if model.start.is_empty() { vec![None] } else { model.start.iter().map(|(m, _)| Some(*m)).collect() };
                for mode in modes {
                    let tag = format!("{}-{}-{}", workload.name, model.name, mode.unwrap_or("none"));
                    let mut args = vec![workload.name.to_string(), "--model".into(), model.name.into()];
                    args.extend(small_case(workload.name, &scratch, &tag));
                    if model.workers {
                        args.extend(["--workers".into(), "2".into()]);
                    }
                    if let Some(mode) = mode {
                        args.extend(["--start".into(), mode.into()]);
                    }
                    // batch-job's database is done after one repetition; the others vary.
                    let fed = if workload.name == "batch-job" { "0\n0\n0\n" } else { "1\n2\n3\n" };
                    let (outcome, lines) = dispatched(&Call::parse(&args).unwrap(), fed);
                    assert!(outcome.is_ok(), "{args:?}: {outcome:?}");
                    assert_eq!(lines.len(), 4, "{tag}: the ready line and three repetitions");
                    assert_eq!(lines[0]["ready"], mode.unwrap_or("none"), "{tag}");
                    assert_eq!(lines[0].get("start_ns").is_some(), mode == Some("warm"), "{tag}");
                    for line in &lines[1..] {
                        assert_eq!(line["extra"].get("start").and_then(Value::as_str), mode, "{tag}: {line}");
                    }
                    let job = std::env::temp_dir().join(format!("parbench-rust-{}-registry-{tag}", std::process::id()));
                    let _ = std::fs::remove_dir_all(job);
                }
            }
        }
        std::fs::remove_dir_all(scratch).unwrap();
    }
}
