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
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let addr = format!("127.0.0.1:{port}");
    let child = Command::new(env!("CARGO_BIN_EXE_ditto"))
        .args(["serve", "--nbd", &addr, "--size", size, "--backend", "verilator", "--clients"])
        .arg(clients.to_string())
        .arg("--stats-json")
        .arg(stats)
        .arg("--store")
        .arg(store)
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    // Wait until it listens.
    for _ in 0..600 {
        if std::net::TcpStream::connect(&addr).is_ok() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    (Server(child), format!("nbd://{addr}"))
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
    let out = tool("fio")
        .args(["--name=verify", "--ioengine=nbd", &format!("--uri={url}"), "--rw=randwrite", "--bs=4k"])
        .args(["--size=2M", "--verify=md5", "--do_verify=1", "--verify_fatal=1", "--output-format=json"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    let json = &text[text.find('{').expect("fio's JSON")..];
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    let job = &v["jobs"][0];
    assert_eq!(job["error"], 0, "{job}");
    assert_eq!(job["write"]["io_kbytes"], 2048, "every block written: {job}");
    assert_eq!(job["read"]["io_kbytes"], 2048, "every block read back and verified: {job}");
}
