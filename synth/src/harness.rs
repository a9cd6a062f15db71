//! A pin harness: measures a block whose ports outnumber a board's pins.
//!
//! [`pin_harness`] wraps the module `top` of a Verilog source in a module
//! `harness` with three ports: `clk` (the block's clock), `din` and `dout`.
//! Every other input of the block is shifted in from `din` through one
//! shift register, then held in a register of its own (`held`, loaded
//! while the shift register's last bit, one past the inputs, is set), and
//! every output is registered and XOR-reduced, through two more register
//! stages, to `dout`. Nothing of the block can be optimised away (each
//! input is a register's output the tools cannot predict, each output
//! reaches a pin), and the harness's own paths are one LUT level deep at
//! most plus a 32-input XOR tree, so the block's paths set the Fmax.
//!
//! The held stage is there because a shift register is a chain that
//! starts at the `din` pin: an input taken straight from it comes from a
//! flip-flop the placer must keep beside its neighbours in the chain, at
//! the pin for the first bits. A reset that fans out over the whole block
//! then starts its path at the edge of the die, which is the harness's
//! path, not the block's (on a board the reset comes from a synchroniser
//! the placer puts where it likes). A held register has one input from the
//! chain and may sit beside its loads. Its load enable keeps it from being
//! merged with the chain's next bit, which has the same data input. That
//! enable is one net from the chain's end to every held register, with no
//! logic on it: a path of its own, short of a block's own paths so far
//! (the `large` core's held stage has 736 bits; its critical path is
//! inside the core).
//!
//! The harness is a measurement fixture, not a product: its bitstream does
//! nothing useful on a board.

use crate::error::SynthError;

/// One port of the wrapped module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Port {
    pub name: String,
    pub width: usize,
    pub input: bool,
}

/// The ports of `module top` in `verilog`, in order, as rust-hdl writes
/// them: a `module top(a,b,...);` line, then one `input wire [N:0] a;` or
/// `output reg [N:0] b;` line per port (blank lines and `//` comments
/// between them skipped).
pub fn top_ports(verilog: &str, top: &str) -> Result<Vec<Port>, SynthError> {
    let header = format!("module {top}(");
    let (start_line, _) = verilog
        .lines()
        .enumerate()
        .find(|(_, line)| line.trim_start().starts_with(&header))
        .ok_or_else(|| SynthError::InvalidRequest(format!("the Verilog has no line starting `{header}`")))?;
    let mut ports = Vec::new();
    for (index, line) in verilog.lines().enumerate().skip(start_line + 1) {
        let text = line.trim();
        if text.is_empty() || text.starts_with("//") {
            if ports.is_empty() {
                continue;
            }
            break;
        }
        let bad = || SynthError::InvalidRequest(format!("line {}: cannot read a port from `{text}`", index + 1));
        let (direction, rest) = text.split_once(char::is_whitespace).ok_or_else(bad)?;
        let input = match direction {
            "input" => true,
            "output" => false,
            _ if ports.is_empty() => return Err(bad()),
            _ => break,
        };
        let rest = rest.trim_start();
        let rest = rest.strip_prefix("wire").or_else(|| rest.strip_prefix("reg")).unwrap_or(rest).trim_start();
        let (width, name) = match rest.strip_prefix('[') {
            Some(range) => {
                let (msb, name) = range.split_once(":0]").ok_or_else(bad)?;
                (msb.trim().parse::<usize>().map_err(|_| bad())? + 1, name)
            }
            None => (1, rest),
        };
        let name = name.trim().strip_suffix(';').ok_or_else(bad)?.trim();
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Err(bad());
        }
        ports.push(Port { name: name.to_owned(), width, input });
    }
    if ports.is_empty() {
        return Err(SynthError::InvalidRequest(format!("module {top} declares no ports")));
    }
    Ok(ports)
}

