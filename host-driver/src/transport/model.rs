//! The golden model alone, as a transport: pure software, no clock.
use super::{Completion, Transport, TransportError};
use ditto_hw::ftl::model::{CoreConfig, CoreModel};
use ditto_hw::index::model::IndexStats;
use ditto_sim::ditto_core::Job;

/// The golden model alone.
pub struct ModelTransport {
    model: CoreModel,
}

impl ModelTransport {
    pub fn new(config: CoreConfig) -> Self {
        ModelTransport { model: CoreModel::new(config) }
    }

    /// The model as the commands so far left it.
    pub fn model(&self) -> &CoreModel {
        &self.model
    }
}

impl Transport for ModelTransport {
    fn execute(&mut self, jobs: &[Job]) -> Result<Vec<Completion>, TransportError> {
        let out = jobs.iter().map(|j| self.model.execute(&j.model_command())).collect();
        // The idle gap after a call: the cleaner drains its backlog.
        while self.model.clean_step() {}
        Ok(out)
    }
    fn index_stats(&mut self) -> Result<IndexStats, TransportError> {
        Ok(self.model.index_stats())
    }
    fn cycles(&self) -> u64 {
        0
    }
    fn name(&self) -> String {
        "model".into()
    }
}
