fn main() {
    let v = ditto_hw::verilog::top_verilog(ditto_hw::ftl::controller::FtlController::default());
    std::fs::write("/tmp/ftlsyn/ftl.v", v).unwrap();
}
