//! Test builds only: running one test of this binary again in a child process, under a time
//! limit, for tests that abort the process, switch on process-wide state (a loom broken
//! variant, a fault-injection switch) or could hang.

use std::io::Read;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Runs the test `test` (its path below the crate root, as `cargo test` names it) alone in a
/// child process (this test binary, `--exact`) with the environment variable `var` set to
/// `value`. Past `limit` the child is killed and the calling test fails, so a child that never
/// ends cannot hang CI. Returns its exit status and its stdout followed by its stderr.
pub(crate) fn run_test_in_child(
    test: &str,
    (var, value): (&str, &str),
    limit: Duration,
) -> (ExitStatus, String) {
    let exe = std::env::current_exe().expect("the test binary's path");
    let mut child = Command::new(exe)
        .args([test, "--exact", "--test-threads=1"])
        .args(["--nocapture", "--color=never"])
        .env(var, value)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the test in a child process");
    // Drained on their own threads, so a chatty child cannot block on a full pipe.
    fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<String> {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_string(&mut text);
            }
            text
        })
    }
    let (out, err) = (drain(child.stdout.take()), drain(child.stderr.take()));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the child process") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`{test}` ({var}={value:?}) did not end in {limit:?} in its child process");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let text = out.join().expect("stdout reader") + &err.join().expect("stderr reader");
    (status, text)
}
