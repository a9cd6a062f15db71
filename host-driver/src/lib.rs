//! Ditto's host side: the driver ([`driver`]: Ditto as a block device over
//! any [`transport`]: a cosimulated core, the golden model, or a board over
//! its framed link), `ditto ingest`, bitstreams, and the benchmarks.
pub mod bench;
pub mod core_bench;
pub mod driver;
mod error;
pub mod figures;
pub mod fio_bench;
pub mod fuzz;
pub mod hash;
pub mod ingest;
pub mod lanes;
pub mod limits;
pub mod mutants;
pub mod nbd;
pub mod nvm_bench;
mod parallel;
pub mod peer_bench;
pub mod plots;
pub mod prove;
pub mod replay;
pub mod sample;
pub mod scratch;
pub mod speed;
pub mod store;
pub mod store_bench;
pub mod synth;
pub mod timing;
pub mod transport;

pub use error::HostError;
