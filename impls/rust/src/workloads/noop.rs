//! noop: nothing in the timed region, so the harness can measure boot and its own overhead.

use serde_json::{json, Map};

use crate::protocol::{measure, repeat, Call, Conversation, Outcome, Ready, Sample};
use crate::workloads::{plain, Workload};

pub const WORKLOAD: Workload = Workload { name: "noop", params: &[], models: &[plain("seq", "seq")], kernels: &[], run };

fn run(_call: &Call, talk: &mut Conversation) -> Outcome<()> {
    // The variant is 0 and ignored.
    repeat(talk, Ready::None, &Map::new(), |_| {
        let ((), measured) = measure(|_| ());
        // Nothing to check: the checksum is a constant, computed in no time.
        Ok(Sample::new(measured, 0, "noop".into()).with("checksum_ns", json!(0)))
    })
}
