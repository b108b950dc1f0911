//! parbench's Rust runtime: dispatches `run <workload> …` and `run --list` (docs/protocol.md).

mod checksum;
mod protocol;
mod workloads;

use std::process::ExitCode;

use serde_json::{json, Map, Value};

use protocol::{repeat, Call, Failure, Outcome, Sample};
use workloads::{batch_job, coroutine_swarm, keygen, sdes_ecb, spawn_chain};

/// Set by `build` from the toolchain and Cargo profile, so `--list` names what really compiled this.
const RUSTC_VERSION: &str = env!("PARBENCH_RUSTC_VERSION");
const BUILD_FLAGS: &str = "opt-level=3, lto=fat, codegen-units=1, panic=unwind, target-cpu=generic x86-64";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--list") {
        println!("{}", list());
        return ExitCode::SUCCESS;
    }
    match Call::parse(&args).and_then(|call| dispatch(&call)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::BadArguments(message)) => {
            eprintln!("{message}");
            ExitCode::from(2)
        }
        Err(Failure::Limit(detail)) => {
            println!("{}", json!({"error": "limit", "detail": detail}));
            ExitCode::from(3)
        }
        Err(Failure::Crash(message)) => {
            eprintln!("{message}");
            ExitCode::from(1)
        }
    }
}

fn dispatch(call: &Call) -> Outcome<()> {
    match call.workload.as_str() {
        "noop" => {
            call.only_params(&[])?;
            repeat(call, &Map::new(), || {
                let (_, ns) = protocol::timed(|| ());
                Ok(Sample::new(ns, 0, "noop".into()))
            })
        }
        "keygen" => keygen::run(call),
        "sdes-ecb" => sdes_ecb::run(call),
        "batch-job" => batch_job::run(call),
        "spawn-chain" => spawn_chain::run(call),
        "coroutine-swarm" => coroutine_swarm::run(call),
        other => Err(protocol::bad_args(format!(
            "unknown workload '{other}'; valid: noop, keygen, sdes-ecb, batch-job, spawn-chain, coroutine-swarm"
        ))),
    }
}

fn list() -> Value {
    let seq = json!({"family": "seq"});
    json!({
        "runtime": "rust",
        "version": RUSTC_VERSION,
        "flags": BUILD_FLAGS,
        "sources": {"strong": keygen::STRONG_SOURCE},
        "workloads": {
            "noop": {"params": [], "models": {"seq": seq}},
            "keygen": {
                "params": ["count", "bytes", "source", "seed"],
                "models": {
                    "seq": seq,
                    "rayon": {"family": "data-parallel", "workers": true,
                              "note": "into_par_iter().map_init(one generator per job).collect(), pool of --workers threads"},
                    "threads": {"family": "threads", "workers": true,
                                "note": "std::thread::scope, one contiguous slice of indices per thread"}
                }
            },
            "sdes-ecb": {
                "params": ["input", "key", "cipher", "chunk", "output"],
                "note": "--output fresh (default: the ciphertext buffer is allocated inside the timed region) | reused (allocated and touched once before timing: the ceiling form)",
                "models": {
                    "seq": seq,
                    "rayon": {"family": "data-parallel", "workers": true,
                              "note": format!("par_chunks_mut(chunk) zipped with par_chunks, default chunk {} bytes", sdes_ecb::DEFAULT_CHUNK)},
                    "threads": {"family": "threads", "workers": true,
                                "note": "std::thread::scope workers taking chunks from a shared queue"}
                }
            },
            "batch-job": {
                "params": ["docs_dir", "db"],
                "models": {
                    "seq": seq,
                    "threads": {"family": "threads", "workers": true,
                                "note": "bounded pool: --workers std threads, one connection each, shared work queue"},
                    "rayon": {"family": "data-parallel", "workers": true,
                              "note": "par_iter().try_for_each_init: one connection per Rayon job split; blocking I/O on the pool threads"},
                    "tokio": {"family": "async", "workers": true,
                              "note": "one tokio task per document; file+DB calls via spawn_blocking on a pool of --workers connections (rusqlite / sync postgres client); alignment on the --workers async threads"}
                }
            },
            "spawn-chain": {
                "params": ["n"],
                "models": {
                    "tokio": {"family": "async", "workers": true, "note": "tokio::spawn tasks linked by tokio::sync::oneshot, multi-thread runtime"},
                    "tokio-current-thread": {"family": "async", "note": "the same tasks on tokio's current-thread runtime"},
                    "futures-local": {"family": "async", "note": "futures::executor::LocalPool with futures::channel::oneshot, one thread"},
                    "threads": {"family": "threads", "params": ["stack_bytes"],
                                "note": "one std::thread per link with a sync_channel(1); default stack 2 MiB (std), --stack-bytes raises or lowers it as a separate case"}
                }
            },
            "coroutine-swarm": {
                "params": ["tasks", "steps", "sleep_ms"],
                "models": {
                    "seq": {"family": "seq", "note": "plain loop; sleep_ms must be 0"},
                    "tokio": {"family": "async", "workers": true, "note": "tokio::spawn + yield_now / time::sleep, multi-thread runtime"},
                    "tokio-current-thread": {"family": "async", "note": "the same tasks on tokio's current-thread runtime"}
                }
            }
        }
    })
}
