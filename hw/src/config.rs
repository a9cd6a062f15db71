//! Named hardware configurations, defined once here: every command takes
//! `--config NAME` with one of these names, and the simulation bridge, the
//! synthesis flow and the host driver all read their parameters from here.

/// One named configuration of the Ditto hardware.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// The name used on the command line (`--config NAME`).
    pub name: &'static str,
    /// What the configuration is for.
    pub about: &'static str,
    /// SHA-1 lanes working in parallel.
    pub lanes: usize,
    /// log2 of the words of the FIFO in front of each lane; 0 for no FIFO
    /// (one lane that takes the stream directly, or the wide hasher, whose
    /// lanes share page slots).
    pub lane_fifo_bits: usize,
    /// Bits of the page stream: 32 ([`crate::sha1::Sha1Hasher`], a word a
    /// clock) or 256 ([`crate::sha1::wide::Sha1WideHasher`], a beat a clock).
    pub page_stream_bits: usize,
    /// Clock frequency the design is built for, in MHz.
    pub clock_mhz: u32,
    /// Baud rate of the board's USB UART link (for boards that have one).
    pub uart_baud: u32,
    /// Lookup FSMs of the fingerprint index.
    pub index_fsms: usize,
    /// log2 of the index's buckets (eight entries each).
    pub index_bucket_bits: usize,
    /// The index table is in on-chip block RAM (else behind the top's
    /// `tbl_*` memory port).
    pub index_table_on_chip: bool,
    /// The FTL controller's memory requests are staged (offered a clock
    /// after the state asks, from registers): for a board whose FTL memory
    /// is across a link, where the clock matters and the extra clock per
    /// access does not. The board top and the core's cosimulation agree.
    pub ftl_staged_requests: bool,
    /// The FTL controller reads ahead while the index looks up a key
    /// (`FtlController::reading_ahead`): for a core whose writes must not
    /// wait on the FTL, at the price of a little logic.
    pub ftl_reads_ahead: bool,
    /// The FTL controller has the NVM write cache built in
    /// (`FtlController::with_nvm_cache`; `cfg_nvm_slots` turns it on).
    pub ftl_nvm_cache: bool,
}

impl Config {
    /// Words of the FIFO in front of each lane (0: none).
    pub fn lane_fifo_words(&self) -> usize {
        if self.lane_fifo_bits == 0 {
            0
        } else {
            1 << self.lane_fifo_bits
        }
    }
    /// UART bit period in clock cycles; panics if the nearest whole number of
    /// cycles is more than 2% off the baud rate (8N1 tolerates about 4%).
    pub fn uart_cycles_per_bit(&self) -> u32 {
        let clock = self.clock_mhz as u64 * 1_000_000;
        let cycles = (clock + self.uart_baud as u64 / 2) / self.uart_baud as u64;
        let error = (cycles * self.uart_baud as u64).abs_diff(clock) as f64 / clock as f64;
        assert!(
            error <= 0.02,
            "{}: {} baud is {:.1}% off at {} MHz",
            self.name,
            self.uart_baud,
            error * 100.0,
            self.clock_mhz
        );
        cycles as u32
    }

    /// Entries (pages) the fingerprint index can hold.
    pub fn index_entries(&self) -> usize {
        crate::index::WAYS << self.index_bucket_bits
    }

    /// Clocks a page takes to cross the page stream at one transfer a
    /// clock: 1,024 words, or 128 beats.
    pub fn page_stream_transfers(&self) -> usize {
        crate::sha1::PAGE_BYTES * 8 / self.page_stream_bits
    }

    /// Steady-state clock cycles per page of the hasher: the SHA-1 limit of
    /// 5,200 cycles per page per lane, or the clocks a page takes to cross
    /// the page stream, whichever is larger.
    pub fn hasher_cycles_per_page_limit(&self) -> f64 {
        crate::sha1::cycles_per_page_limit(self.lanes, self.page_stream_transfers())
    }
}

/// `$block<L, NB, FB, FBP1, ...>` for `lanes` lanes with `2^fb`-word lane
/// FIFOs, or none (`fb` = 0, one lane: `NB` = 0 and a FIFO size that is never
/// built), followed by any further generics given.
macro_rules! lane_generics {
    ($($block:ident)::+, $lanes:literal, $fb:literal $(, $more:tt)*) => {
        $($block)::+<
            $lanes,
            { if $fb == 0 { 0 } else { $lanes } },
            { if $fb == 0 { 2 } else { $fb } },
            { if $fb == 0 { 3 } else { $fb + 1 } },
            $($more),*
        >
    };
}

