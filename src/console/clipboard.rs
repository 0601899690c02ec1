//! Copying. OSC 52 asks the terminal to set the clipboard, which works over SSH and inside tmux
//! (with `set-clipboard on`) but is silently ignored by some terminals (VTE-based ones among
//! them), so on a local desktop session the system clipboard is set as well, as the fallback.
//! Both ends are injectable for tests.
use std::io::Write;
use std::sync::{Arc, Mutex};

use base64::Engine;

/// Bytes that ask the terminal to set the clipboard to `text`.
pub(crate) fn osc52(text: &str) -> Vec<u8> {
    let b64 = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
    format!("\x1b]52;c;{b64}\x07").into_bytes()
}

/// Which ways of copying are used (`[console] clipboard`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum ClipboardMode {
    /// OSC 52, plus the system clipboard when this is a local desktop session.
    #[default]
    Auto,
    /// OSC 52 only.
    Osc52,
    /// The system clipboard only (for terminals that show OSC 52 as garbage).
    System,
}

impl ClipboardMode {
    /// The mode named in the config, or why the name is wrong.
    pub(crate) fn parse(name: &str) -> Result<Self, String> {
        match name {
            "auto" => Ok(Self::Auto),
            "osc52" => Ok(Self::Osc52),
            "system" => Ok(Self::System),
            other => Err(format!(
                "[console] clipboard {other:?} must be \"auto\", \"osc52\" or \"system\"; auto in use"
            )),
        }
    }
}

/// Whether the environment describes a local graphical session, where a system clipboard
/// exists and is the user's (over SSH it would be the remote machine's, or none). On Linux that
/// takes an X display: Wayland sessions reach the clipboard through XWayland's `DISPLAY`.
pub(crate) fn local_desktop(var: impl Fn(&str) -> Option<String>) -> bool {
    let set = |name: &str| var(name).is_some_and(|v| !v.is_empty());
    let remote = set("SSH_CONNECTION") || set("SSH_TTY");
    let display = set("DISPLAY") || cfg!(any(target_os = "macos", target_os = "windows"));
    display && !remote
}

/// A system clipboard (the desktop's; tests use a recording one).
pub(crate) trait SystemClipboard: Send {
    /// Replaces the clipboard's text.
    fn set_text(&mut self, text: &str) -> Result<(), String>;
}

/// The desktop's clipboard through arboard, opened on first use and kept open: on X11 the
/// owner must stay alive for the text to stay pasteable (it is handed to a clipboard manager
/// when the console exits).
#[derive(Default)]
struct Arboard(Option<arboard::Clipboard>);

impl SystemClipboard for Arboard {
    fn set_text(&mut self, text: &str) -> Result<(), String> {
        if self.0.is_none() {
            self.0 = Some(arboard::Clipboard::new().map_err(|e| e.to_string())?);
        }
        match self.0.as_mut() {
            Some(c) => c.set_text(text).map_err(|e| e.to_string()),
            None => Err("no system clipboard".into()),
        }
    }
}

type Shared<T> = Arc<Mutex<T>>;

/// Where copies go: OSC 52 to the terminal, the system clipboard, or both.
#[derive(Clone)]
pub(crate) struct Clipboard {
    terminal: Option<Shared<dyn Write + Send>>,
    system: Option<Shared<dyn SystemClipboard>>,
}

impl std::fmt::Debug for Clipboard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Clipboard")
            .field("osc52", &self.terminal.is_some())
            .field("system", &self.system.is_some())
            .finish()
    }
}

impl Default for Clipboard {
    /// OSC 52 on standard output (which the console draws on) only.
    fn default() -> Self {
        Self::to_writer(std::io::stdout())
    }
}

impl Clipboard {
    /// The clipboard for `mode` in this process's environment.
    pub(crate) fn for_mode(mode: ClipboardMode) -> Self {
        let local = local_desktop(|k| std::env::var(k).ok());
        match mode {
            ClipboardMode::Auto if local => Self::default().with_system(Arboard::default()),
            ClipboardMode::Auto | ClipboardMode::Osc52 => Self::default(),
            ClipboardMode::System => Self {
                terminal: None,
                system: None,
            }
            .with_system(Arboard::default()),
        }
    }

