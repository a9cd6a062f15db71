//! The Alchitry Cu's whole-core board top, cosimulated through its UART pins
//! (a bit-level UART peer) and driven by the host's link transport: the same
//! seeded workload gives the golden model's results, with or without a
//! damaged link; damaged, truncated and stray frames get error frames and
//! lose nothing. The serial transport (`serial:PATH`, the `serialport`
//! crate) drives the same cosimulated top through a pseudo-terminal.
use ditto_host::driver::{BackingStore, Device, Written, PAGE};
use ditto_host::store::format::StoreSpec;
use ditto_host::transport::board::faults::{Damage, Faults, FaultyPipe};
use ditto_host::transport::board::{board_core_config, CosimUartPipe, LinkStats, LinkTransport, BOARD_MODEL};
use ditto_host::transport::{Checked, ModelTransport, Transport};
use ditto_hw::board::BoardSetup;
use ditto_hw::config::CU;
use ditto_hw::ftl::{Op, Stat};
use ditto_sim::testkit::{cosim, rng, seed};
use rand::Rng;

/// A store in a temporary folder, removed with the store.
fn store(_name: &str) -> BackingStore {
    let b = BoardSetup::COSIM;
    let setup = ditto_sim::ditto_core::CoreSetup {
        lpas: b.lpas,
        geometry: b.geometry,
        array_wide: b.array_wide,
        bloom: true,
        refcount_max: b.refcount_max,
        memory: ditto_sim::index::MemTiming::fixed(2),
        nvm: ditto_hw::ftl::nvm::NvmConfig::OFF,
    };
    BackingStore::temporary(&StoreSpec::of("cu", &setup)).unwrap()
}

fn page(content: u32) -> Box<[u8; PAGE]> {
    let mut p = Box::new([0u8; PAGE]);
    for (i, b) in p.iter_mut().enumerate() {
        *b = (content as usize * 13 + i / 128) as u8;
    }
    p[0..4].copy_from_slice(&content.to_be_bytes());
    p
}

#[derive(Clone, Copy, Debug)]
enum Content {
    Zeros,
    Page(u32),
    /// Written by fingerprint only (no data behind it).
    Fingerprint,
}

/// A seeded mix: full-page writes rich in duplicates, overwrites, trims and
/// reads, among bursts of fingerprint writes that force garbage collection.
/// Returns every outcome (as text), the counters and the index's counters.
fn workload<T: Transport>(
    dev: &mut Device<T>,
    seed: u64,
    full_pages: usize,
) -> (Vec<String>, [u32; 12], ditto_hw::index::model::IndexStats) {
    let mut r = rng(seed);
    let lpas = dev.lpas();
    let mut content = vec![Content::Zeros; lpas as usize];
    let mut log = Vec::new();
    // Rounds of full-page operations on the lower half of the LPAs and
    // fingerprint churn on the upper half: enough unique pages to fill the
    // flash twice over, so GC moves full pages among the churn.
    for round in 0..16 {
        for _ in 0..full_pages / 16 {
            let lpa = r.gen_range(0..lpas / 2);
            match r.gen_range(0..10) {
                0..=5 => {
                    let c = r.gen_range(0..24);
                    log.push(format!("{:?}", dev.write(lpa, &page(c)).unwrap()));
                    content[lpa as usize] = Content::Page(c);
                }
                6 => {
                    dev.trim(lpa).unwrap();
                    content[lpa as usize] = Content::Zeros;
                }
                _ => {
                    let want = match content[lpa as usize] {
                        Content::Page(c) => page(c),
                        _ => Box::new([0; PAGE]),
                    };
                    assert!(dev.read(lpa).unwrap() == want, "lpa {lpa} reads back what was written");
                }
            }
        }
        let ops: Vec<_> = (0..48)
            .map(|_| {
                let lpa = r.gen_range(lpas / 2..lpas);
                content[lpa as usize] = Content::Fingerprint;
                let mut fp = [0u8; 20];
                rng(r.gen_range(0..5_000u64)).fill(&mut fp[..]);
                (Op::WriteFp, lpa, fp)
            })
            .collect();
        for rsp in dev.batch(&ops).unwrap() {
            log.push(format!("round {round}: {:?} {} {}", rsp.status, rsp.value, rsp.flags));
        }
    }
    dev.flush().unwrap();
    for lpa in 0..lpas {
        match content[lpa as usize] {
            Content::Page(c) => assert!(dev.read(lpa).unwrap() == page(c), "lpa {lpa} reads back its last page"),
            Content::Zeros => assert!(dev.read(lpa).unwrap()[..] == [0; PAGE][..], "lpa {lpa} reads as zeros"),
            Content::Fingerprint => {}
        }
    }
    (log, dev.stats().unwrap(), dev.transport().index_stats().unwrap())
}

