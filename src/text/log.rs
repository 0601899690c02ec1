//! Log lines through the sanitizer: a `MakeWriter` wrapper for `tracing_subscriber::fmt`, so a
//! server's text inside a log message can neither drive the terminal that shows the log
//! (`tail -f`, stderr) nor forge extra log lines.
use std::io::{self, Write};

use tracing_subscriber::fmt::MakeWriter;

/// Wraps a `MakeWriter`; every event is written as one sanitised line.
#[derive(Debug, Clone)]
pub struct Sanitized<M>(pub M);

/// The writer for one event.
#[derive(Debug)]
pub struct SanitizedWriter<W>(W);

impl<'a, M: MakeWriter<'a>> MakeWriter<'a> for Sanitized<M> {
    type Writer = SanitizedWriter<M::Writer>;

    fn make_writer(&'a self) -> Self::Writer {
        SanitizedWriter(self.0.make_writer())
    }
}

/// One formatted event as a single safe line: inner breaks and every hazard become visible,
/// the trailing line break is kept.
#[must_use]
pub fn event_line(buf: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(buf);
    let (body, end) = match text.strip_suffix('\n') {
        Some(b) => (b, "\n"),
        None => (text.as_ref(), ""),
    };
    let mut out = super::sanitize::line(body).into_owned();
    out.push_str(end);
    out.into_bytes()
}

impl<W: Write> Write for SanitizedWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // The fmt layer writes each event whole, so each call is one event.
        self.0.write_all(&event_line(buf))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_stays_one_inert_line() {
        let out = event_line(b"WARN x: bad \x1b]0;t\x07\nFAKE line\r\n");
        assert_eq!(
            String::from_utf8_lossy(&out),
            "WARN x: bad ⟨U+001B⟩]0;t⟨U+0007⟩ FAKE line \n"
        );
    }
}