/// `verilog` followed by the module `harness` around its `top` (see the
/// module documentation); `clock` names the block's clock input, `tied`
/// the inputs held at a constant value (each must be an input, its value
/// must fit its width). The
/// outputs are captured zero-extended to whole 32-bit groups (the constant
/// bits cost nothing), each group folded to one bit.
pub fn pin_harness(verilog: &str, top: &str, clock: &str, tied: &[(&str, u64)]) -> Result<String, SynthError> {
    let ports = top_ports(verilog, top)?;
    if !ports.iter().any(|p| p.input && p.name == clock) {
        return Err(SynthError::InvalidRequest(format!("module {top} has no input `{clock}`")));
    }
    for &(name, value) in tied {
        let port = ports
            .iter()
            .find(|p| p.input && p.name == name && p.name != clock)
            .ok_or_else(|| SynthError::InvalidRequest(format!("module {top} has no input `{name}` to tie")))?;
        if port.width < 64 && value >> port.width != 0 {
            return Err(SynthError::InvalidRequest(format!(
                "{value} does not fit the {}-bit input `{name}`",
                port.width
            )));
        }
    }
    let tied_value = |name: &str| tied.iter().find(|(tied, _)| *tied == name).map(|&(_, value)| value);
    let inputs: Vec<&Port> =
        ports.iter().filter(|p| p.input && p.name != clock && tied_value(&p.name).is_none()).collect();
    let outputs: Vec<&Port> = ports.iter().filter(|p| !p.input).collect();
    let in_bits: usize = inputs.iter().map(|p| p.width).sum();
    let out_bits: usize = outputs.iter().map(|p| p.width).sum();
    if out_bits == 0 {
        return Err(SynthError::InvalidRequest(format!("module {top} has no outputs to measure")));
    }
    // One held bit at least, so that `held` is a real register; the shift
    // register has one bit more, the held stage's load enable (a held bit
    // whose data were its own enable would be a constant to yosys).
    let held_bits = in_bits.max(1);
    let sr_bits = held_bits + 1;
    let groups = out_bits.div_ceil(32);

    // rust-hdl's port names hold `$`; an escaped identifier takes any of them.
    let escaped = |name: &str| format!("\\{name} ");
    let mut connections = vec![format!("    .{}(clk)", escaped(clock))];
    for port in ports.iter().filter(|p| p.input) {
        if let Some(value) = tied_value(&port.name) {
            connections.push(format!("    .{}({}'d{value})", escaped(&port.name), port.width));
        }
    }
    let mut at = 0;
    for port in &inputs {
        connections.push(format!("    .{}(held[{}:{}])", escaped(&port.name), at + port.width - 1, at));
        at += port.width;
    }
    at = 0;
    for port in &outputs {
        connections.push(format!("    .{}(outs[{}:{}])", escaped(&port.name), at + port.width - 1, at));
        at += port.width;
    }

    let mut text = String::with_capacity(verilog.len() + 4096);
    text.push_str(verilog);
    text.push_str(&format!(
        "\n// Pin harness (ditto_synth::harness): {in_bits} input bits from `din`, \
         {tied_count} inputs tied, {out_bits} output bits XOR-reduced to `dout`.\n\
         module harness(input wire clk, input wire din, output reg dout);\n\
         \x20   reg [{msb}:0] sr;\n\
         \x20   always @(posedge clk) sr <= {{sr[{below}:0], din}};\n\
         \x20   reg [{held_msb}:0] held;\n\
         \x20   always @(posedge clk) if (sr[{held_bits}]) held <= sr[{held_msb}:0];\n\
         \x20   wire [{omsb}:0] outs;\n\
         \x20   reg [{cmsb}:0] captured;\n\
         \x20   always @(posedge clk) captured <= outs;\n\
         \x20   reg [{gmsb}:0] folded;\n\
         \x20   integer group;\n\
         \x20   always @(posedge clk) begin\n\
         \x20       for (group = 0; group < {groups}; group = group + 1)\n\
         \x20           folded[group] <= ^captured[32 * group +: 32];\n\
         \x20       dout <= ^folded;\n\
         \x20   end\n\
         \x20   {top} block (\n{connections}\n    );\n\
         endmodule\n",
        msb = sr_bits - 1,
        held_bits = held_bits,
        held_msb = held_bits - 1,
        below = sr_bits - 2,
        omsb = out_bits - 1,
        gmsb = groups - 1,
        cmsb = groups * 32 - 1,
        tied_count = tied.len(),
        connections = connections.join(",\n"),
    ));
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLOCK: &str = "\
module top(clock,reset,page$word,page$ready,digest);
    
    // Module arguments
    input wire  clock;
    input wire  reset;
    input wire  [31:0] page$word;
    output reg  page$ready;
    output reg  [159:0] digest;
    
    // Constant declarations
    localparam  x = 1;
endmodule
";

    #[test]
    fn ports_are_read_in_order() {
        let ports = top_ports(BLOCK, "top").unwrap();
        let shape: Vec<(&str, usize, bool)> = ports.iter().map(|p| (p.name.as_str(), p.width, p.input)).collect();
        assert_eq!(
            shape,
            vec![
                ("clock", 1, true),
                ("reset", 1, true),
                ("page$word", 32, true),
                ("page$ready", 1, false),
                ("digest", 160, false)
            ]
        );
    }

    #[test]
    fn harness_feeds_every_input_and_folds_every_output() {
        let text = pin_harness(BLOCK, "top", "clock", &[]).unwrap();
        assert!(text.starts_with(BLOCK));
        assert!(text.contains("reg [33:0] sr;"), "{text}");
        assert!(text.contains("reg [32:0] held;"), "{text}");
        assert!(text.contains(".\\page$word (held[32:1])"), "{text}");
        assert!(text.contains(".\\digest (outs[160:1])"), "{text}");
        assert!(text.contains("reg [5:0] folded;"), "{text}");
        assert!(text.contains(".\\clock (clk)"), "{text}");
    }

    /// Yosys keeps every held register: none is merged into the shift
    /// register's next bit (same data input) or optimised away. The block
    /// registers its 8-bit input under its reset: 8 flip-flops; the
    /// harness adds 10 shift-register bits (9 inputs and the load enable),
    /// 9 held, 8 captured outputs, one folded group and `dout`.
    #[test]
    fn yosys_keeps_the_held_stage_apart_from_the_chain() {
        let block = "\
module top(clock,reset,a,y);
    input wire  clock;
    input wire  reset;
    input wire  [7:0] a;
    output reg  [7:0] y;
    always @(posedge clock) y <= reset ? 8'd0 : a;
endmodule
";
        let text = pin_harness(block, "top", "clock", &[]).unwrap();
        let stats =
            crate::check_synthesizable_on(crate::Device::Lfe5u85f, &text, "harness").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(stats.dffs, 8 + 10 + 9 + 8 + 1 + 1, "{stats:?}");
    }

    #[test]
    fn what_it_cannot_read_is_refused_with_its_line() {
        assert!(top_ports(BLOCK, "other").is_err());
        let bad = BLOCK.replace("input wire  [31:0] page$word;", "input wire  [31:4] page$word;");
        let err = top_ports(&bad, "top").unwrap_err().to_string();
        assert!(err.contains("line 6"), "{err}");
        assert!(pin_harness(BLOCK, "top", "clk", &[]).is_err(), "no such clock");
        assert!(pin_harness(BLOCK, "top", "clock", &[("digest", 1)]).is_err(), "an output is not tied");
        assert!(pin_harness(BLOCK, "top", "clock", &[("reset", 2)]).is_err(), "2 does not fit one bit");
    }

    #[test]
    fn a_tied_input_is_a_constant_and_leaves_the_shift_register() {
        let text = pin_harness(BLOCK, "top", "clock", &[("page$word", 0xABC)]).unwrap();
        assert!(text.contains(".\\page$word (32'd2748)"), "{text}");
        assert!(text.contains("reg [1:0] sr;"), "only `reset` and the load enable are shifted in: {text}");
        assert!(text.contains("reg [0:0] held;"), "{text}");
        assert!(text.contains(".\\reset (held[0:0])"), "{text}");
    }
}
