//! The FTL's settings port ([`FtlSettings`]), its values computed once.
//!
//! [`FtlSettingsValues::new`] turns a flash geometry and the FTL's limits
//! into what the port carries (log2 of each power of two, the rest as
//! given). Both sides that drive the port use it: the board top through
//! [`FtlSettingsConstant`], the cosimulation through the core's `cfg$*` pins.
//!
//! `FtlSettingsConstant` ports: `cfg` ([`FtlSettingsSource`], out), the
//! values it was built with, steady from the first clock.
use super::flash::Geometry;
use super::nvm::NvmConfig;
use super::{ADDR_BITS, NVM_SLOT_BITS, REFCOUNT_BITS};
use crate::ports::FtlSettingsSource;
use rust_hdl::prelude::*;

/// What the settings port carries, for one geometry and set of limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FtlSettingsValues {
    /// log2 of the flash devices.
    pub dev_bits: u64,
    /// log2 of the blocks per device.
    pub block_bits: u64,
    /// log2 of the pages per block.
    pub page_bits: u64,
    /// Blocks per device kept back for garbage collection.
    pub reserve: u64,
    /// Logical pages served.
    pub lpas: u64,
    /// A duplicate may map to a copy on any device (else only on its own).
    pub array_wide: bool,
    /// The largest reference count a page may reach.
    pub refcount_max: u64,
    /// NVM write-cache slots (0: no cache; see [`crate::ftl::nvm`]).
    pub nvm_slots: u64,
    /// Garbage collection drops pages cached in the NVM.
    pub nvm_cooperative: bool,
}

impl FtlSettingsValues {
    /// The port's values. Panics (a build-time mistake, not an input) if a
    /// dimension of `geometry` is not a power of two or a value does not fit
    /// its field.
    pub fn new(geometry: &Geometry, lpas: u32, array_wide: bool, refcount_max: u32) -> Self {
        fn log2(n: u32, what: &str) -> u64 {
            assert!(n.is_power_of_two(), "{what} ({n}) must be a power of two");
            n.trailing_zeros() as u64
        }
        assert!(u64::from(lpas) < 1 << ADDR_BITS, "{lpas} logical pages do not fit {ADDR_BITS} bits");
        assert!(u64::from(refcount_max) < 1 << REFCOUNT_BITS, "reference-count limit {refcount_max} does not fit");
        assert!(geometry.reserve_blocks < 1 << 16, "reserve of {} blocks does not fit", geometry.reserve_blocks);
        Self {
            dev_bits: log2(geometry.devices, "devices"),
            block_bits: log2(geometry.blocks_per_device, "blocks per device"),
            page_bits: log2(geometry.pages_per_block, "pages per block"),
            reserve: geometry.reserve_blocks as u64,
            lpas: lpas as u64,
            array_wide,
            refcount_max: refcount_max as u64,
            nvm_slots: 0,
            nvm_cooperative: false,
        }
    }

    /// The values with the NVM write cache `nvm` (the controller must be
    /// built with the cache: [`crate::ftl::controller::FtlController::with_nvm_cache`]).
    pub fn with_nvm(self, nvm: NvmConfig) -> Self {
        assert!(nvm.slots <= NvmConfig::MAX_SLOTS, "{} NVM slots do not fit", nvm.slots);
        Self { nvm_slots: nvm.slots as u64, nvm_cooperative: nvm.cooperative, ..self }
    }

