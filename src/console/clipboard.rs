//! Copying through OSC 52: the terminal puts the text on the system clipboard, which works over
//! SSH and inside tmux (with `set-clipboard on`). The writer is injectable for tests.
use std::io::Write;
use std::sync::{Arc, Mutex};

use base64::Engine;

/// Bytes that ask the terminal to set the clipboard to `text`.
pub fn osc52(text: &str) -> Vec<u8> {
    let b64 = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
    format!("\x1b]52;c;{b64}\x07").into_bytes()
}

/// Where OSC 52 sequences are written: the terminal, or a test's buffer.
#[derive(Clone)]
pub struct Clipboard {
    out: Arc<Mutex<dyn Write + Send>>,
}

impl std::fmt::Debug for Clipboard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Clipboard")
    }
}

impl Default for Clipboard {
    /// The terminal (standard output, which the console draws on).
    fn default() -> Self {
        Self::to_writer(std::io::stdout())
    }
}

impl Clipboard {
    /// A clipboard writing its sequences to `w`.
    pub fn to_writer(w: impl Write + Send + 'static) -> Self {
        Self {
            out: Arc::new(Mutex::new(w)),
        }
    }

    /// A clipboard writing into a shared buffer (tests read what was sent).
    pub fn to_buffer(buf: Arc<Mutex<Vec<u8>>>) -> Self {
        Self::to_writer(SharedBuf(buf))
    }

    /// Sends `text` to the clipboard.
    pub fn copy(&self, text: &str) -> std::io::Result<()> {
        let mut out = self
            .out
            .lock()
            .map_err(|_| std::io::Error::other("clipboard writer poisoned"))?;
        out.write_all(&osc52(text))?;
        out.flush()
    }
}

/// A `Write` into a shared byte buffer.
struct SharedBuf(Arc<Mutex<Vec<u8>>>);

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
}