    /// A clipboard writing OSC 52 sequences to `w` only.
    pub(crate) fn to_writer(w: impl Write + Send + 'static) -> Self {
        Self {
            terminal: Some(Arc::new(Mutex::new(w))),
            system: None,
        }
    }

    /// A clipboard writing OSC 52 into a shared buffer only (tests read what was sent).
    #[cfg(test)]
    pub(crate) fn to_buffer(buf: Arc<Mutex<Vec<u8>>>) -> Self {
        Self::to_writer(SharedBuf(buf))
    }

    /// This clipboard with `system` as its system clipboard too.
    pub(crate) fn with_system(mut self, system: impl SystemClipboard + 'static) -> Self {
        self.system = Some(Arc::new(Mutex::new(system)));
        self
    }

    /// Sends `text` every configured way; `Ok` names the ways that took it (and any that
    /// failed, since a terminal's silence says nothing of OSC 52), `Err` says why none did.
    pub(crate) fn copy(&self, text: &str) -> Result<String, String> {
        // The one entry point: whatever a caller built, nothing that could act when pasted
        // (an escape ending a bracketed paste, a bidi override) reaches a clipboard.
        if !crate::text::sanitize::is_inert(text, true) {
            return Err("refused: the text holds control or invisible characters".into());
        }
        let mut took = Vec::new();
        let mut failed = Vec::new();
        if let Some(out) = &self.terminal {
            match write_osc52(out, text) {
                Ok(()) => took.push("OSC 52"),
                Err(e) => failed.push(format!("terminal: {e}")),
            }
        }
        if let Some(system) = &self.system {
            let result = system
                .lock()
                .map_err(|_| "system clipboard poisoned".to_string())
                .and_then(|mut c| c.set_text(text));
            match result {
                Ok(()) => took.push("system clipboard"),
                Err(e) => failed.push(format!("system clipboard: {e}")),
            }
        }
        match (took.is_empty(), failed.is_empty()) {
            (true, true) => Err("no clipboard configured".into()),
            (true, false) => Err(failed.join("; ")),
            (false, true) => Ok(took.join(" + ")),
            (false, false) => Ok(format!(
                "{}; failed: {}",
                took.join(" + "),
                failed.join("; ")
            )),
        }
    }
}

fn write_osc52(out: &Shared<dyn Write + Send>, text: &str) -> std::io::Result<()> {
    let mut out = out
        .lock()
        .map_err(|_| std::io::Error::other("clipboard writer poisoned"))?;
    out.write_all(&osc52(text))?;
    out.flush()
}

/// A `Write` into a shared byte buffer.
#[cfg(test)]
struct SharedBuf(Arc<Mutex<Vec<u8>>>);

#[cfg(test)]
impl Write for SharedBuf {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| std::io::Error::other("buffer poisoned"))?
            .extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osc52_is_base64_between_the_markers() {
        assert_eq!(osc52("hi"), b"\x1b]52;c;aGk=\x07".to_vec());
    }

    #[test]
    fn a_local_display_without_ssh_is_a_desktop() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert!(local_desktop(env(&[("DISPLAY", ":0")])));
        assert!(local_desktop(env(&[
            ("DISPLAY", ":0"),
            ("WAYLAND_DISPLAY", "wayland-0")
        ])));
        assert!(!local_desktop(env(&[
            ("DISPLAY", ":0"),
            ("SSH_CONNECTION", "10.0.0.1 5 10.0.0.2 22")
        ])));
        assert!(!local_desktop(env(&[("DISPLAY", "")])) || cfg!(target_os = "macos"));
    }

    #[test]
    fn modes_parse_by_name() {
        assert_eq!(ClipboardMode::parse("osc52"), Ok(ClipboardMode::Osc52));
        assert_eq!(ClipboardMode::parse("system"), Ok(ClipboardMode::System));
        assert!(ClipboardMode::parse("xclip").unwrap_err().contains("auto"));
    }
}
