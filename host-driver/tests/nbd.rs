//! `ditto serve --nbd` end to end with `qemu-img` (Debian `qemu-utils`): a
//! disk image with repeated content is converted onto the device (the
//! cosimulated core), compared back byte for byte, and the dedup statistics
//! checked; then unaligned and out-of-range requests through `qemu-io`.
use std::collections::HashSet;
use std::process::{Child, Command, Stdio};

struct Server(Child);

impl Server {
    /// Waits (up to a minute) for the server to stop after its last client.
    fn wait(&mut self) {
        for _ in 0..1200 {
            if self.0.try_wait().unwrap().is_some() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        panic!("ditto serve did not stop after its last client");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A fresh folder, removed when the guard drops (pass or fail).
fn temp(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix(&format!("ditto-nbd-test-{name}-")).tempdir().unwrap()
}

fn tool(name: &str) -> Command {
    let found = Command::new("sh").args(["-c", &format!("command -v {name}")]).output().unwrap();
    assert!(found.status.success(), "{name} is missing: apt-get install qemu-utils (scripts/setup does it as root)");
    Command::new(name)
}

/// Starts `ditto serve` on a free port for `clients` clients.
fn serve(size: &str, clients: u32, stats: &std::path::Path, store: &std::path::Path) -> (Server, String) {
    let clients = clients.to_string();
    let stats = stats.to_str().unwrap();
    serve_store(store, &["--size", size, "--backend", "verilator", "--clients", &clients, "--stats-json", stats])
}

#[test]
fn qemu_img_writes_an_image_onto_ditto_and_reads_it_back() {
    let dir = temp("image");
    // 2 MiB: a 256 KiB random block six times, then zeros.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let block: Vec<u8> = (0..256 * 1024)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect();
    let mut image = block.repeat(6);
    image.resize(2 << 20, 0);
    let path = dir.path().join("image.raw");
    std::fs::write(&path, &image).unwrap();
    let distinct: HashSet<&[u8]> = image.chunks(4096).collect();

    let stats = dir.path().join("stats.json");
    // The probe connection of `serve` counts as a client: three in all.
    let (mut server, url) = serve("2M", 3, &stats, &dir.path().join("store"));
    let convert =
        tool("qemu-img").args(["convert", "-n", "-f", "raw", "-O", "raw"]).arg(&path).arg(&url).output().unwrap();
    assert!(convert.status.success(), "{}", String::from_utf8_lossy(&convert.stderr));
    let compare = tool("qemu-img").args(["compare", "-f", "raw", "-F", "raw"]).arg(&path).arg(&url).output().unwrap();
    assert!(
        compare.status.success(),
        "{}{}",
        String::from_utf8_lossy(&compare.stdout),
        String::from_utf8_lossy(&compare.stderr)
    );
    server.wait(); // the statistics file is complete once the server has stopped
    let s: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(s["live_pages"], distinct.len() as u64, "one stored copy per distinct page: {s}");
    assert_eq!(s["mapped_lpas"], 512);
    assert!(s["duplicate_writes"].as_u64().unwrap() >= 512 - distinct.len() as u64);
}

#[test]
fn an_unaligned_write_is_read_modify_write() {
    let dir = temp("unaligned");
    let stats = dir.path().join("stats.json");
    let (_server, url) = serve("64K", 2, &stats, &dir.path().join("store"));
    // An unaligned write across a page boundary, read back. (qemu refuses a
    // write past the end on its own side; the raw client below shows the
    // server's answer.)
    let io = tool("qemu-io")
        .args(["-f", "raw", "-c", "write -P 0xab 4000 200", "-c", "read -P 0xab 4000 200", "-c", "read -P 0 0 4000"])
        .args(["-c", "read -P 0 4200 1000"])
        .arg(&url)
        .output()
        .unwrap();
    let out = format!("{}{}", String::from_utf8_lossy(&io.stdout), String::from_utf8_lossy(&io.stderr));
    assert!(!out.contains("Pattern verification failed"), "{out}");
    assert!(out.contains("read 200/200 bytes"), "{out}");
    assert!(out.contains("read 1000/1000 bytes at offset 4200"), "the bytes past the write are still zero: {out}");
    assert!(io.status.success(), "{out}");
}

/// A raw NBD client, to see the server's own answers (qemu checks bounds on
/// its side too).
#[test]
fn requests_past_the_end_get_nbd_errors_and_the_server_keeps_serving() {
    use std::io::{Read, Write};
    let dir = temp("raw");
    let (_server, url) = serve("64K", 2, &dir.path().join("stats.json"), &dir.path().join("store"));
    let mut s = std::net::TcpStream::connect(url.trim_start_matches("nbd://")).unwrap();
    let mut hello = [0u8; 18];
    s.read_exact(&mut hello).unwrap();
    assert_eq!(&hello[..8], b"NBDMAGIC");
    s.write_all(&3u32.to_be_bytes()).unwrap(); // fixed newstyle, no zeroes
    let mut opt = Vec::new();
    opt.extend(0x4948_4156_454f_5054u64.to_be_bytes());
    opt.extend(1u32.to_be_bytes()); // EXPORT_NAME, empty
    opt.extend(0u32.to_be_bytes());
    s.write_all(&opt).unwrap();
    let mut export = [0u8; 10];
    s.read_exact(&mut export).unwrap();
    let size = u64::from_be_bytes(export[..8].try_into().unwrap());
    assert_eq!(size, 64 << 10);
    let mut request = |kind: u16, handle: u64, offset: u64, data: &[u8], read_len: u32| -> (u32, Vec<u8>) {
        let mut r = Vec::new();
        r.extend(0x2560_9513u32.to_be_bytes());
        r.extend(0u16.to_be_bytes());
        r.extend(kind.to_be_bytes());
        r.extend(handle.to_be_bytes());
        r.extend(offset.to_be_bytes());
        r.extend((if kind == 1 { data.len() as u32 } else { read_len }).to_be_bytes());
        r.extend(data);
        s.write_all(&r).unwrap();
        let mut reply = [0u8; 16];
        s.read_exact(&mut reply).unwrap();
        assert_eq!(u32::from_be_bytes(reply[..4].try_into().unwrap()), 0x6744_6698);
        assert_eq!(u64::from_be_bytes(reply[8..].try_into().unwrap()), handle, "the handle comes back");
        let error = u32::from_be_bytes(reply[4..8].try_into().unwrap());
        let mut body = vec![0; if kind == 0 && error == 0 { read_len as usize } else { 0 }];
        s.read_exact(&mut body).unwrap();
        (error, body)
    };
    assert_eq!(request(1, 1, 0, &[7u8; 5000], 0).0, 0);
    assert_eq!(request(0, 2, size, &[], 4096).0, 22, "a read past the end: EINVAL");
    assert_eq!(request(1, 3, size - 100, &[9u8; 4096], 0).0, 28, "a write past the end: ENOSPC");
    let (error, body) = request(0, 4, 0, &[], 6000);
    assert_eq!(error, 0);
    assert!(body[..5000].iter().all(|&b| b == 7) && body[5000..].iter().all(|&b| b == 0), "nothing was lost");
    assert_eq!(request(0, 5, size - 10, &[], 10), (0, vec![0; 10]), "the refused write changed nothing");
    s.write_all(&[0x25, 0x60, 0x95, 0x13, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        .unwrap();
}

/// A real client with verification: fio (Debian `fio`, its `nbd` engine)
/// writes every 4 KiB block of the served device at random with an MD5 in
/// each, then reads and checks them all.
#[test]
fn fio_verifies_every_block_it_writes_through_the_served_device() {
    let dir = temp("fio");
    let (_server, url) = serve("2M", 1_000, &dir.path().join("stats.json"), &dir.path().join("store"));
    let v = fio_verify(dir.path(), &url, 1);
    let job = &v["jobs"][0];
    assert_eq!(job["error"], 0, "{job}");
    assert_eq!(job["write"]["io_kbytes"], 2048, "every block written: {job}");
    assert_eq!(job["read"]["io_kbytes"], 2048, "every block read back and verified: {job}");
}

/// fio (nbd engine) writes every 4 KiB block of the 2 MiB device at `url`
/// at random with an MD5 in each, then reads and checks them all, `loops`
/// times; its JSON report. It runs in `dir`, where it leaves its verify
/// state file.
fn fio_verify(dir: &std::path::Path, url: &str, loops: u32) -> serde_json::Value {
    let out = tool("fio")
        .current_dir(dir)
        .args(["--name=verify", "--ioengine=nbd", &format!("--uri={url}"), "--rw=randwrite", "--bs=4k"])
        .args(["--size=2M", "--verify=md5", "--do_verify=1", "--verify_fatal=1", "--output-format=json"])
        .arg(format!("--loops={loops}"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    let json = &text[text.find('{').expect("fio's JSON")..];
    serde_json::from_str(json).unwrap()
}

/// Starts `ditto serve` on `store` on a free port with `args`, waiting
/// until it listens.
fn serve_store(store: &std::path::Path, args: &[&str]) -> (Server, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let addr = format!("127.0.0.1:{port}");
    let mut child = Command::new(env!("CARGO_BIN_EXE_ditto"))
        .args(["serve", "--nbd", &addr, "--store"])
        .arg(store)
        .args(args)
        // Its scratch folder beside the store, in the test's own folder: a
        // server killed with -9 cannot remove it.
        .env("TMPDIR", store.parent().unwrap())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    for _ in 0..1200 {
        if std::net::TcpStream::connect(&addr).is_ok() {
            return (Server(child), format!("nbd://{addr}"));
        }
        assert!(child.try_wait().unwrap().is_none(), "ditto serve ended before it listened");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("ditto serve did not listen");
}

/// A seeded image of `pages` pages: one page in four a copy of one of four
/// hot pages, the rest distinct.
fn image(seed: u64, pages: usize) -> Vec<u8> {
    let mut state = seed | 1;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let hot: Vec<Vec<u8>> = (0..4u64).map(|h| vec![(h * 37 + seed) as u8; 4096]).collect();
    let mut out = Vec::with_capacity(pages * 4096);
    for _ in 0..pages {
        if next() % 4 == 0 {
            out.extend(&hot[(next() % 4) as usize]);
        } else {
            out.extend((0..4096).map(|_| next() as u8));
        }
    }
    out
}

fn convert_onto(url: &str, image: &std::path::Path) -> std::process::ExitStatus {
    tool("qemu-img").args(["convert", "-n", "-f", "raw", "-O", "raw"]).arg(image).arg(url).status().unwrap()
}

fn sigterm(server: &mut Server) {
    // SAFETY: a signal to a child this test started.
    unsafe { libc::kill(server.0.id() as i32, libc::SIGTERM) };
    let status = server.0.wait().unwrap();
    assert!(status.success(), "ditto serve stops cleanly on SIGTERM: {status}");
}

/// Bytes of the store's journal now.
fn journal_bytes(store: &std::path::Path) -> u64 {
    std::fs::read_dir(store)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().to_string_lossy().starts_with("journal."))
        .map(|e| e.metadata().unwrap().len())
        .sum()
}

fn ditto(args: &[&str], store: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ditto")).args(args).arg("--store").arg(store).output().unwrap()
}

#[test]
fn a_store_keeps_its_disk_across_a_clean_restart_and_a_kill_9() {
    let dir = temp("persist");
    let store = dir.path().join("store");
    let (a, b) = (dir.path().join("a.raw"), dir.path().join("b.raw"));
    let (a_bytes, b_bytes) = (image(11, 1024), image(12, 1024));
    std::fs::write(&a, &a_bytes).unwrap();
    std::fs::write(&b, &b_bytes).unwrap();

    // Write A (qemu-img flushes at the end), stop cleanly, start again: the
    // disk is byte-identical.
    let (mut server, url) = serve_store(&store, &["--size", "4M", "--backend", "model"]);
    assert!(convert_onto(&url, &a).success());
    sigterm(&mut server);
    let (mut server, url) = serve_store(&store, &["--backend", "verilator"]);
    let st = tool("qemu-img").args(["compare", "-f", "raw", "-F", "raw"]).arg(&a).arg(&url).status().unwrap();
    assert!(st.success(), "after a clean restart the disk is A, byte for byte");

    // kill -9 in the middle of writing B over it (the cosimulated core is
    // slow enough to be caught mid-way: the kill comes once B's writes have
    // reached the journal, before qemu-img is done).
    let before = journal_bytes(&store);
    let mut writer = tool("qemu-img")
        .args(["convert", "-n", "-f", "raw", "-O", "raw"])
        .arg(&b)
        .arg(&url)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    while journal_bytes(&store) < before + 8_192 {
        assert!(writer.try_wait().unwrap().is_none(), "qemu-img finished before the kill");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    server.0.kill().unwrap();
    server.0.wait().unwrap();
    let _ = writer.wait();
    let locked = ditto(&["scrub"], &store);
    assert!(locked.status.success(), "the killed server's lock died with it");

    // A restart recovers (on the cosimulated core): every page is A's or
    // B's (A was flushed; B never was), nothing else.
    let (mut server, url) = serve_store(&store, &["--backend", "verilator"]);
    let back = dir.path().join("back.raw");
    let st = tool("qemu-img").args(["convert", "-f", "raw", "-O", "raw", &url]).arg(&back).status().unwrap();
    assert!(st.success());
    let back = std::fs::read(&back).unwrap();
    assert_eq!(back.len(), a_bytes.len());
    let mut still_a = 0;
    for (i, page) in back.chunks(4096).enumerate() {
        let (pa, pb) = (&a_bytes[i * 4096..][..4096], &b_bytes[i * 4096..][..4096]);
        if !(page == pa || page == pb) {
            let in_a = a_bytes.chunks(4096).position(|p| p == page);
            let in_b = b_bytes.chunks(4096).position(|p| p == page);
            let zeros = page.iter().all(|&x| x == 0);
            panic!(
                "page {i} after kill -9 is neither A's nor B's (A's page {in_a:?}, B's page {in_b:?}, zeros {zeros})"
            );
        }
        still_a += (page == pa) as usize;
    }
    println!("after kill -9: {still_a} of 1024 pages are still A's");
    sigterm(&mut server);

    // The scrub is clean.
    let scrub = ditto(&["scrub", "--json"], &store);
    assert!(scrub.status.success(), "scrub: {}", String::from_utf8_lossy(&scrub.stderr));
    let report: serde_json::Value = serde_json::from_slice(&scrub.stdout).unwrap();
    assert_eq!(report["bad_pages"].as_array().unwrap().len(), 0, "{report}");
    assert_eq!(report["mapped_lpas"], 1024);

    // A written again: every page still A's is shared with its recovered
    // copy, and afterwards the store holds exactly A's distinct pages.
    let stats = dir.path().join("stats.json");
    let (mut server, url) =
        // Two clients: the probe that waited for it to listen, and qemu-img.
        serve_store(&store, &["--backend", "model", "--clients", "2", "--stats-json", stats.to_str().unwrap()]);
    assert!(convert_onto(&url, &a).success());
    server.wait();
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert!(v["duplicate_writes"].as_u64().unwrap() >= still_a as u64, "{v}");
    let distinct: HashSet<&[u8]> = a_bytes.chunks(4096).collect();
    assert_eq!(v["live_pages"].as_u64().unwrap(), distinct.len() as u64, "{v}");
    assert_eq!(v["mapped_lpas"], 1024, "{v}");
}

#[test]
fn a_locked_store_refuses_a_second_server_and_a_corrupt_page_is_eio() {
    let dir = temp("lock");
    let store = dir.path().join("store");
    let a = dir.path().join("a.raw");
    std::fs::write(&a, image(21, 256)).unwrap();
    let (mut server, url) = serve_store(&store, &["--size", "1M", "--backend", "model"]);
    assert!(convert_onto(&url, &a).success());

    // A second server on the same store is refused and changes nothing.
    let second = Command::new(env!("CARGO_BIN_EXE_ditto"))
        .args(["serve", "--nbd", "127.0.0.1:0", "--backend", "model", "--store"])
        .arg(&store)
        .output()
        .unwrap();
    assert!(!second.status.success());
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(err.contains("in use by another process"), "{err}");
    let st = tool("qemu-img").args(["compare", "-f", "raw", "-F", "raw"]).arg(&a).arg(&url).status().unwrap();
    assert!(st.success(), "the first server still serves A");
    sigterm(&mut server);

    // Flip one byte of page 5's stored copy: reading it is EIO, the others
    // read, and the scrub names the LPA.
    let device = std::fs::read_dir(&store)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("device0."))
        .unwrap();
    let mut bytes = std::fs::read(&device).unwrap();
    let page5 = &std::fs::read(&a).unwrap()[5 * 4096..6 * 4096];
    let at = bytes.chunks(4096).position(|p| p == page5).expect("page 5 is stored");
    bytes[at * 4096 + 17] ^= 1;
    std::fs::write(&device, bytes).unwrap();
    let scrub = ditto(&["scrub", "--json"], &store);
    assert!(!scrub.status.success(), "a scrub that finds a bad page fails");
    let report: serde_json::Value = serde_json::from_slice(&scrub.stdout).unwrap();
    let bad = report["bad_pages"].as_array().unwrap();
    assert_eq!(bad.len(), 1, "{report}");
    assert!(bad[0]["lpas"].as_array().unwrap().contains(&serde_json::json!(5)), "{report}");

    let (mut server, url) = serve_store(&store, &["--backend", "model"]);
    let read =
        |offset: u32| tool("qemu-io").args(["-f", "raw", "-c", &format!("read {offset} 4096"), &url]).output().unwrap();
    let bad_read = read(5 * 4096);
    let text = String::from_utf8_lossy(&bad_read.stdout).to_string() + &String::from_utf8_lossy(&bad_read.stderr);
    assert!(text.contains("Input/output error"), "a corrupt page reads as EIO: {text}");
    let good = read(6 * 4096);
    let text = String::from_utf8_lossy(&good.stdout).to_string() + &String::from_utf8_lossy(&good.stderr);
    assert!(!text.contains("error"), "other pages read: {text}");
    sigterm(&mut server);
}

#[test]
fn an_idle_client_blocks_no_one_and_is_dropped_after_its_timeout() {
    let dir = temp("idle");
    let store = dir.path().join("store");
    let a = dir.path().join("a.raw");
    std::fs::write(&a, image(31, 64)).unwrap();
    let (mut server, url) = serve_store(&store, &["--size", "256K", "--backend", "model", "--idle-timeout", "2"]);
    let addr = url.trim_start_matches("nbd://");
    // A client that connects and then says nothing.
    let mut idle = std::net::TcpStream::connect(addr).unwrap();
    let started = std::time::Instant::now();
    assert!(convert_onto(&url, &a).success(), "a second client is served meanwhile");
    let st = tool("qemu-img").args(["compare", "-f", "raw", "-F", "raw"]).arg(&a).arg(&url).status().unwrap();
    assert!(st.success());
    // The idle one is disconnected after its timeout.
    idle.set_read_timeout(Some(std::time::Duration::from_secs(30))).unwrap();
    let mut buf = [0u8; 256];
    let mut total = 0;
    loop {
        use std::io::Read;
        match idle.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => total += n,
            Err(e) => panic!("the idle client was not disconnected: {e}"),
        }
    }
    assert_eq!(total, 18, "it got the server's greeting, then the end of the connection");
    assert!(started.elapsed() >= std::time::Duration::from_secs(2));
    sigterm(&mut server);
}

/// The NVM cache (golden model) behind a real client: fio overwrites the
/// device three times (so evictions, write-backs and GC all run) and
/// verifies every block each time; a restart on the store gives back the
/// same disk, and the scrub finds every page whole.
#[test]
fn fio_verifies_every_block_through_the_nvm_cache_and_a_restart_keeps_the_disk() {
    let dir = temp("nvm");
    let store = dir.path().join("store");
    let cache = ["--backend", "model", "--nvm-slots", "64", "--nvm-cooperative"];
    let stats = dir.path().join("stats.json");
    let first = ["--size", "2M", "--stats-json", stats.to_str().unwrap()];
    let (mut server, url) = serve_store(&store, &[&first[..], &cache[..]].concat());
    let v = fio_verify(dir.path(), &url, 3);
    assert_eq!(v["jobs"][0]["error"], 0, "{v}");
    assert_eq!(v["jobs"][0]["write"]["io_kbytes"], 3 * 2048, "every block written three times: {v}");
    let (before, after) = (dir.path().join("before.raw"), dir.path().join("after.raw"));
    let read_disk = |url: &str, to: &std::path::Path| {
        let st = tool("qemu-img").args(["convert", "-f", "raw", "-O", "raw", url]).arg(to).status().unwrap();
        assert!(st.success());
    };
    read_disk(&url, &before);
    sigterm(&mut server);
    let counters: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    // All but the last 64 of the 1,536 new copies were written back (less
    // any overwritten in the cache first).
    assert!(counters["pages_moved"].as_u64().unwrap() > 1_000, "few write-backs: {counters}");
    // The store remembers its cache: no --nvm-slots needed.
    let (mut server, url) = serve_store(&store, &["--backend", "model"]);
    read_disk(&url, &after);
    sigterm(&mut server);
    assert!(std::fs::read(&before).unwrap() == std::fs::read(&after).unwrap(), "the disk changed across a restart");
    let spec = std::fs::read_to_string(store.join("ditto-store.json")).unwrap();
    assert!(spec.contains("\"nvm_slots\": 64"), "{spec}");
    let scrub = ditto(&["scrub", "--json"], &store);
    assert!(scrub.status.success(), "scrub: {}", String::from_utf8_lossy(&scrub.stderr));
    let report: serde_json::Value = serde_json::from_slice(&scrub.stdout).unwrap();
    assert_eq!(report["bad_pages"].as_array().unwrap().len(), 0, "{report}");
    assert_eq!(report["mapped_lpas"], 512, "{report}");
}
