//! What `build.rs` and [`crate::built`] share to turn a Verilated model into
//! the C ABI the bridge calls: the top module's port list and the shim's
//! source, generated from `csrc/model_shim.cpp.in`. `build.rs` includes this
//! file as a module of its own, so it uses nothing of the crate.
use std::fmt::Write as _;

/// The shim's template: `@MODEL@` is the Verilator prefix, `@FN@` the
/// functions' prefix, `@SET_CASES@`/`@GET_CASES@` one case per port.
pub const SHIM_TEMPLATE: &str = include_str!("../csrc/model_shim.cpp.in");

/// The shim's functions, in the order of [`crate::model`]'s table.
pub const SHIM_FUNCTIONS: [&str; 9] =
    ["new", "free", "set", "get", "eval", "tick", "trace_open", "trace_dumping", "trace_close"];

/// Verilator's options for every model, with the lint waivers' reasons:
/// `-Wno-WIDTH`: rust-hdl writes every literal as 32 bits wide, whatever the
/// context; `-Wno-UNOPTFLAT`: rust-hdl emits one `always @(*)` per module,
/// which Verilator reports as a flattening opportunity, not a loop (loops are
/// checked by Yosys). Without `--trace`: a model Verilated with it runs
/// slower even while it records nothing, so only the models that record a
/// waveform add [`TRACE_ARG`] (and compile with `VM_TRACE=1`).
pub const VERILATOR_ARGS: [&str; 10] =
    ["--cc", "-O3", "--x-assign", "fast", "--x-initial", "fast", "-Wno-WIDTH", "-Wno-UNOPTFLAT", "--top-module", "top"];

/// What a model that records waveforms adds to [`VERILATOR_ARGS`].
pub const TRACE_ARG: &str = "--trace";

/// One port of a model's top module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port {
    pub name: String,
    pub width: u32,
    pub input: bool,
}

/// Port list of rust-hdl's `module top`: its `input wire`/`output reg`
/// lines, or `None` when the text has no such module.
pub fn parse_ports(verilog: &str) -> Option<Vec<Port>> {
    let start = verilog.find("module top(")?;
    let body = &verilog[start..];
    let end = body.find("endmodule")?;
    let mut ports = Vec::new();
    for line in body[..end].lines() {
        let line = line.trim();
        let input = line.starts_with("input wire");
        if !(input || line.starts_with("output reg") || line.starts_with("output wire")) {
            continue;
        }
        let decl = line.trim_end_matches(';');
        let name = decl.split_whitespace().last()?.to_string();
        let width = match (decl.find('['), decl.find(':')) {
            (Some(open), Some(colon)) => decl[open + 1..colon].trim().parse::<u32>().ok()? + 1,
            _ => 1,
        };
        ports.push(Port { name, width, input });
    }
    (!ports.is_empty()).then_some(ports)
}

/// The C++ member Verilator gives a port: a `$` (rust-hdl's separator of
/// an interface and its field, `cmd$valid`) is spelt `__024`, its code.
pub fn cpp_member(port: &str) -> String {
    port.replace('$', "__024")
}

/// The shim's C++ source for the Verilated class `prefix`, its functions
/// named `{func}_new`, `{func}_set`, ...
pub fn shim_source(prefix: &str, func: &str, ports: &[Port]) -> String {
    let mut set_cases = String::new();
    let mut get_cases = String::new();
    for (i, p) in ports.iter().enumerate() {
        let member = cpp_member(&p.name);
        if p.input {
            writeln!(set_cases, "        case {i}: put(m->{member}, words, {}); break;", p.width).unwrap();
        }
        writeln!(get_cases, "        case {i}: take(m->{member}, words); break;").unwrap();
    }
    SHIM_TEMPLATE
        .replace("@MODEL@", prefix)
        .replace("@FN@", func)
        .replace("@SET_CASES@", &set_cases)
        .replace("@GET_CASES@", &get_cases)
}
