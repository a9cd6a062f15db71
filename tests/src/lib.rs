//! Ditto's system tests: the tests in `tests/` exercise several crates
//! together (the board top's emitted Verilog, driven through its pins by the
//! simulation bridge's UART peer). The `ditto` command's own end-to-end tests
//! sit beside its binary in `host-driver/tests`, where cargo builds it.
