//! Verilog emission: every top goes through here, so all share one entry point.
use rust_hdl::prelude::*;

/// Connects `block` as a top-level design and returns its Verilog (module `top`).
pub fn top_verilog<B: Block>(mut block: B) -> String {
    block.connect_all();
    generate_verilog(&block)
}