/// The link over `pipe`, every response checked against the golden model.
fn checked_link<P: ditto_host::transport::board::BytePipe>(pipe: P) -> Checked<LinkTransport<P>> {
    let link = LinkTransport::connect(pipe).unwrap();
    Checked::new(link, board_core_config(&CU, &BoardSetup::COSIM))
}

fn model_device(name: &str) -> Device<ModelTransport> {
    let config = board_core_config(&CU, &BoardSetup::COSIM);
    Device::new(ModelTransport::new(config), store(name), true).unwrap()
}

/// The workload over the cosimulated board (with `faults`), against the model.
fn compare_with_model(label: &str, faults: Faults, full_pages: usize) -> LinkStats {
    let stats = std::cell::Cell::new(LinkStats::default());
    cosim(label, BOARD_MODEL, |model| {
        let mut pipe = FaultyPipe::new(CosimUartPipe::attach(model).unwrap());
        pipe.set_faults(faults);
        let link = checked_link(pipe);
        let mut board = Device::new(link, store(label), true).unwrap();
        let (a, sa, ia) = workload(&mut board, faults.seed, full_pages);
        let (b, sb, ib) = workload(&mut model_device(label), faults.seed, full_pages);
        assert_eq!(a, b, "the same outcomes, command by command");
        assert_eq!(sa, sb, "the same counters");
        assert_eq!(ia, ib, "the same index counters");
        assert!(sa[Stat::DuplicateWrites as usize] > 0 && sa[Stat::Relocations as usize] > 0, "{sa:?}");
        stats.set(board.transport().inner().link_stats());
    });
    stats.get()
}

#[test]
fn a_seeded_workload_over_the_board_link_gives_the_models_results() {
    let seed = seed("board_link_clean");
    let stats = compare_with_model("board_link_clean", Faults { seed, ..Faults::default() }, 96);
    assert_eq!(stats.rejected_by_board + stats.bad_frames + stats.commands_resent, 0, "{stats:?}");
}

/// `--backend serial:PATH` end to end without a board: the host opens the
/// slave side of a pseudo-terminal with [`SerialPipe`] (termios, the baud
/// rate, its read timeouts), and a bridge moves the bytes between the
/// master side and the cosimulated top's UART pins.
#[test]
fn the_serial_transport_drives_the_board_through_a_pseudo_terminal() {
    use ditto_host::transport::board::{BytePipe, SerialPipe};
    use std::io::{Read, Write};
    let seed = seed("board_link_serial");
    cosim("board_link_serial", BOARD_MODEL, |model| {
        let (mut master, slave) = serialport::TTYPort::pair().expect("a pseudo-terminal pair");
        let path = serialport::SerialPort::name(&slave).expect("the slave's path");
        // The host opens the slave by its path, as it would /dev/ttyUSB1, at
        // the Cu's own rate (a pseudo-terminal takes any), before the pair's
        // own slave closes (the master hangs up when no slave is open).
        let baud = CU.clock_mhz * 1_000_000 / BoardSetup::CU.cycles_per_bit;
        let pipe = SerialPipe::open(path.as_ref(), baud).unwrap();
        assert_eq!(pipe.name(), format!("serial:{path}"));
        drop(slave);
        // The bridge never waits on the host: each turn steps the board
        // (until it sends a byte, or for its patience when it is silent).
        serialport::SerialPort::set_timeout(&mut master, std::time::Duration::ZERO).unwrap();
        let mut board = CosimUartPipe::attach(model).unwrap();
        let host = std::thread::spawn(move || {
            let link = checked_link(pipe);
            let mut dev = Device::new(link, store("serial"), true).unwrap();
            let outcome = workload(&mut dev, seed, 32);
            (outcome, dev.transport().inner().link_stats())
        });
        let (mut from_host, mut to_host) = ([0u8; 4096], Vec::new());
        while !host.is_finished() {
            match master.read(&mut from_host) {
                Ok(n) => board.send(&from_host[..n]).unwrap(),
                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
                // The host has closed its side (it finished, or failed:
                // `join` says which).
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => break,
                Err(e) => panic!("the pseudo-terminal's master side: {e}"),
            }
            to_host.clear();
            if board.recv(&mut to_host).unwrap() && master.write_all(&to_host).is_err() {
                break;
            }
        }
        let ((a, sa, ia), stats) = host.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        let (b, sb, ib) = workload(&mut model_device("serial"), seed, 32);
        assert_eq!(a, b, "the same outcomes, command by command");
        assert_eq!(sa, sb, "the same counters");
        assert_eq!(ia, ib, "the same index counters");
        assert!(sa[Stat::DuplicateWrites as usize] > 0 && sa[Stat::Relocations as usize] > 0, "{sa:?}");
        // Nothing is damaged on a pseudo-terminal. The cosimulated board is
        // far slower than a real one, so the host's read timeouts make it
        // ask again, and a command can cross a busy board: those are the
        // protocol's recoveries, and the outcomes above are unchanged.
        assert_eq!(stats.bad_frames, 0, "a clean link: {stats:?}");
    });
}

