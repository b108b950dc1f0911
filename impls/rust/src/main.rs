//! parbench's Rust runtime: dispatches `run <workload> …` and `run --list` (docs/protocol.md).

mod allocator;
mod digest;
mod parallel;
mod protocol;
mod technique;
mod workloads;

use std::process::ExitCode;

use serde_json::{json, Value};

use protocol::{Call, Conversation, Failure};
use workloads::keygen;

/// The system allocator for the portable kernels; `--kernel tuned` switches to mimalloc
/// (per-thread heaps without locks, memory a repetition frees handed out again to the next
/// instead of going back to the OS at once; docs/runtimes/rust.md).
#[global_allocator]
static ALLOCATOR: allocator::Switch = allocator::Switch;

/// Set by `build` from the toolchain and Cargo profile, so `--list` names what really compiled this.
const RUSTC_VERSION: &str = env!("PARBENCH_RUSTC_VERSION");
const BUILD_FLAGS: &str = "opt-level=3, lto=fat, codegen-units=1, panic=unwind, the default target (x86-64: SSE2; no target-cpu), the tuned kernels' SIMD compiled with #[target_feature] and chosen at run time, global allocator: system malloc, mimalloc with --kernel tuned";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--list") {
        println!("{}", list());
        return ExitCode::SUCCESS;
    }
    match Call::parse(&args).and_then(|call| workloads::dispatch(&call, &mut Conversation::standard())) {
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

fn list() -> Value {
    json!({
        "runtime": "rust",
        "version": RUSTC_VERSION,
        "flags": BUILD_FLAGS,
        "sources": {"strong": keygen::STRONG_SOURCE, "seeded": "SplitMix64"},
        "workloads": workloads::listed(),
    })
}
