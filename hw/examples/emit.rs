//! Writes the hasher Verilog of a configuration to stdout: `cargo run -p ditto-hw --example emit -- cu`.
fn main() {
    let name = std::env::args().nth(1).unwrap_or_else(|| "cu".into());
    let cfg = ditto_hw::by_name(&name).unwrap_or_else(|e| panic!("{e}"));
    print!("{}", ditto_hw::config::hasher_verilog(&cfg));
}
