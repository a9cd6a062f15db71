//! The ECP5's PLL (`EHXPLLL`): dividers for an output frequency, and the
//! Verilog instance that makes it.
//!
//! The output is `input * CLKFB_DIV / CLKI_DIV`, fed back from `CLKOP`; the
//! VCO runs at `output * CLKOP_DIV`. Lattice's limits (TN1263): the phase
//! detector's input (`input / CLKI_DIV`) between 3.125 and 400 MHz, the VCO
//! between 400 and 800 MHz, the output between 3.125 and 400 MHz. Of the
//! exact settings, the one with the VCO nearest 600 MHz is chosen (as
//! Project Trellis's `ecppll` does).

use crate::error::SynthError;

/// Dividers of one `EHXPLLL` setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ecp5Pll {
    pub input_mhz: u32,
    pub output_mhz: u32,
    pub clki_div: u32,
    pub clkfb_div: u32,
    pub clkop_div: u32,
}

const PFD_MHZ: (f64, f64) = (3.125, 400.0);
const VCO_MHZ: (f64, f64) = (400.0, 800.0);
const OUTPUT_MHZ: (u32, u32) = (4, 400);

impl Ecp5Pll {
    /// The setting that makes exactly `output_mhz` from `input_mhz`, or an
    /// error saying why there is none.
    pub fn for_frequency(input_mhz: u32, output_mhz: u32) -> Result<Self, SynthError> {
        if !(OUTPUT_MHZ.0..=OUTPUT_MHZ.1).contains(&output_mhz) {
            return Err(SynthError::InvalidRequest(format!(
                "an ECP5 PLL output of {output_mhz} MHz is outside {}..={} MHz",
                OUTPUT_MHZ.0, OUTPUT_MHZ.1
            )));
        }
        let mut best: Option<(f64, Ecp5Pll)> = None;
        for clki_div in 1..=128u32 {
            let pfd = f64::from(input_mhz) / f64::from(clki_div);
            if pfd < PFD_MHZ.0 {
                break;
            }
            if pfd > PFD_MHZ.1 || (output_mhz * clki_div) % input_mhz != 0 {
                continue;
            }
            let clkfb_div = output_mhz * clki_div / input_mhz;
            if !(1..=80).contains(&clkfb_div) {
                continue;
            }
            for clkop_div in 1..=128u32 {
                let vco = f64::from(output_mhz * clkop_div);
                if !(VCO_MHZ.0..=VCO_MHZ.1).contains(&vco) {
                    continue;
                }
                let distance = (vco - 600.0).abs();
                if best.as_ref().is_none_or(|(d, _)| distance < *d) {
                    best = Some((distance, Ecp5Pll { input_mhz, output_mhz, clki_div, clkfb_div, clkop_div }));
                }
            }
        }
        best.map(|(_, pll)| pll).ok_or_else(|| {
            SynthError::InvalidRequest(format!(
                "no ECP5 PLL setting makes exactly {output_mhz} MHz from {input_mhz} MHz"
            ))
        })
    }

    /// The VCO's frequency in MHz.
    pub fn vco_mhz(&self) -> u32 {
        self.output_mhz * self.clkop_div
    }

    /// An `EHXPLLL` instance named `name` from the net `input` to the nets
    /// `output` and `locked`, with the frequency attributes nextpnr reads
    /// to constrain the output clock.
    pub fn instance(&self, name: &str, input: &str, output: &str, locked: &str) -> String {
        format!(
            "    (* FREQUENCY_PIN_CLKI=\"{input_mhz}\" *)\n\
             \x20   (* FREQUENCY_PIN_CLKOP=\"{output_mhz}\" *)\n\
             \x20   (* ICP_CURRENT=\"12\" *) (* LPF_RESISTOR=\"8\" *) (* MFG_ENABLE_FILTEROPAMP=\"1\" *) (* MFG_GMCREF_SEL=\"2\" *)\n\
             \x20   EHXPLLL #(\n\
             \x20       .PLLRST_ENA(\"DISABLED\"), .INTFB_WAKE(\"DISABLED\"), .STDBY_ENABLE(\"DISABLED\"),\n\
             \x20       .DPHASE_SOURCE(\"DISABLED\"), .OUTDIVIDER_MUXA(\"DIVA\"), .CLKOP_ENABLE(\"ENABLED\"),\n\
             \x20       .CLKI_DIV({clki}), .CLKFB_DIV({clkfb}), .CLKOP_DIV({clkop}),\n\
             \x20       .CLKOP_CPHASE({cphase}), .CLKOP_FPHASE(0), .FEEDBK_PATH(\"CLKOP\")\n\
             \x20   ) {name} (\n\
             \x20       .RST(1'b0), .STDBY(1'b0), .CLKI({input}), .CLKOP({output}), .CLKFB({output}),\n\
             \x20       .PHASESEL0(1'b0), .PHASESEL1(1'b0), .PHASEDIR(1'b1), .PHASESTEP(1'b1),\n\
             \x20       .PHASELOADREG(1'b1), .PLLWAKESYNC(1'b0), .ENCLKOP(1'b0), .LOCK({locked})\n\
             \x20   );\n",
            input_mhz = self.input_mhz,
            output_mhz = self.output_mhz,
            clki = self.clki_div,
            clkfb = self.clkfb_div,
            clkop = self.clkop_div,
            // Zero phase for the CLKOP feedback path (what `ecppll` writes).
            cphase = self.clkop_div / 2 - 1,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ulx3s_clock_makes_what_ecppll_makes() {
        // `ecppll -i 25 -o 100`: CLKI_DIV 1, CLKFB_DIV 4, CLKOP_DIV 6, CPHASE 2.
        let pll = Ecp5Pll::for_frequency(25, 100).unwrap();
        assert_eq!((pll.clki_div, pll.clkfb_div, pll.clkop_div, pll.vco_mhz()), (1, 4, 6, 600));
        assert!(pll.instance("pll", "a", "b", "c").contains(".CLKOP_CPHASE(2)"));
        // `ecppll -i 25 -o 60`: CLKI_DIV 5, CLKFB_DIV 12, CLKOP_DIV 10.
        let pll = Ecp5Pll::for_frequency(25, 60).unwrap();
        assert_eq!((pll.clki_div, pll.clkfb_div, pll.clkop_div), (5, 12, 10));
    }

    #[test]
    fn every_setting_found_is_exact_and_within_limits() {
        for output in [5, 25, 50, 75, 90, 100, 125, 150, 200, 400] {
            let pll = Ecp5Pll::for_frequency(25, output).unwrap();
            assert_eq!(25 * pll.clkfb_div, output * pll.clki_div, "{pll:?}");
            assert!((400..=800).contains(&pll.vco_mhz()), "{pll:?}");
            assert!(25.0 / f64::from(pll.clki_div) >= 3.125, "{pll:?}");
        }
        assert!(Ecp5Pll::for_frequency(25, 401).is_err());
        assert!(Ecp5Pll::for_frequency(25, 3).is_err());
        // 48 MHz needs a 1 MHz phase detector input from 25 MHz: too slow.
        assert!(Ecp5Pll::for_frequency(25, 48).is_err());
    }
}