#[test]
fn a_damaged_link_loses_nothing_and_gives_the_models_results() {
    let seed = seed("board_link_faults");
    let faults = Faults { flip: 0.03, drop: 0.02, garbage: 0.03, truncate: 0.02, flip_to_host: 0.0003, seed };
    let stats = compare_with_model("board_link_faults", faults, 64);
    println!("{stats:?}");
    assert!(stats.rejected_by_board > 0 && stats.commands_resent > 0, "the board rejected frames: {stats:?}");
    assert!(stats.bad_frames > 0 && stats.repeated_requests > 0, "the host saw damage and repeats: {stats:?}");
}

/// One write through a link whose next frame to the board gets `damage`;
/// the board must reject it with an error frame, and the write (sent
/// again) must land as if nothing happened: the page's SHA-1 is the
/// lanes' (a second copy is a duplicate) and it reads back.
fn write_through(label: &str, damage: Damage) -> LinkStats {
    let stats = std::cell::Cell::new(LinkStats::default());
    cosim(label, BOARD_MODEL, |model| {
        let pipe = FaultyPipe::new(CosimUartPipe::attach(model).unwrap());
        let link = checked_link(pipe);
        let mut dev = Device::new(link, store(label), true).unwrap();
        assert!(matches!(dev.write(1, &page(5)).unwrap(), Written::Unique { .. }));
        dev.transport().inner().pipe().damage_next(damage.clone());
        assert!(matches!(dev.write(2, &page(6)).unwrap(), Written::Unique { .. }), "{damage:?}");
        assert!(matches!(dev.write(3, &page(6)).unwrap(), Written::Duplicate { .. }), "{damage:?}");
        assert!(dev.read(2).unwrap() == page(6) && dev.read(1).unwrap() == page(5));
        stats.set(dev.transport().inner().link_stats());
    });
    stats.get()
}

#[test]
fn a_corrupted_command_is_rejected_and_sent_again() {
    // A bit flipped in the middle of the page: the CRC fails, the board
    // answers E (checksum) and discards the page it had hashed.
    let s = write_through("board_link_flip", Damage::Flip { at: 2_000, bit: 3 });
    assert_eq!((s.rejected_by_board, s.commands_resent), (1, 1), "{s:?}");
}

#[test]
fn a_truncated_page_is_padded_discarded_and_sent_again() {
    // The frame stops half way through its page: the board's receive
    // timeout answers E (truncated) and completes the page with zeros.
    let s = write_through("board_link_truncate", Damage::Truncate { keep: 2_100 });
    assert_eq!((s.rejected_by_board, s.commands_resent), (1, 1), "{s:?}");
}

#[test]
fn a_lost_byte_is_detected() {
    let s = write_through("board_link_drop", Damage::Drop { at: 3_000 });
    assert!(s.rejected_by_board >= 1 && s.commands_resent >= 1, "{s:?}");
}

#[test]
fn garbage_between_frames_is_skipped() {
    // No SYNC in the garbage: the board skips it without a word.
    let s = write_through("board_link_garbage", Damage::Garbage(vec![0x00, 0xff, 0x13, 0x43, 0x52]));
    assert_eq!((s.rejected_by_board, s.commands_resent), (0, 0), "{s:?}");
    // A stray SYNC and a header that is no frame's: an E (header), and the
    // real frame behind it is lost and sent again.
    let s = write_through("board_link_bad_header", Damage::Garbage(vec![0xa5, 0x7a, 0x00, 0x00, 0x05]));
    assert!(s.rejected_by_board >= 1, "{s:?}");
}

