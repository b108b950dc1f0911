//! The registry: one entry per workload of workloads/*.md with its params and models, read by
//! both the dispatch and `--list`, so what is listed is exactly what runs.

pub mod batch_job;
pub mod coroutine_swarm;
pub mod keygen;
pub mod noop;
pub mod sdes_ecb;
pub mod spawn_chain;

use serde_json::{json, Map, Value};

use crate::protocol::{bad_args, Call, KernelClass, Outcome};

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
}

pub struct Workload {
    pub name: &'static str,
    /// The workload's params, spelled as in `--list` (`docs_dir`; the flag is `--docs-dir`).
    pub params: &'static [&'static str],
    pub models: &'static [Model],
    /// The kernel classes (protocol 2) with what each runs: `("portable", detail)` first, then
    /// `("tuned", detail)` where there is one; empty where the workload has no kernel classes.
    pub kernels: &'static [(&'static str, &'static str)],
    /// Runs one case; only called with a model of `models` and params this entry accepts.
    pub run: fn(&Call) -> Outcome<()>,
}

pub const ALL: &[&Workload] = &[
    &noop::WORKLOAD,
    &keygen::WORKLOAD,
    &sdes_ecb::WORKLOAD,
    &batch_job::WORKLOAD,
    &spawn_chain::WORKLOAD,
    &coroutine_swarm::WORKLOAD,
];

/// A model with no workers, no own params and nothing to note.
pub const fn plain(name: &'static str, family: &'static str) -> Model {
    Model { name, family, workers: false, params: &[], note: "" }
}

/// Checks the call against the registry (workload, model, params), then runs it.
pub fn dispatch(call: &Call) -> Outcome<()> {
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
    (workload.run)(call)
}

impl Workload {
    /// The flags a call of `model` may carry, spelled as on the command line.
    fn accepted_params(&self, model: &Model) -> Vec<String> {
        let workers: &[&str] = if model.workers { &["workers"] } else { &[] };
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

    fn is_bad_args(outcome: Outcome<()>) -> bool {
        matches!(outcome, Err(crate::protocol::Failure::BadArguments(_)))
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
    fn an_unknown_workload_model_or_param_is_bad_arguments() {
        assert!(is_bad_args(dispatch(&call(&["nope", "--model", "seq"]))));
        assert!(is_bad_args(dispatch(&call(&["keygen", "--model", "nope", "--count", "1"]))));
        assert!(is_bad_args(dispatch(&call(&["keygen", "--model", "seq", "--count", "1", "--typo", "1"]))));
    }

    #[test]
    fn kernels_are_listed_where_the_workload_has_classes() {
        let listed = listed();
        for workload in ["sdes-ecb", "keygen", "batch-job"] {
            assert!(listed[workload]["kernels"]["portable"].is_string(), "{workload}");
        }
        assert!(listed["sdes-ecb"]["kernels"]["tuned"].is_string());
        assert!(listed["keygen"]["kernels"]["tuned"].is_string());
        assert!(listed["batch-job"]["kernels"].get("tuned").is_none());
        assert!(is_bad_args(dispatch(&call(&["batch-job", "--model", "seq", "--docs-dir", "x", "--db", "sqlite:x", "--kernel", "tuned"]))));
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
        assert!(is_bad_args(dispatch(&call(&["keygen", "--model", "seq", "--count", "1", "--workers", "2"]))));
    }

    /// Small params under which every model of a workload runs in a moment.
    fn small_case(workload: &str, scratch: &std::path::Path) -> Vec<String> {
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
                let (docs_dir, _) = batch_job::tests::prepare_job("registry", 4);
                let db = format!("sqlite:{}", docs_dir.join("job.sqlite").display());
                vec![text("--docs-dir"), docs_dir.display().to_string(), text("--db"), db]
            }
            "spawn-chain" => ["--n", "20"].map(text).to_vec(),
            "coroutine-swarm" => ["--tasks", "5", "--steps", "2"].map(text).to_vec(),
            other => panic!("no small case for {other}"),
        }
    }

    #[test]
    fn every_registered_model_runs_through_dispatch() {
        let scratch = std::env::temp_dir().join(format!("parbench-rust-registry-{}", std::process::id()));
        std::fs::create_dir_all(&scratch).unwrap();
        for workload in ALL {
            for model in workload.models {
                let mut args = vec![workload.name.to_string(), "--model".into(), model.name.into()];
                args.extend(small_case(workload.name, &scratch));
                if model.workers {
                    args.extend(["--workers".into(), "2".into()]);
                }
                let call = Call::parse(&args).unwrap();
                assert!(dispatch(&call).is_ok(), "{args:?}");
            }
        }
        std::fs::remove_dir_all(scratch).unwrap();
        let _ = std::fs::remove_dir_all(std::env::temp_dir().join(format!("parbench-rust-{}-registry", std::process::id())));
    }
}
