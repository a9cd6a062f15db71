//! Writes Verilog of a configuration to stdout:
//! `cargo run -p ditto-hw --example emit -- cu [hasher|board]`.
fn main() {
    let name = std::env::args().nth(1).unwrap_or_else(|| "cu".into());
    let what = std::env::args().nth(2).unwrap_or_else(|| "hasher".into());
    let cfg = ditto_hw::by_name(&name).unwrap_or_else(|e| panic!("{e}"));
    match what.as_str() {
        "board" => print!("{}", ditto_hw::config::board_verilog(&cfg)),
        _ => print!("{}", ditto_hw::config::hasher_verilog(&cfg)),
    }
}
