//! The whole core of a configuration under Verilator, as a transport: the
//! emitted Verilog cosimulated, every response checked against the golden
//! model as it comes (the `verilator` cargo feature).
use super::{Completion, Transport, TransportError};
use ditto_hw::ftl::model::CoreModel;
use ditto_hw::ftl::Op;
use ditto_hw::index::model::IndexStats;
use ditto_hw::Config;
use ditto_sim::ditto_core::{CoreSetup, CoreSim, HostTraffic, Job};

/// The whole core of a configuration under Verilator, checked against the
/// golden model as it runs.
pub struct CosimTransport {
    sim: CoreSim<Box<ditto_sim::Model>>,
    golden: CoreModel,
    cycles: u64,
}

impl CosimTransport {
    pub fn new(config: &Config, setup: CoreSetup) -> Result<Self, TransportError> {
        let model = ditto_sim::Model::new(&ditto_sim::ditto_core::model_name(config))?;
        let mut sim = CoreSim::attach(Box::new(model), config, setup)?;
        sim.set_table_checks(false);
        // The whole-state checks scan the device: at flushes, not after
        // every request (each response is still checked as it comes).
        sim.set_checks_after_each_run(false);
        let golden = sim.golden();
        Ok(CosimTransport { sim, golden, cycles: 0 })
    }
}

impl Transport for CosimTransport {
    fn execute(&mut self, jobs: &[Job]) -> Result<Vec<Completion>, TransportError> {
        let run = self.sim.run_checked(&mut self.golden, jobs, HostTraffic::FULL_SPEED)?;
        if jobs.iter().any(|j| j.cmd.op == Op::Sync as u8) {
            self.sim.check_state(&self.golden)?;
        }
        self.cycles += run.cycles;
        Ok(run.responses.into_iter().zip(run.moves).collect())
    }
    fn index_stats(&mut self) -> Result<IndexStats, TransportError> {
        Ok(self.sim.index_stats())
    }
    fn cycles(&self) -> u64 {
        self.cycles
    }
    fn name(&self) -> String {
        format!("verilator ({})", ditto_sim::ditto_core::model_name(self.sim.config()))
    }
}
