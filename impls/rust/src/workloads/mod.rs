//! One module per workload of workloads/*.md.

pub mod batch_job;
pub mod coroutine_swarm;
pub mod keygen;
pub mod sdes_ecb;
pub mod spawn_chain;
