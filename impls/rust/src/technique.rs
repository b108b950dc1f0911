//! The techniques a tuned kernel can run, fastest first, and the choice among them: the first
//! this CPU runs, or the one an environment variable names (for the tests and for comparing
//! techniques by hand). One asked for that cannot run here is bad arguments (exit 2) naming
//! what it needs, never quietly replaced by the next.

use crate::protocol::{bad_args, Outcome};

/// One way of running a kernel: `label` (first in `extra.kernel_detail`, the name to force it
/// by), `detail` (how it works), what it `needs` and whether this CPU has it (`available`,
/// the run-time detection); `cpuinfo`, the flags of /proc/cpuinfo that name the same
/// instructions, lets the tests check that detection against the kernel's own word.
pub struct Technique<K: 'static> {
    pub label: &'static str,
    pub detail: &'static str,
    pub needs: &'static str,
    #[cfg_attr(not(test), allow(dead_code))]
    pub cpuinfo: &'static [&'static str],
    pub available: fn() -> bool,
    pub kernel: K,
}

impl<K> Technique<K> {
    /// `extra.kernel_detail`: the label, then how it works.
    pub fn describe(&self) -> String {
        format!("{}: {}", self.label, self.detail)
    }
}

/// What `variable` asks for: its value, or `None` where it is unset or empty.
pub fn asked(variable: &str) -> Option<String> {
    std::env::var(variable).ok().filter(|value| !value.is_empty())
}

/// The technique to run: the fastest available where `asked` is `None`, else the one labelled
/// so, if this CPU runs it. `what` names the list (`the bitwise cipher`) in the messages.
pub fn choose<'a, K>(techniques: &'a [Technique<K>], asked: Option<&str>, variable: &str, what: &str) -> Outcome<&'a Technique<K>> {
    let Some(label) = asked else {
        return Ok(techniques.iter().find(|t| (t.available)()).expect("the last technique runs everywhere"));
    };
    let technique = techniques.iter().find(|t| t.label == label).ok_or_else(|| {
        bad_args(format!("{variable}={label} is not a technique of {what}; it has {}", labels(techniques)))
    })?;
    if !(technique.available)() {
        let runs: Vec<&str> = techniques.iter().filter(|t| (t.available)()).map(|t| t.label).collect();
        return Err(bad_args(format!("{variable}={label} cannot run here: it needs {}, which this CPU lacks; it runs {}", technique.needs, runs.join(", "))));
    }
    Ok(technique)
}

/// The labels in order, for `--list` and the messages.
pub fn labels<K>(techniques: &[Technique<K>]) -> String {
    techniques.iter().map(|t| t.label).collect::<Vec<_>>().join(", ")
}

/// Always available: the technique every list ends with.
pub fn everywhere() -> bool {
    true
}

/// For the tests: whether `technique` runs here; where it does not, prints why it is skipped,
/// and under `CI=true` fails where /proc/cpuinfo says the CPU has the instructions (a
/// detection that misses them would otherwise leave the technique untested for good).
#[cfg(test)]
pub fn runs_here_or_skips<K>(technique: &Technique<K>, what: &str) -> bool {
    if (technique.available)() {
        return true;
    }
    let flags = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let flags: Vec<&str> = flags.lines().find(|line| line.starts_with("flags")).unwrap_or("").split_whitespace().collect();
    let listed = technique.cpuinfo.iter().all(|flag| flags.contains(flag));
    eprintln!("skipped {what} {}: this CPU lacks {}", technique.label, technique.needs);
    if std::env::var("CI").as_deref() == Ok("true") && listed {
        panic!("{what} {} is not detected, but /proc/cpuinfo lists {:?}", technique.label, technique.cpuinfo);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Failure;

    fn never() -> bool {
        false
    }

    const POSED: [Technique<u8>; 3] = [
        Technique { label: "wide", detail: "w", needs: "wide registers", cpuinfo: &[], available: never, kernel: 0 },
        Technique { label: "narrow", detail: "n", needs: "narrow registers", cpuinfo: &[], available: everywhere, kernel: 1 },
        Technique { label: "plain", detail: "p", needs: "nothing", cpuinfo: &[], available: everywhere, kernel: 2 },
    ];

    fn message(outcome: Outcome<&Technique<u8>>) -> String {
        match outcome {
            Err(Failure::BadArguments(message)) => message,
            _ => panic!("expected bad arguments"),
        }
    }

    #[test]
    fn unasked_is_the_first_that_runs() {
        assert_eq!(choose(&POSED, None, "V", "the list").unwrap().label, "narrow");
    }

    #[test]
    fn asked_is_that_one_even_when_a_faster_one_runs() {
        assert_eq!(choose(&POSED, Some("plain"), "V", "the list").unwrap().label, "plain");
    }

    #[test]
    fn asked_but_unavailable_is_bad_arguments_naming_what_it_needs() {
        let text = message(choose(&POSED, Some("wide"), "V", "the list"));
        assert_eq!(text, "V=wide cannot run here: it needs wide registers, which this CPU lacks; it runs narrow, plain");
    }

    #[test]
    fn an_unknown_label_is_bad_arguments_listing_the_labels() {
        let text = message(choose(&POSED, Some("other"), "V", "the list"));
        assert_eq!(text, "V=other is not a technique of the list; it has wide, narrow, plain");
    }

    #[test]
    fn describe_puts_the_label_first() {
        assert_eq!(POSED[2].describe(), "plain: p");
    }
}