/// The hasher of a configuration's `hasher:` entry: `words(lanes,
/// fifo_bits)` for [`crate::sha1::Sha1Hasher`] on a 32-bit stream, or
/// `beats(groups)` for [`crate::sha1::wide::Sha1WideHasher`] (four lanes a
/// group) on a 256-bit stream; `field` picks what is said of it.
macro_rules! hasher_entry {
    (lanes, words($lanes:literal, $fb:literal)) => { $lanes };
    (lanes, beats($groups:literal)) => { 4 * $groups };
    (fifo_bits, words($lanes:literal, $fb:literal)) => { $fb };
    (fifo_bits, beats($groups:literal)) => { 0 };
    (stream_bits, words($lanes:literal, $fb:literal)) => { 32 };
    (stream_bits, beats($groups:literal)) => { crate::sha1::wide::BEAT_BITS };
    (hasher, words($lanes:literal, $fb:literal)) => {
        lane_generics!(crate::sha1::Sha1Hasher, $lanes, $fb)
    };
    (hasher, beats($groups:literal)) => { crate::sha1::wide::Sha1WideHasher<$groups> };
    (core $fsms:literal, words($lanes:literal, $fb:literal)) => {
        lane_generics!(crate::ftl::ditto_core::DittoCore, $lanes, $fb, $fsms)
    };
    (core $fsms:literal, beats($groups:literal)) => {
        crate::ftl::ditto_core::DittoWideCore<$groups, $fsms>
    };
}

/// Verilog of the whole-core board top (the core behind the framed UART
/// link) of a configuration: one whose index table is on chip and whose
/// hasher takes 32-bit words (the link's width); else none.
macro_rules! board_top_verilog {
    ($config:expr, $setup:expr, $onchip:literal, $fsms:literal, $bb:literal, words($lanes:literal, $fb:literal)) => {
        $onchip.then(|| {
            crate::verilog::top_verilog(<lane_generics!(
                crate::board::CoreBoardTop,
                $lanes,
                $fb,
                $fsms,
                { $bb + 3 },
                $bb
            )>::new($config, $setup))
        })
    };
    ($config:expr, $setup:expr, $onchip:literal, $fsms:literal, $bb:literal, beats($groups:literal)) => {
        None
    };
}

/// Declares every configuration once: its `Config` constant and the hardware
/// types it selects, plus the name-based dispatch used by the tools.
macro_rules! configurations {
    ($( $konst:ident, $hasher:ident : {
        name: $name:literal, about: $about:literal, hasher: $kind:ident $shape:tt,
        clock_mhz: $mhz:literal, uart_baud: $baud:literal,
        index_fsms: $fsms:literal, index_bucket_bits: $bb:literal, index_table_on_chip: $onchip:literal,
        ftl_staged_requests: $staged:literal, ftl_reads_ahead: $ahead:literal, ftl_nvm_cache: $nvm:literal $(,)?
    } ),+ $(,)?) => {
        $(
            #[doc = $about]
            pub const $konst: Config = Config {
                name: $name, about: $about,
                lanes: hasher_entry!(lanes, $kind $shape),
                lane_fifo_bits: hasher_entry!(fifo_bits, $kind $shape),
                page_stream_bits: hasher_entry!(stream_bits, $kind $shape),
                clock_mhz: $mhz, uart_baud: $baud,
                index_fsms: $fsms, index_bucket_bits: $bb, index_table_on_chip: $onchip,
                ftl_staged_requests: $staged, ftl_reads_ahead: $ahead, ftl_nvm_cache: $nvm,
            };
            #[doc = concat!("The SHA-1 hasher of the `", $name, "` configuration.")]
            pub type $hasher = hasher_entry!(hasher, $kind $shape);
        )+

        /// Every configuration, in the order they are documented.
        pub const ALL: &[Config] = &[$($konst),+];

        /// Verilog of the hasher of the configuration `config` (top module `top`).
        pub fn hasher_verilog(config: &Config) -> String {
            match config.name {
                $($name => crate::verilog::top_verilog(<$hasher>::default()),)+
                other => unreachable!("configuration {other} is declared in ALL"),
            }
        }

        /// Verilog of the fingerprint index of `config` (top module `top`):
        /// with its table in block RAM, or with the table port at the top.
        pub fn index_verilog(config: &Config) -> String {
            match config.name {
                $($name => if $onchip {
                    crate::verilog::top_verilog(crate::index::onchip::IndexOnChip::<$fsms, { $bb + 3 }, $bb>::new())
                } else {
                    crate::verilog::top_verilog(crate::index::fp_index::FpIndex::<$fsms>::new($bb))
                },)+
                other => unreachable!("configuration {other} is declared in ALL"),
            }
        }

        /// Verilog of the whole core of `config` (top module `top`): hasher,
        /// index and FTL controller, with the index's and the FTL's memory
        /// ports at the top.
        pub fn core_verilog(config: &Config) -> String {
            match config.name {
                $($name => crate::verilog::top_verilog(
                    <hasher_entry!(core $fsms, $kind $shape)>::for_config(config)),)+
                other => unreachable!("configuration {other} is declared in ALL"),
            }
        }

        /// Verilog of the whole-core board top of `config` built with
        /// `setup` (the core behind the framed UART link), for
        /// configurations whose index table is on chip and whose hasher
        /// takes 32-bit words.
        pub fn core_board_verilog(config: &Config, setup: &crate::board::BoardSetup) -> Option<String> {
            match config.name {
                $($name => board_top_verilog!(config, setup, $onchip, $fsms, $bb, $kind $shape),)+
                other => unreachable!("configuration {other} is declared in ALL"),
            }
        }
    };
}