    /// The core's settings pins as the emitted Verilog names them
    /// (`cfg$*`), each with its value: for a harness or a test bench that
    /// drives a bare core's settings from outside.
    pub fn pins(&self) -> [(&'static str, u64); 9] {
        [
            ("cfg$dev_bits", self.dev_bits),
            ("cfg$block_bits", self.block_bits),
            ("cfg$page_bits", self.page_bits),
            ("cfg$reserve", self.reserve),
            ("cfg$lpas", self.lpas),
            ("cfg$array_wide", u64::from(self.array_wide)),
            ("cfg$refcount_max", self.refcount_max),
            ("cfg$nvm_slots", self.nvm_slots),
            ("cfg$nvm_cooperative", u64::from(self.nvm_cooperative)),
        ]
    }
}

/// Drives an [`crate::ports::FtlSettings`] port with fixed values (a board's
/// build has one geometry).
#[derive(LogicBlock)]
pub struct FtlSettingsConstant {
    /// The settings, to the FTL (join it to the core's `cfg`).
    pub cfg: FtlSettingsSource,
    dev_bits: Constant<Bits<2>>,
    block_bits: Constant<Bits<4>>,
    page_bits: Constant<Bits<4>>,
    reserve: Constant<Bits<16>>,
    lpas: Constant<Bits<ADDR_BITS>>,
    array_wide: Constant<Bit>,
    refcount_max: Constant<Bits<REFCOUNT_BITS>>,
    nvm_slots: Constant<Bits<NVM_SLOT_BITS>>,
    nvm_cooperative: Constant<Bit>,
}

impl FtlSettingsConstant {
    pub fn new(values: FtlSettingsValues) -> Self {
        Self {
            cfg: Default::default(),
            dev_bits: Constant::new(bits(values.dev_bits)),
            block_bits: Constant::new(bits(values.block_bits)),
            page_bits: Constant::new(bits(values.page_bits)),
            reserve: Constant::new(bits(values.reserve)),
            lpas: Constant::new(bits(values.lpas)),
            array_wide: Constant::new(values.array_wide),
            refcount_max: Constant::new(bits(values.refcount_max)),
            nvm_slots: Constant::new(bits(values.nvm_slots)),
            nvm_cooperative: Constant::new(values.nvm_cooperative),
        }
    }
}

impl Logic for FtlSettingsConstant {
    #[hdl_gen]
    fn update(&mut self) {
        self.cfg.dev_bits.next = self.dev_bits.val();
        self.cfg.block_bits.next = self.block_bits.val();
        self.cfg.page_bits.next = self.page_bits.val();
        self.cfg.reserve.next = self.reserve.val();
        self.cfg.lpas.next = self.lpas.val();
        self.cfg.array_wide.next = self.array_wide.val();
        self.cfg.refcount_max.next = self.refcount_max.val();
        self.cfg.nvm_slots.next = self.nvm_slots.val();
        self.cfg.nvm_cooperative.next = self.nvm_cooperative.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GEOMETRY: Geometry = Geometry { devices: 4, blocks_per_device: 128, pages_per_block: 64, reserve_blocks: 2 };

    #[test]
    fn values_are_the_log2_of_each_dimension() {
        let v = FtlSettingsValues::new(&GEOMETRY, 4096, false, 4095);
        assert_eq!((v.dev_bits, v.block_bits, v.page_bits, v.reserve), (2, 7, 6, 2));
        assert_eq!((v.lpas, v.array_wide, v.refcount_max), (4096, false, 4095));
    }

    #[test]
    #[should_panic(expected = "blocks per device (96) must be a power of two")]
    fn a_dimension_not_a_power_of_two_is_refused() {
        FtlSettingsValues::new(&Geometry { blocks_per_device: 96, ..GEOMETRY }, 4096, true, 4095);
    }

    #[test]
    #[should_panic(expected = "does not fit")]
    fn a_refcount_limit_past_its_field_is_refused() {
        FtlSettingsValues::new(&GEOMETRY, 4096, true, 1 << REFCOUNT_BITS);
    }

    #[test]
    fn the_constant_drives_its_values() {
        let values = FtlSettingsValues::new(&GEOMETRY, 1000, true, 7);
        let mut block = FtlSettingsConstant::new(values);
        block.connect_all();
        block.update();
        let cfg = &block.cfg;
        assert_eq!((cfg.dev_bits.next, cfg.block_bits.next, cfg.page_bits.next), (bits(2), bits(7), bits(6)));
        assert_eq!((cfg.reserve.next, cfg.lpas.next, cfg.refcount_max.next), (bits(2), bits(1000), bits(7)));
        assert!(cfg.array_wide.next);
    }
}
