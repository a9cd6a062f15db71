//! One scratch folder per `ditto` process, so that nothing is left behind
//! however the process ends.
//!
//! [`Scratch::install`] makes a `ditto-*` folder under the system's
//! temporary directory and points `TMPDIR` at it. From then on every
//! temporary file and folder of the process (temporary stores, Verilator
//! builds, Yosys work folders, mutants) and of the tools it starts
//! (Verilator, the C++ compiler, Yosys, nextpnr) is made inside it. On a
//! normal return the guard removes it; a signal handler that ends the
//! process without running destructors calls [`abandon`], which stops the
//! tools still running and removes the folder.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The installed scratch folder, for [`abandon`].
static ROOT: OnceLock<PathBuf> = OnceLock::new();

/// The process's scratch folder: removed when dropped.
pub struct Scratch {
    _dir: tempfile::TempDir,
}

impl Scratch {
    /// Makes the scratch folder and sends every later temporary file of
    /// this process and its children into it. Call it first in `main`,
    /// before any thread starts (it sets an environment variable).
    pub fn install() -> std::io::Result<Scratch> {
        let dir = tempfile::Builder::new().prefix("ditto-").tempdir()?;
        std::env::set_var("TMPDIR", dir.path());
        let _ = ROOT.set(dir.path().to_path_buf());
        Ok(Scratch { _dir: dir })
    }
}

/// For a signal handler about to end the process: kills every process this
/// one started (and theirs), then removes the scratch folder. Tools are
/// killed first so that none writes into the folder after it is gone.
pub fn abandon() {
    let me = std::process::id();
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let running = descendants(me);
        if running.is_empty() || Instant::now() >= deadline {
            break;
        }
        for pid in running {
            // SAFETY: a signal to a process whose parent chain leads here.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        }
        // Killed children stay as zombies until this process exits; they
        // no longer count as running (see `descendants`).
        std::thread::sleep(Duration::from_millis(20));
    }
    if let Some(root) = ROOT.get() {
        let _ = std::fs::remove_dir_all(root);
    }
}

/// Whether `pid` is a live process (neither gone nor a zombie), by `/proc`.
pub fn is_running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| parse_stat(&stat))
        .is_some_and(|(state, _)| state != 'Z')
}

/// The live (not zombie) processes below `root` in the process tree, read
/// from `/proc`; empty where there is no `/proc`.
pub fn descendants(root: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    let table: Vec<(u32, u32, bool)> = entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let (state, parent) = parse_stat(&stat)?;
            Some((pid, parent, state == 'Z'))
        })
        .collect();
    let mut below = vec![root];
    let mut found = Vec::new();
    while let Some(parent) = below.pop() {
        for &(pid, ppid, zombie) in &table {
            if ppid == parent {
                below.push(pid);
                if !zombie {
                    found.push(pid);
                }
            }
        }
    }
    found
}

/// The state and parent PID from a `/proc/PID/stat` line, whose second
/// field (the command, in parentheses) may itself hold spaces and
/// parentheses: the fields after it start after its last `)`.
fn parse_stat(stat: &str) -> Option<(char, u32)> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let parent = fields.next()?.parse().ok()?;
    Some((state, parent))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_is_read_after_the_commands_last_parenthesis() {
        assert_eq!(parse_stat("42 (yosys) S 7 42 42 0"), Some(('S', 7)));
        assert_eq!(parse_stat("43 (a) b (c)) Z 9 1 1"), Some(('Z', 9)));
        assert_eq!(parse_stat("44 (truncated"), None);
        assert_eq!(parse_stat("45 (x) R notanumber"), None);
    }

    #[test]
    fn a_started_child_is_a_descendant_until_it_is_reaped() {
        let mut child = std::process::Command::new("sleep").arg("30").spawn().unwrap();
        let pid = child.id();
        assert!(descendants(std::process::id()).contains(&pid));
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(!descendants(std::process::id()).contains(&pid));
        assert!(!is_running(pid));
        assert!(is_running(std::process::id()));
    }
}
