//! The tuned kernels' techniques forced through the built binary, as a user compares them by
//! hand: `PARBENCH_SDES_TECHNIQUE` and `PARBENCH_KEYGEN_TECHNIQUE` name one, `kernel_detail`
//! starts with it, and one that is not a technique (or cannot run here) is exit 2 in one line.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const BINARY: &str = env!("CARGO_BIN_EXE_parbench-rust");

/// One repetition (variant `variant`) of `args` with `variable=value`: the exit code, the
/// repetition's line (if any) and stderr.
fn forced(variable: &str, value: &str, args: &[&str], variant: u64) -> (i32, Option<Value>, String) {
    let mut child = Command::new(BINARY)
        .args(args)
        .env(variable, value)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    // A process that refused its arguments may be gone before the variant is written.
    let _ = writeln!(child.stdin.take().unwrap(), "{variant}");
    let Output { status, stdout, stderr } = child.wait_with_output().unwrap();
    let line = String::from_utf8_lossy(&stdout).lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()).find(|l| l.get("rep").is_some());
    (status.code().unwrap_or(-1), line, String::from_utf8_lossy(&stderr).into_owned())
}

/// The labels `--list` gives the tuned kernel of `workload`, in the order it gives them.
fn listed_tuned(workload: &str) -> String {
    let output = Command::new(BINARY).arg("--list").output().unwrap();
    let list: Value = serde_json::from_slice(&output.stdout).unwrap();
    list["workloads"][workload]["kernels"]["tuned"].as_str().unwrap().to_string()
}

fn fox_file() -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("parbench-rust-techniques-{}.txt", std::process::id()));
    std::fs::write(&path, b"The quick brown fox jumps over the lazy dog\n").unwrap();
    path
}

const FOX_UNDER_642: &str = "914675d0c7b2f71113578ca02139eb35d6432c8e7d5da3684487415877b391cf";

#[test]
fn a_forced_sdes_technique_runs_and_says_so_and_a_wrong_one_is_exit_2() {
    let input = fox_file();
    let listed = listed_tuned("sdes-ecb");
    assert!(listed.contains("PARBENCH_SDES_TECHNIQUE"), "{listed}");
    for (cipher, label) in [("bitwise", "reference"), ("table", "reference")] {
        let args = ["sdes-ecb", "--model", "seq", "--kernel", "tuned", "--input", input.to_str().unwrap(), "--cipher", cipher];
        let (code, line, stderr) = forced("PARBENCH_SDES_TECHNIQUE", label, &args, 642);
        let line = line.unwrap_or_else(|| panic!("{cipher} {label}: exit {code}, {stderr}"));
        assert!(line["extra"]["kernel_detail"].as_str().unwrap().starts_with(&format!("{label}: ")), "{line}");
        assert_eq!(line["checksum"], FOX_UNDER_642);
        // A label of the other cipher is no technique of this one.
        let other = if cipher == "bitwise" { "avx512-vbmi" } else { "gfni-avx512" };
        let (code, line, stderr) = forced("PARBENCH_SDES_TECHNIQUE", other, &args, 642);
        assert_eq!((code, line, stderr.lines().count()), (2, None, 1), "{stderr}");
        assert!(stderr.starts_with(&format!("PARBENCH_SDES_TECHNIQUE={other} is not a technique of the {cipher} cipher")), "{stderr}");
    }
    std::fs::remove_file(input).unwrap();
}

#[test]
fn a_forced_keygen_encoder_runs_and_says_so_and_a_wrong_one_is_exit_2() {
    assert!(listed_tuned("keygen").contains("PARBENCH_KEYGEN_TECHNIQUE"));
    let args = ["keygen", "--model", "seq", "--kernel", "tuned", "--count", "10", "--bytes", "1000"];
    let (code, line, stderr) = forced("PARBENCH_KEYGEN_TECHNIQUE", "scalar", &args, 0);
    let line = line.unwrap_or_else(|| panic!("exit {code}, {stderr}"));
    assert!(line["extra"]["kernel_detail"].as_str().unwrap().starts_with("scalar: "), "{line}");
    let (code, line, stderr) = forced("PARBENCH_KEYGEN_TECHNIQUE", "nonsense", &args, 0);
    assert_eq!((code, line, stderr.lines().count()), (2, None, 1), "{stderr}");
}
