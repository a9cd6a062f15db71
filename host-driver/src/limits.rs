//! What each configuration can hold, stated once: `ditto info` prints it,
//! and the commands check a size against it before any work starts.
use crate::driver::MAX_PAGES_PER_DEVICE;
use crate::transport::{Backend, TransportError};
use ditto_hw::Config;
use serde::Serialize;

/// A size on the command line that is not one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SizeError {
    #[error("size `{text}`: `{digits}` is not a number")]
    NotANumber { text: String, digits: String },
    #[error("size `{text}`: unknown unit `{unit}` (K, M or G)")]
    Unit { text: String, unit: String },
    #[error("size `{text}`: more than 2^64 bytes")]
    TooLarge { text: String },
}

/// `16M`, `4096`, `1G`: bytes, with power-of-1024 suffixes (`K`/`KiB`,
/// `M`/`MiB`, `G`/`GiB`, any case, or `B`).
pub fn parse_size(text: &str) -> Result<u64, SizeError> {
    let t = text.trim();
    let split = t.bytes().position(|c| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let n: u64 = digits.parse().map_err(|_| {
        if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
            SizeError::NotANumber { text: text.into(), digits: digits.into() }
        } else {
            SizeError::TooLarge { text: text.into() }
        }
    })?;
    let scale: u64 = match unit.to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KIB" => 1 << 10,
        "M" | "MIB" => 1 << 20,
        "G" | "GIB" => 1 << 30,
        _ => return Err(SizeError::Unit { text: text.into(), unit: unit.into() }),
    };
    n.checked_mul(scale).ok_or_else(|| SizeError::TooLarge { text: text.into() })
}

/// Most devices (SSDs) a core serves: three key bits in device-local mode.
pub const MAX_DEVICES: u32 = 8;

/// A size or count past what a configuration holds, refused before any
/// work starts.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    #[error("{devices} devices: --config {config} --backend {backend} serves 1 to {max} device{}, a power of two", if *max == 1 { "" } else { "s" })]
    Devices { devices: u32, config: String, backend: Backend, max: u32 },
    #[error("{pages} pages ({} MiB) on {devices} device(s): --config {config} --backend {backend} holds at most {per_device} pages ({} MiB) per device, {} pages on {max_devices} devices (see `ditto info --config {config}`)", pages / 256, per_device / 256, per_device * *max_devices as u64)]
    Pages { pages: u64, devices: u32, config: String, backend: Backend, per_device: u64, max_devices: u32 },
}

/// A configuration's limits, through one backend.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Limits {
    pub config: String,
    pub backend: Backend,
    /// Fingerprints the index holds; a page whose bucket is full is stored
    /// unshared (not an error: the report counts it).
    pub index_entries: u64,
    /// A page's reference-count limit; one more duplicate is stored as a
    /// new copy, which later duplicates share.
    pub refcount_max: u32,
    /// Most devices.
    pub max_devices: u32,
    /// Most logical pages a device of `max_devices` devices may have (the
    /// size a command accepts; per device, [`Limits::max_pages_per_device`]).
    pub max_logical_pages: u64,
    /// Most logical pages per device (what the flash geometry holds, with
    /// its reserve and spare).
    pub max_pages_per_device: u64,
    /// Physical pages per device at the largest geometry (8,192 blocks of 64).
    pub physical_pages_per_device: u64,
}

impl Limits {
    /// The limits of `config` through `backend` (a board's are its own).
    pub fn of(config: &Config, backend: &Backend) -> Result<Limits, TransportError> {
        let mut limits = Limits {
            config: config.name.into(),
            backend: backend.clone(),
            index_entries: config.index_entries() as u64,
            refcount_max: ditto_hw::ftl::REFCOUNT_MAX,
            max_devices: MAX_DEVICES,
            max_logical_pages: MAX_PAGES_PER_DEVICE * MAX_DEVICES as u64,
            max_pages_per_device: MAX_PAGES_PER_DEVICE,
            physical_pages_per_device: 8_192 * 64,
        };
        if let Some(board) = backend.board(config)? {
            let g = board.geometry;
            limits.refcount_max = board.refcount_max;
            limits.max_devices = g.devices;
            limits.max_logical_pages = board.lpas as u64;
            limits.max_pages_per_device = board.lpas.div_ceil(g.devices) as u64;
            limits.physical_pages_per_device = g.pages_per_device() as u64;
        }
        Ok(limits)
    }

    /// Refuses a device of `pages` logical pages on `devices` devices that
    /// these limits cannot hold, naming the limit.
    pub fn check(&self, pages: u64, devices: u32) -> Result<(), LimitError> {
        let (config, backend) = (self.config.clone(), self.backend.clone());
        if devices == 0 || devices > self.max_devices || !devices.is_power_of_two() {
            return Err(LimitError::Devices { devices, config, backend, max: self.max_devices });
        }
        let per_device = pages.div_ceil(devices as u64);
        if per_device > self.max_pages_per_device {
            return Err(LimitError::Pages {
                pages,
                devices,
                config,
                backend,
                per_device: self.max_pages_per_device,
                max_devices: self.max_devices,
            });
        }
        Ok(())
    }