configurations! {
    CU, CuHasher: {
        name: "cu",
        about: "Alchitry Cu (iCE40-HX8K, 100 MHz): one SHA-1 lane taking the stream directly; a 4,096-entry index in block RAM with one lookup FSM; the FTL controller's memory requests staged for the link to the host.",
        hasher: words(1, 0), clock_mhz: 100, uart_baud: 1_000_000,
        index_fsms: 1, index_bucket_bits: 9, index_table_on_chip: true,
        ftl_staged_requests: true, ftl_reads_ahead: false, ftl_nvm_cache: true,
    },
    LARGE, LargeHasher: {
        name: "large",
        about: "Simulation and larger FPGAs (the ECP5-85F): a 256-bit page stream into twenty SHA-1 lanes in five groups around shared page buffers; a 32,768-entry index with 8 lookup FSMs behind an external memory port.",
        hasher: beats(5), clock_mhz: 100, uart_baud: 1_000_000,
        index_fsms: 8, index_bucket_bits: 12, index_table_on_chip: false,
        ftl_staged_requests: false, ftl_reads_ahead: true, ftl_nvm_cache: true,
    },
}

/// Errors in choosing a configuration.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ConfigError {
    #[error("unknown configuration `{name}`; known configurations: {known}")]
    Unknown { name: String, known: String },
}

/// Looks a configuration up by its name.
pub fn by_name(name: &str) -> Result<Config, ConfigError> {
    ALL.iter().copied().find(|c| c.name == name).ok_or_else(|| ConfigError::Unknown {
        name: name.to_string(),
        known: ALL.iter().map(|c| c.name).collect::<Vec<_>>().join(", "),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_config_name_lists_known_ones() {
        let err = by_name("huge").unwrap_err();
        assert_eq!(err.to_string(), "unknown configuration `huge`; known configurations: cu, large");
        assert_eq!(by_name("cu").unwrap(), CU);
    }

    /// What a configuration says of its hasher agrees with the hasher it
    /// builds: the stream's width in the Verilog, the lanes, the limit.
    #[test]
    fn each_configuration_describes_the_hasher_it_builds() {
        assert_eq!((CU.lanes, CU.page_stream_bits, CU.page_stream_transfers()), (1, 32, 1024));
        assert_eq!(CU.hasher_cycles_per_page_limit(), 5200.0);
        assert_eq!((LARGE.lanes, LARGE.page_stream_bits, LARGE.page_stream_transfers()), (20, 256, 128));
        assert_eq!(LARGE.hasher_cycles_per_page_limit(), 260.0);
        for config in ALL {
            let verilog = hasher_verilog(config);
            let port = if config.page_stream_bits == 32 { "page$word" } else { "page$beat" };
            let width = config.page_stream_bits - 1;
            let declaration = format!("input wire  [{width}:0] {port}");
            assert!(verilog.contains(&declaration), "{}: no `{declaration}`", config.name);
        }
    }

    /// Only the wide core registers its index's reset, responses and
    /// memory requests; the Cu's core drives them directly (its netlist is
    /// placed at 90% of the HX8K).
    #[test]
    fn only_the_wide_core_registers_the_index_reset_responses_and_requests() {
        let registered = "index$reset = index_reset$q;";
        let direct = "index$reset = reset | ftl$idx_reset;";
        // The cores' Verilog is built on a stack larger than a test thread's.
        let verilog = |config: &'static Config| {
            std::thread::Builder::new()
                .stack_size(256 << 20)
                .spawn(move || core_verilog(config))
                .unwrap()
                .join()
                .unwrap()
        };
        let large = verilog(&LARGE);
        assert!(large.contains(registered) && large.contains("index_reset$d = reset | ftl$idx_reset;"));
        assert!(large.contains("ftl$idx_rsp$valid = index_response$to_controller$valid;"));
        assert!(large.contains("index_response$from_index$valid = index$rsp$valid;"));
        assert!(large.contains("index$rsp$ready = index_response$from_index$ready;"));
        for (port, stage) in [("tbl", "table_requests"), ("fp", "fp_requests")] {
            assert!(large.contains(&format!(".to_memory$req_tag({port}$req_tag)")), "{port}");
            assert!(large.contains(&format!("index${port}$req_ready = {stage}$from_index$req_ready;")), "{port}");
        }
        let cu = verilog(&CU);
        assert!(cu.contains(direct) && !cu.contains("index_reset"), "the Cu's core has no index_reset register");
        assert!(cu.contains("ftl$idx_rsp$valid = index$rsp$valid;") && !cu.contains("index_response"));
        assert!(cu.contains(".tbl$req_ready(tbl$req_ready)") && !cu.contains("table_requests"));
    }
}