#[test]
fn a_frame_cut_in_its_header_after_a_page_leaves_the_lane_alone() {
    // A receive timeout inside a header must not take the previous frame's
    // page for an abandoned one (it would discard the next page's digest).
    cosim("board_link_cut_header", BOARD_MODEL, |model| {
        let pipe = FaultyPipe::new(CosimUartPipe::attach(model).unwrap());
        let link = checked_link(pipe);
        let mut dev = Device::new(link, store("cut-header"), true).unwrap();
        // The WRITE's first memory answer (the frame after the WRITE) is cut
        // after its SYNC and kind.
        dev.transport().inner().pipe().damage_frame(1, Damage::Truncate { keep: 2 });
        assert!(matches!(dev.write(1, &page(5)).unwrap(), Written::Unique { .. }));
        assert!(matches!(dev.write(2, &page(6)).unwrap(), Written::Unique { .. }));
        assert!(matches!(dev.write(3, &page(5)).unwrap(), Written::Duplicate { .. }));
        assert_eq!(dev.transport().inner().link_stats().rejected_by_board, 1);
    });
}

#[test]
fn a_damaged_response_is_asked_for_again_and_the_command_not_run_twice() {
    cosim("board_link_lost_response", BOARD_MODEL, |model| {
        let pipe = FaultyPipe::new(CosimUartPipe::attach(model).unwrap());
        let link = checked_link(pipe);
        let mut dev = Device::new(link, store("lost-response"), true).unwrap();
        assert!(matches!(dev.write(1, &page(5)).unwrap(), Written::Unique { .. }));
        // A TRIM's response: the first byte the board sends back is its
        // SYNC; damaged, the host never sees the frame and asks again.
        dev.transport().inner().pipe().flip_from_board(0);
        dev.trim(1).unwrap();
        let s = dev.transport().inner().link_stats();
        assert!(s.again_requests >= 1, "{s:?}");
        // Had the TRIM run twice, the model check would have failed here.
        assert_eq!(dev.stats().unwrap()[Stat::MappedLpas as usize], 0);
        assert!(dev.read(1).unwrap()[..] == [0; PAGE][..]);
    });
}

#[test]
fn malformed_commands_get_an_error_status_and_the_board_keeps_serving() {
    use ditto_host::transport::board::BytePipe;
    use ditto_hw::board::protocol::{kind, Deframer, Frame};
    cosim("board_link_malformed", BOARD_MODEL, |model| {
        let mut pipe = CosimUartPipe::attach(model).unwrap();
        let mut rx = Deframer::new(false);
        let mut expect_response = |pipe: &mut CosimUartPipe<&mut ditto_sim::Model>, frame: Frame| {
            pipe.send(&frame.encode()).unwrap();
            loop {
                let mut bytes = Vec::new();
                assert!(pipe.recv(&mut bytes).unwrap(), "the board answers");
                for b in bytes {
                    if let Some(Ok(f)) = rx.push(b) {
                        if f.kind == kind::RESPONSE || f.kind == kind::ERROR {
                            return f;
                        }
                        // Power-on table initialisation requests: unanswered
                        // here, they are resent later.
                    }
                }
            }
        };
        // Opcode 9, and a WRITE without its page: ErrMalformed (10).
        let f = expect_response(&mut pipe, Frame::command(9, 40, 0, &[0; 20], None));
        assert_eq!((f.kind, f.tag, f.payload[0]), (kind::RESPONSE, 40, 10));
        let f = expect_response(&mut pipe, Frame::command(0, 41, 0, &[0; 20], None));
        assert_eq!((f.kind, f.tag, f.payload[0]), (kind::RESPONSE, 41, 10));
        // A frame of an unknown kind gets E (header).
        let f = expect_response(&mut pipe, Frame::new(b'Z', 42, vec![1, 2]));
        assert_eq!((f.kind, f.tag, f.payload.as_slice()), (kind::ERROR, 42, &[2, b'Z'][..]));
        // The index's counters by STATS selector 12..17: served by the top.
        let f = expect_response(&mut pipe, Frame::command(Op::Stats as u8, 43, 12, &[0; 20], None));
        assert_eq!((f.kind, f.tag, f.payload[0]), (kind::RESPONSE, 43, 5));
    });
}
