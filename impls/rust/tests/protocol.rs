//! Protocols 3 and 4 through the built binary, as the launcher holds the conversation: the ready
//! line first, each variant written only after the line before it arrived, the process's threads
//! read at every line, end of stdin the end of the case (docs/protocol.md, "Protocol 3" and
//! "Protocol 4").

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::Value;

const BINARY: &str = env!("CARGO_BIN_EXE_parbench-rust");

/// One process of the binary in conversation: stdin and stdout are pipes.
struct Process {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Process {
    fn start(args: &[&str]) -> Process {
        let mut child = Command::new(BINARY)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Process { child, stdin, stdout }
    }

    fn line(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|_| panic!("not a JSON line: {line:?}"))
    }

    /// Writes one variant and reads the repetition's line.
    fn feed(&mut self, variant: u64) -> Value {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{variant}").unwrap();
        stdin.flush().unwrap();
        self.line()
    }

    /// The ids of the process's threads now (Linux: /proc/<pid>/task).
    fn threads(&self) -> BTreeSet<u32> {
        std::fs::read_dir(format!("/proc/{}/task", self.child.id()))
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().parse().unwrap())
            .collect()
    }

    /// Closes stdin and waits: the exit code and stderr.
    fn finish(mut self) -> (i32, String) {
        drop(self.stdin.take());
        let output = self.child.wait_with_output().unwrap();
        (output.status.code().unwrap_or(-1), String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

/// The quick brown fox of the spec's vector, in a file of this test's own.
fn fox_file(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("parbench-rust-protocol-{}-{name}.txt", std::process::id()));
    std::fs::write(&path, b"The quick brown fox jumps over the lazy dog\n").unwrap();
    path
}

const FOX_UNDER_642: &str = "914675d0c7b2f71113578ca02139eb35d6432c8e7d5da3684487415877b391cf";

#[test]
fn the_ready_line_comes_first_and_each_repetition_uses_the_variant_it_was_fed() {
    let input = fox_file("ready");
    let mut process = Process::start(&["sdes-ecb", "--model", "seq", "--input", input.to_str().unwrap(), "--cipher", "bitwise"]);
    assert_eq!(process.line(), serde_json::json!({"ready": "none"}));
    let zeroth = process.feed(5);
    let first = process.feed(642);
    let second = process.feed(1023);
    assert_eq!((&zeroth["rep"], &first["rep"], &second["rep"]), (&Value::from(0), &Value::from(1), &Value::from(2)));
    assert_eq!(first["checksum"], FOX_UNDER_642);
    assert!(zeroth["checksum"] != first["checksum"] && second["checksum"] != first["checksum"]);
    assert_eq!(process.finish().0, 0);
    std::fs::remove_file(input).unwrap();
}

#[test]
fn end_of_stdin_ends_the_case_with_exit_0_after_as_many_lines_as_variants() {
    for k in [0, 1, 3] {
        let mut process = Process::start(&["spawn-chain", "--model", "futures-local", "--n", "10"]);
        assert_eq!(process.line()["ready"], "none");
        for j in 0..k {
            let line = process.feed(7 + j);
            assert_eq!((&line["rep"], &line["checksum"]), (&Value::from(j), &Value::from((17 + j).to_string())));
        }
        let mut rest = String::new();
        drop(process.stdin.take());
        std::io::Read::read_to_string(&mut process.stdout, &mut rest).unwrap();
        assert_eq!(rest, "", "nothing after the last repetition's line");
        assert_eq!(process.finish(), (0, String::new()), "{k} variants");
    }
}

#[test]
fn warmup_repeat_variants_in_argv_and_start_on_a_model_without_workers_are_exit_2() {
    for args in [
        &["noop", "--model", "seq", "--variants", "0"][..],
        &["noop", "--model", "seq", "--warmup", "1"],
        &["noop", "--model", "seq", "--repeat", "1"],
        &["spawn-chain", "--model", "futures-local", "--n", "10", "--start", "warm"],
    ] {
        let (code, stderr) = Process::start(args).finish();
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
}

/// The models with start modes, each with small params: (workload, model, params).
fn parallel_cases(input: &str) -> Vec<(&'static str, &'static str, Vec<String>)> {
    let owned = |args: &[&str]| args.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    let mut cases = Vec::new();
    for model in ["rayon", "rayon-broadcast", "threads"] {
        cases.push(("sdes-ecb", model, owned(&["--input", input, "--cipher", "table"])));
        cases.push(("keygen", model, owned(&["--count", "300", "--bytes", "100", "--source", "seeded"])));
    }
    cases.push(("spawn-chain", "tokio", owned(&["--n", "200"])));
    cases.push(("coroutine-swarm", "tokio", owned(&["--tasks", "50", "--steps", "3"])));
    cases
}

/// Runs a case in `start` mode for four repetitions; the threads at the ready line and at each
/// repetition's line.
fn threads_at_each_line(workload: &str, model: &str, params: &[String], start: &str) -> Vec<BTreeSet<u32>> {
    let mut args = vec![workload, "--model", model, "--workers", "2", "--start", start];
    args.extend(params.iter().map(String::as_str));
    let mut process = Process::start(&args);
    let ready = process.line();
    assert_eq!(ready["ready"], start, "{workload} {model}");
    assert_eq!(ready.get("start_ns").is_some_and(Value::is_u64), start == "warm", "{workload} {model}: {ready}");
    let mut seen = vec![process.threads()];
    for variant in [11, 12, 13, 14] {
        let line = process.feed(variant);
        assert_eq!(line["extra"]["start"], start, "{workload} {model}: {line}");
        assert!(line["extra"]["busy"].as_array().is_some_and(|busy| !busy.is_empty()), "{workload} {model}: {line}");
        seen.push(process.threads());
    }
    assert_eq!(process.finish().0, 0, "{workload} {model} {start}");
    seen
}

#[test]
fn a_warm_process_makes_its_threads_before_the_ready_line_and_none_after() {
    let input = fox_file("warm");
    for (workload, model, params) in parallel_cases(input.to_str().unwrap()) {
        let mut seen = threads_at_each_line(workload, model, &params, "warm");
        // After its last line the process ends, its pool with it.
        seen.pop();
        assert!(seen[0].len() >= 3, "{workload} {model}: the main thread and two workers at the ready line: {:?}", seen[0]);
        assert!(seen.iter().all(|threads| threads == &seen[0]), "{workload} {model}: {seen:?}");
    }
    std::fs::remove_file(input).unwrap();
}

#[test]
fn a_cold_repetition_leaves_no_thread_to_the_next() {
    let input = fox_file("cold");
    for (workload, model, params) in parallel_cases(input.to_str().unwrap()) {
        let seen = threads_at_each_line(workload, model, &params, "cold");
        for pair in seen[1..].windows(2) {
            let carried: Vec<_> = pair[0].difference(&seen[0]).filter(|t| pair[1].contains(t)).collect();
            assert!(carried.is_empty(), "{workload} {model}: threads {carried:?} outlived their repetition: {seen:?}");
        }
    }
    std::fs::remove_file(input).unwrap();
}
