//! noop: nothing in the timed region, so the harness can measure boot and its own overhead.

use serde_json::Map;

use crate::protocol::{repeat, timed, Call, Outcome, Sample};
use crate::workloads::{plain, Workload};

pub const WORKLOAD: Workload = Workload { name: "noop", params: &[], models: &[plain("seq", "seq")], run };

fn run(call: &Call) -> Outcome<()> {
    repeat(call, &Map::new(), || {
        let (_, ns) = timed(|| ());
        Ok(Sample::new(ns, 0, "noop".into()))
    })
}
