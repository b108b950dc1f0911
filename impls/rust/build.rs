//! Records the compiler's version for `--list`, so results name the toolchain that built them.

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .unwrap_or_else(|| "rustc (unknown version)".into());
    println!("cargo:rustc-env=PARBENCH_RUSTC_VERSION={}", version.trim());
}
