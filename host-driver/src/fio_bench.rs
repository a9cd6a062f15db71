//! `ditto bench fio`: a real NBD client's 4 KiB random IOPS against `ditto
//! serve`, for each backend. fio (Debian `fio`, its `nbd` engine) runs a
//! timed random-write job and then a random-read job over the written
//! device, one request at a time (`iodepth=1`: the server takes one request
//! at a time); the server is this `ditto` binary, started on a free
//! loopback port with a temporary store, and stopped after.
use crate::HostError;
use serde::Serialize;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// fio's figures for one backend.
#[derive(Clone, Debug, Serialize)]
pub struct FioBench {
    pub backend: String,
    pub config: String,
    pub device_bytes: u64,
    pub seconds: u32,
    pub randwrite_iops: f64,
    pub randread_iops: f64,
    /// Mean completion latency of each job, in microseconds.
    pub randwrite_lat_us: f64,
    pub randread_lat_us: f64,
}

/// The server, killed when dropped (however the bench ends).
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn fio_job(url: &str, rw: &'static str, size: u64, seconds: u32) -> Result<(f64, f64), HostError> {
    let out = Command::new("fio")
        .args(["--name=bench", "--ioengine=nbd", &format!("--uri={url}"), &format!("--rw={rw}"), "--bs=4k"])
        .args([&format!("--size={size}"), "--time_based", &format!("--runtime={seconds}"), "--iodepth=1"])
        .args(["--randrepeat=1", "--output-format=json"])
        .output()
        .map_err(|source| HostError::Tool { tool: "fio".into(), hint: ": apt-get install fio", source })?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(HostError::FioFailed {
            job: rw,
            output: format!("{}{}", text, String::from_utf8_lossy(&out.stderr)),
        });
    }
    let json = text.find('{').map(|at| &text[at..]).unwrap_or("");
    let v: serde_json::Value = serde_json::from_str(json).map_err(|source| HostError::FioJson { job: rw, source })?;
    let side = if rw.contains("write") { "write" } else { "read" };
    let job = &v["jobs"][0][side];
    let iops = job["iops"].as_f64().unwrap_or(0.0);
    let lat_ns = job["clat_ns"]["mean"].as_f64().unwrap_or(0.0);
    Ok((iops, lat_ns / 1e3))
}

/// Runs fio against `ditto serve --backend backend` (this binary, `ditto`)
/// on a device of `size` bytes, `seconds` per job.
pub fn bench_fio(ditto: &Path, backend: &str, config: &str, size: u64, seconds: u32) -> Result<FioBench, HostError> {
    let store = tempfile::Builder::new()
        .prefix("ditto-bench-fio-")
        .tempdir()
        .map_err(|source| HostError::Write { path: std::env::temp_dir(), source })?;
    let port =
        std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map_err(HostError::NoPort)?.port();
    let addr = format!("127.0.0.1:{port}");
    let child = Command::new(ditto)
        .args(["serve", "--nbd", &addr, "--size", &size.to_string(), "--backend", backend, "--config", config])
        .arg("--store")
        .arg(store.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|source| HostError::Tool { tool: ditto.display().to_string(), hint: "", source })?;
    let _server = Server(child);
    let listening = (0..1200).any(|_| {
        let up = std::net::TcpStream::connect(&addr).is_ok();
        if !up {
            std::thread::sleep(Duration::from_millis(50));
        }
        up
    });
    if !listening {
        return Err(HostError::NotListening(addr));
    }
    let url = format!("nbd://{addr}");
    let (randwrite_iops, randwrite_lat_us) = fio_job(&url, "randwrite", size, seconds)?;
    let (randread_iops, randread_lat_us) = fio_job(&url, "randread", size, seconds)?;
    Ok(FioBench {
        backend: backend.into(),
        config: config.into(),
        device_bytes: size,
        seconds,
        randwrite_iops,
        randread_iops,
        randwrite_lat_us,
        randread_lat_us,
    })
}
