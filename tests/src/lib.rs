//! Ditto's system tests: the tests in `tests/` exercise several crates
//! together (the whole-core board top's emitted Verilog, driven through its
//! pins by the host's board link, with the link damaged on purpose). The `ditto` command's own end-to-end tests
//! sit beside its binary in `host-driver/tests`, where cargo builds it.
