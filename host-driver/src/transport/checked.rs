//! Golden-model checking as a transport wrapper: [`Checked`] runs every
//! batch through the inner transport and through the golden model
//! ([`CoreModel`]), and fails with [`TransportError::Diverged`] at the
//! first response, relocation or index counter that differs. `--check`
//! and the tests turn it on; the verilator backend's cosimulation checks
//! itself, finer (cleaner steps and tables too).
use super::{Completion, Divergence, Transport, TransportError};
use ditto_hw::ftl::model::{CoreConfig, CoreModel};
use ditto_hw::index::model::IndexStats;
use ditto_sim::ditto_core::Job;

/// `inner`, checked against the golden model batch by batch.
pub struct Checked<T: Transport> {
    inner: T,
    golden: CoreModel,
}

impl<T: Transport> Checked<T> {
    /// `inner`, a fresh core built as `config`.
    pub fn new(inner: T, config: CoreConfig) -> Self {
        Checked { inner, golden: CoreModel::new(config) }
    }

    /// The transport inside (for a test's fault injection and counters).
    pub fn inner(&mut self) -> &mut T {
        &mut self.inner
    }

    fn diverged(&self, what: Divergence) -> TransportError {
        TransportError::Diverged { transport: self.inner.name(), what: Box::new(what) }
    }
}

impl<T: Transport> Transport for Checked<T> {
    fn execute(&mut self, jobs: &[Job]) -> Result<Vec<Completion>, TransportError> {
        let got = self.inner.execute(jobs)?;
        if got.len() != jobs.len() {
            return Err(self.diverged(Divergence::Count { jobs: jobs.len(), completions: got.len() }));
        }
        for (job, (rsp, moves)) in jobs.iter().zip(&got) {
            let (want, want_moves) = self.golden.execute(&job.model_command());
            let pairs = |m: &[ditto_hw::ftl::flash::Relocation]| m.iter().map(|m| (m.from, m.to)).collect::<Vec<_>>();
            let (got_moves, want_moves) = (pairs(moves), pairs(&want_moves));
            if (rsp.tag, rsp.status, rsp.value, rsp.flags) != (job.cmd.tag, want.status, want.value, want.flags)
                || got_moves != want_moves
            {
                return Err(self.diverged(Divergence::Response {
                    op: job.cmd.op,
                    lpa: job.cmd.lpa,
                    got: rsp.status,
                    got_value: rsp.value,
                    got_flags: rsp.flags,
                    got_moves,
                    want: want.status,
                    want_value: want.value,
                    want_flags: want.flags,
                    want_moves,
                }));
            }
        }
        // The idle gap after a call, as every transport promises.
        while self.golden.clean_step() {}
        Ok(got)
    }

    fn index_stats(&mut self) -> Result<IndexStats, TransportError> {
        let got = self.inner.index_stats()?;
        let want = self.golden.index_stats();
        if got != want {
            return Err(self.diverged(Divergence::IndexStats { got, want }));
        }
        Ok(got)
    }

    fn cycles(&self) -> u64 {
        self.inner.cycles()
    }

    fn name(&self) -> String {
        format!("{} (checked)", self.inner.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::ModelTransport;
    use ditto_hw::ftl::flash::Geometry;
    use ditto_hw::ftl::{Op, Status};
    use ditto_sim::ditto_core::workload;

    fn config() -> CoreConfig {
        CoreConfig {
            lpas: 64,
            geometry: Geometry { devices: 1, blocks_per_device: 8, pages_per_block: 8, reserve_blocks: 2 },
            index_bucket_bits: 4,
            bloom: true,
            array_wide: true,
            refcount_max: 3,
            nvm: ditto_hw::ftl::nvm::NvmConfig::OFF,
        }
    }

    /// The model, lying once: the `n`th response's status turned into
    /// `Unique` (a duplicate stored twice, say).
    struct LiesOnce {
        model: ModelTransport,
        n: usize,
    }

    impl Transport for LiesOnce {
        fn execute(&mut self, jobs: &[Job]) -> Result<Vec<Completion>, TransportError> {
            let mut out = self.model.execute(jobs)?;
            if let Some((rsp, _)) = out.get_mut(self.n) {
                rsp.status = if rsp.status == Status::Unique { Status::Duplicate } else { Status::Unique };
            }
            self.n = self.n.saturating_sub(out.len());
            Ok(out)
        }
        fn index_stats(&mut self) -> Result<IndexStats, TransportError> {
            self.model.index_stats()
        }
        fn cycles(&self) -> u64 {
            0
        }
        fn name(&self) -> String {
            "liar".into()
        }
    }

    /// A skewed mix (hot contents among cold, past the count limit, with
    /// trims and reads): the model agrees with itself through every batch;
    /// one changed status anywhere is caught, naming the command.
    #[test]
    fn the_model_agrees_with_itself_and_one_wrong_answer_is_caught() {
        let seed = ditto_sim::testkit::seed("checked_transport");
        let mut r = ditto_sim::testkit::rng(seed);
        let jobs = workload::mixed(&mut r, 400, 64, 200, 10);
        let mut honest = Checked::new(ModelTransport::new(config()), config());
        for batch in jobs.chunks(37) {
            honest.execute(batch).unwrap();
        }
        honest.index_stats().unwrap();
        for n in [0, 150, 399] {
            let liar = LiesOnce { model: ModelTransport::new(config()), n };
            let mut checked = Checked::new(liar, config());
            let err = jobs.chunks(37).try_for_each(|b| checked.execute(b).map(drop)).unwrap_err();
            let TransportError::Diverged { what, .. } = &err else { panic!("seed {seed}: {err}") };
            let Divergence::Response { op, lpa, .. } = **what else { panic!("seed {seed}: {err}") };
            assert_eq!((op, lpa), (jobs[n].cmd.op, jobs[n].cmd.lpa), "seed {seed}: {err}");
        }
        // Tags come back as they went.
        let mut model = Checked::new(ModelTransport::new(config()), config());
        let job = workload::job(Op::Trim, 9, 3, 0);
        let (rsp, _) = model.execute(&[job]).unwrap().remove(0);
        assert_eq!((rsp.tag, rsp.status), (9, Status::Unmapped));
    }
}
