//! End to end: the real binary in a pseudo-terminal runs `switchboard demo`, switches tabs, opens a
//! detail and quits, and leaves the terminal restored.
use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

/// Screen text plus every byte the program wrote, fed by a reader thread.
struct Screen {
    parser: vt100::Parser,
    raw: Vec<u8>,
}

/// Kills the child if the test fails half way, so no console outlives its test.
struct KillOnDrop(Box<dyn portable_pty::Child + Send + Sync>);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
        }
    }
}

fn wait_for(screen: &Arc<Mutex<Screen>>, what: &str, pred: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let text = screen
            .lock()
            .expect("screen lock")
            .parser
            .screen()
            .contents();
        if pred(&text) {
            return text;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {what}; screen:\n{text}"
        );
        std::thread::yield_now();
        std::thread::sleep(Duration::from_millis(20)); // polling interval, not synchronisation
    }
}

#[test]
fn demo_in_a_pty_switches_tabs_opens_detail_quits_and_restores_terminal() {
    let dirs = tempfile::tempdir().expect("tempdir");
    let pty = native_pty_system();
    let pair = pty
        .openpty(PtySize {
            rows: 40,
            cols: 120,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("openpty");
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_switchboard"));
    cmd.arg("demo");
    cmd.env("TERM", "xterm-256color");
    cmd.env("HOME", dirs.path());
    cmd.env("XDG_CONFIG_HOME", dirs.path().join("config"));
    cmd.env("XDG_DATA_HOME", dirs.path().join("data"));
    cmd.env("XDG_STATE_HOME", dirs.path().join("state"));
    let tmp = dirs.path().join("tmp");
    std::fs::create_dir_all(&tmp).expect("tmp dir");
    cmd.env("TMPDIR", &tmp);
    cmd.env_remove("SWITCHBOARD_API_KEY");
    cmd.env_remove("METORIAL_API_KEY");
    let mut child = KillOnDrop(
        pair.slave
            .spawn_command(cmd)
            .expect("spawn switchboard demo"),
    );
    drop(pair.slave);

    let screen = Arc::new(Mutex::new(Screen {
        parser: vt100::Parser::new(40, 120, 0),
        raw: Vec::new(),
    }));
    let mut reader = pair.master.try_clone_reader().expect("pty reader");
    let feed = Arc::clone(&screen);
    // Drain the PTY on a thread, or the child blocks on a full buffer.
    let drain = std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            let mut s = feed.lock().expect("screen lock");
            s.parser.process(&buf[..n]);
            s.raw.extend_from_slice(&buf[..n]);
        }
    });
    let mut keys = pair.master.take_writer().expect("pty writer");
    let mut press = |k: &[u8]| {
        keys.write_all(k).expect("write key");
        keys.flush().expect("flush key");
    };

    let first = wait_for(&screen, "the teams list with data", |t| {
        t.contains("Teams")
            && t.contains("Platform")
            && t.contains("page 1")
            && t.contains("profile demo")
    });
    assert!(
        first.contains("1 Teams") && first.contains("5 Notifications"),
        "every tab in the header:\n{first}"
    );

    press(b"3");
    wait_for(&screen, "the callbacks tab", |t| {
        t.contains("Callbacks ·") && t.contains("webhook_")
    });
    press(b"5");
    let notifications = wait_for(&screen, "the notifications tab", |t| {
        // Frames arrive in pieces: wait for the whole of it, detail preview included.
        t.contains("Notifications ·") && t.contains("Attempts (") && t.contains("q quit")
    });
    assert!(
        notifications.contains("✓ succeeded") || notifications.contains("✗ failed"),
        "statuses carry a symbol, not only a colour:\n{notifications}"
    );
    press(b"\r");
    wait_for(&screen, "the opened notification detail", |t| {
        t.contains("Notification cbn_") && t.contains("Esc back")
    });
    press(b"\x1b");
    // A key right after Esc would read as Alt+key: wait for the list to come back first.
    wait_for(&screen, "the list again", |t| t.contains("Enter to open"));
    press(b"q");

    let deadline = Instant::now() + Duration::from_secs(15);
    let status = loop {
        if let Some(s) = child.0.try_wait().expect("wait child") {
            break s;
        }
        if Instant::now() >= deadline {
            let text = screen
                .lock()
                .expect("screen lock")
                .parser
                .screen()
                .contents();
            let _ = child.0.kill();
            panic!("switchboard did not exit after q; screen:\n{text}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "exit status {status:?}");
    drop(pair.master);
    let _ = drain.join();

    let raw = screen.lock().expect("screen lock").raw.clone();
    let text = String::from_utf8_lossy(&raw);
    let entered = text
        .rfind("\x1b[?1049h")
        .expect("entered the alternate screen");
    let left = text
        .rfind("\x1b[?1049l")
        .expect("left the alternate screen");
    assert!(left > entered, "alternate screen left after it was entered");
    assert!(
        text[left..].contains("\x1b[?25h")
            || text[..left].rfind("\x1b[?25h") > text[..left].rfind("\x1b[?25l"),
        "cursor shown again"
    );
    let s = screen.lock().expect("screen lock");
    assert!(
        !s.parser.screen().alternate_screen(),
        "back on the main screen"
    );
    let left_behind: Vec<_> = std::fs::read_dir(&tmp)
        .expect("read tmp")
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(
        left_behind.is_empty(),
        "the demo's throwaway database was not removed: {left_behind:?}"
    );
}
