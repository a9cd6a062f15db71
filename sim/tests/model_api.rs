//! The `Model` API: the waveform a failing cosimulation leaves behind, and port safety.
use ditto_sim::{testkit, waveform_dir, Model};

#[test]
fn a_failing_cosim_test_writes_a_waveform_of_its_last_cycles_and_names_it() {
    let label = "deliberate_failure_waveform_window";
    let path = waveform_dir().join(format!("{label}.vcd"));
    let _ = std::fs::remove_file(&path);
    let failure_cycle = testkit::WAVEFORM_WINDOW + 3_000;
    let result = std::panic::catch_unwind(|| {
        testkit::cosim(label, "sha1_engine", |m: &mut Model| {
            let reset = m.input("reset").unwrap();
            m.set(reset, 1);
            while m.cycles() < failure_cycle {
                m.tick();
                m.set(reset, 0);
            }
            panic!("deliberate failure at cycle {}", m.cycles());
        })
    });
    let message = *result.expect_err("the body panics").downcast::<String>().unwrap();
    assert_eq!(message, format!("deliberate failure at cycle {failure_cycle}"), "the original message survives");
    let vcd = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(vcd.contains("$enddefinitions"));
    // Ten time units per cycle: the window starts at the right cycle and ends at the failure.
    let first = 10 * (failure_cycle - testkit::WAVEFORM_WINDOW);
    assert!(vcd.contains(&format!("\n#{first}\n")), "window starts at #{first}");
    assert!(!vcd.contains(&format!("\n#{}\n", first - 10)), "nothing before the window");
    assert!(vcd.contains(&format!("\n#{}\n", 10 * (failure_cycle - 1))), "window reaches the failure");
    std::fs::remove_file(&path).unwrap();
}

#[test]
#[should_panic(expected = "port digest is wider than 64 bits: use get_words")]
fn reading_a_wide_port_as_u64_is_refused_not_overrun() {
    let mut m = Model::new("sha1_engine").unwrap();
    let digest = m.port("digest").unwrap();
    let _ = m.get(digest);
}

#[test]
fn compiled_in_models_do_not_trace_and_their_traced_twins_do() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("plain.vcd");
    let mut plain = Model::new("sha1_engine").unwrap();
    assert!(!plain.can_trace(), "compiled in without --trace, for speed");
    let err = plain.start_waveform(&path).unwrap_err().to_string();
    assert!(err.contains("built without tracing"), "{err}");
    assert!(!path.exists());

    let mut twin = Model::traced("sha1_engine").unwrap();
    assert!(twin.can_trace());
    let shape = |m: &Model| m.ports().iter().map(|p| (p.name, p.width, p.input)).collect::<Vec<_>>();
    assert_eq!(shape(&twin), shape(&plain), "the twin is built from the same Verilog");
    twin.start_waveform(&path).unwrap();
    for _ in 0..10 {
        twin.tick();
    }
    assert_eq!(twin.finish_waveform().as_deref(), Some(path.as_path()));
    assert!(std::fs::read_to_string(&path).unwrap().contains("$enddefinitions"));
    // The second twin comes from the same build.
    assert!(Model::traced("sha1_engine").unwrap().can_trace());
}