    /// For `pages` of data that may not all fit the index: what to do, if
    /// anything (the configuration whose index would hold them).
    pub fn index_hint(&self, pages: u64) -> Option<String> {
        if pages <= self.index_entries {
            return None;
        }
        let bigger =
            ditto_hw::CONFIGS.iter().filter(|c| c.index_entries() as u64 >= pages).min_by_key(|c| c.index_entries());
        Some(match bigger {
            Some(c) => format!(
                "the `{}` index holds {} fingerprints, fewer than the {pages} pages written: pages whose bucket is \
                 full are stored unshared; `--config {}` ({} fingerprints) would hold them",
                self.config,
                self.index_entries,
                c.name,
                c.index_entries()
            ),
            None => format!(
                "the `{}` index holds {} fingerprints, fewer than the {pages} pages written, and no configuration's \
                 index holds that many: pages whose bucket is full are stored unshared",
                self.config, self.index_entries
            ),
        })
    }

    /// The limits as text, a line each.
    pub fn lines(&self) -> Vec<String> {
        vec![
            format!("config             {} (backend {})", self.config, self.backend),
            format!("index entries      {} (a full bucket stores the page unshared)", self.index_entries),
            format!("reference count    at most {} per copy (then a new copy takes over)", self.refcount_max),
            format!("devices            1 to {} (a power of two)", self.max_devices),
            format!(
                "logical pages      at most {} per device ({} MiB), {} in all ({} MiB)",
                self.max_pages_per_device,
                self.max_pages_per_device / 256,
                self.max_logical_pages,
                self.max_logical_pages / 256
            ),
            format!("physical pages     {} per device", self.physical_pages_per_device),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ditto_hw::config::{CU, LARGE};
    use proptest::prelude::*;

    #[test]
    fn sizes_parse_with_their_units_and_overflow_is_an_error() {
        assert_eq!(parse_size("16M"), Ok(16 << 20));
        assert_eq!(parse_size(" 4096 "), Ok(4096));
        assert_eq!(parse_size("2gib"), Ok(2 << 30));
        // Once `n * unit` wrapped around (or panicked in a debug build).
        assert!(matches!(parse_size("99999999999G"), Err(SizeError::TooLarge { .. })));
        assert!(matches!(parse_size("18446744073709551616"), Err(SizeError::TooLarge { .. })));
        assert!(matches!(parse_size("M"), Err(SizeError::NotANumber { .. })));
        assert!(matches!(parse_size("12T"), Err(SizeError::Unit { .. })));
        assert!(matches!(parse_size("1é"), Err(SizeError::Unit { .. })));
    }

    proptest! {
        /// Any text is a size or a typed error; a size is its digits times
        /// its unit.
        #[test]
        fn any_text_is_a_size_or_a_typed_error(text in "\\PC{0,24}", n in 0u64..1 << 34, unit in 0usize..4) {
            let _ = parse_size(&text);
            let (suffix, scale) = [("", 1u64), ("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30)][unit];
            prop_assert_eq!(parse_size(&format!("{n}{suffix}")), Ok(n * scale));
        }
    }

    #[test]
    fn a_size_past_the_limit_is_refused_naming_it() {
        let l = Limits::of(&LARGE, &Backend::Verilator).unwrap();
        l.check(l.max_pages_per_device, 1).unwrap();
        l.check(l.max_logical_pages, 8).unwrap();
        let e = l.check(l.max_pages_per_device + 1, 1).unwrap_err().to_string();
        assert!(e.contains("at most 419328 pages"), "{e}");
        assert!(l.check(16, 3).is_err() && l.check(16, 16).is_err() && l.check(16, 0).is_err());
        // The board serves its own 4,096 pages on one device.
        let board = Limits::of(&CU, &Backend::Serial("/dev/null".into())).unwrap();
        board.check(4_096, 1).unwrap();
        assert!(board.check(4_097, 1).is_err() && board.check(16, 2).is_err());
        assert!(Limits::of(&LARGE, &Backend::BoardCosim).is_err(), "the board is a cu");
    }

    #[test]
    fn the_index_hint_names_the_config_that_would_hold_the_data() {
        let cu = Limits::of(&CU, &Backend::Verilator).unwrap();
        assert_eq!(cu.index_hint(4_096), None);
        assert!(cu.index_hint(5_000).unwrap().contains("`--config large` (32768 fingerprints)"));
        assert!(cu.index_hint(1 << 20).unwrap().contains("no configuration"));
    }
}
