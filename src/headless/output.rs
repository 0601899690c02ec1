//! Output: the API's JSON unchanged, or plain aligned tables safe to print on a terminal.
use std::io::{IsTerminal, Write};

use serde_json::Value;

use super::HeadlessError;
use super::jq::{Bounds, Jq, Line, RunError};

/// `-o json|ndjson|table`.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// The API's JSON as received.
    Json,
    /// One JSON document a line: a list's items one by one, as pages arrive.
    Ndjson,
    /// A readable table of the key columns.
    Table,
}

impl OutputFormat {
    /// The format asked for, else table on a terminal and JSON when piped.
    pub fn choose(asked: Option<OutputFormat>) -> Self {
        asked.unwrap_or_else(|| {
            if std::io::stdout().is_terminal() {
                OutputFormat::Table
            } else {
                OutputFormat::Json
            }
        })
    }
}

/// Makes server text safe and one-line: the one sanitizer ([`crate::text::line`]), so escape
/// sequences a hostile server sends become visible `⟨U+001B⟩` markers, line breaks spaces.
pub fn clean(s: &str) -> String {
    crate::text::line(s).into_owned()
}

/// Writes a JSON document exactly as received, ending with a newline. On a terminal
/// (`terminal`), C1 controls, DEL, bidi and invisible characters are written as `\uXXXX`
/// escapes instead: the same JSON value, but nothing a terminal would act on.
pub fn write_raw(out: &mut dyn Write, body: &str, terminal: bool) -> std::io::Result<()> {
    let body = if terminal {
        crate::text::sanitize::json_for_terminal(body)
    } else {
        body.into()
    };
    out.write_all(body.as_bytes())?;
    if !body.ends_with('\n') {
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// Writes collected items as a pretty JSON array (escaped on a terminal as by [`write_raw`]).
pub fn write_array(out: &mut dyn Write, items: &[Value], terminal: bool) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(items).map_err(std::io::Error::other)?;
    write_raw(out, &text, terminal)
}

/// Writes to locked standard output; a write error becomes [`output_error`]'s, never a panic.
pub(super) fn emit(
    f: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), HeadlessError> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    f(&mut out).and_then(|()| out.flush()).map_err(output_error)
}

/// A failed write to standard output: a reader that closed the pipe (`| head`) is
/// [`HeadlessError::ReaderClosed`] (exit 0, nothing said, as `gh` and `kubectl` end); anything
/// else (a full disk) is [`HeadlessError::Output`] (exit 6): lost output is never success.
pub fn output_error(e: std::io::Error) -> HeadlessError {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        HeadlessError::ReaderClosed
    } else {
        HeadlessError::Output(e)
    }
}

/// Refuses to start with standard output closed (`>&-`). The standard library puts `/dev/null`
/// (read-write) in place of a closed standard descriptor before `main`, so the output would
/// vanish with exit 0: a standard output that is that `/dev/null` while standard error is not
/// (`>/dev/null` opens it write-only; a detached process has both on it) was closed.
pub fn stdout_open() -> Result<(), HeadlessError> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{FileType, OFlags};
        let null = |fd: std::os::fd::BorrowedFd<'_>| {
            rustix::fs::fstat(fd).is_ok_and(|st| {
                FileType::from_raw_mode(st.st_mode) == FileType::CharacterDevice
                    && rustix::fs::major(st.st_rdev) == 1
                    && rustix::fs::minor(st.st_rdev) == 3
            })
        };
        let (stdout, stderr) = (std::io::stdout(), std::io::stderr());
        let (out, err) = (
            std::os::fd::AsFd::as_fd(&stdout),
            std::os::fd::AsFd::as_fd(&stderr),
        );
        let read_write = rustix::fs::fcntl_getfl(out)
            .is_ok_and(|f| f.intersection(OFlags::ACCMODE) == OFlags::RDWR);
        if read_write && null(out) && !null(err) {
            return Err(HeadlessError::Output(std::io::Error::other(
                "standard output is closed",
            )));
        }
    }
    Ok(())
}

/// What `--jq` does past its bounds: the filter cannot be stopped from outside, so the command
/// ends here, with the error as any other (`--jq` output is for programs: as JSON), exit 2.
fn past_bounds(why: &str) {
    let e = HeadlessError::Usage(format!("--jq: {why}"));
    eprintln!("{}", error_json(&e));
    std::process::exit(e.exit_code());
}

/// How a command prints: the format, and the `--jq` filter or the `--fields` columns if given.
#[derive(Debug, Clone)]
pub struct Output {
    /// The format (JSON under `--jq`, a table under `--fields`).
    pub format: OutputFormat,
    /// `--jq EXPR`: what is printed instead of each JSON document.
    pub jq: Option<Jq>,
    /// `--fields a,b.c`: the table's columns, as paths into each item's JSON.
    pub fields: Option<Vec<String>>,
    /// Standard output is a terminal: JSON and raw text are escaped for it.
    pub terminal: bool,
}

impl Output {
    /// `--jq` implies JSON (`-o ndjson` stays NDJSON: the filter runs on each item), `--fields`
    /// a table; otherwise [`OutputFormat::choose`]. `watch`: piped, the default is NDJSON.
    ///
    /// # Errors
    /// A bad `--jq` expression (jaq's message), or flags that contradict each other.
    pub fn new(
        asked: Option<OutputFormat>,
        jq: Option<&str>,
        fields: Option<&str>,
    ) -> Result<Self, HeadlessError> {
        let usage = |m: &str| Err(HeadlessError::Usage(m.into()));
        stdout_open()?;
        let jq = jq
            .map(|e| Jq::new(e).map_err(|m| HeadlessError::Usage(format!("--jq: {m}"))))
            .transpose()?;
        let fields = fields.map(parse_fields).transpose()?;
        let format = match (asked, &jq, &fields) {
            (_, Some(_), Some(_)) => return usage("--jq and --fields cannot be combined"),
            (Some(OutputFormat::Table), Some(_), _) => {
                return usage("--jq prints JSON: it cannot be combined with -o table");
            }
            (Some(OutputFormat::Json | OutputFormat::Ndjson), _, Some(_)) => {
                return usage("--fields chooses table columns: use it with -o table or without -o");
            }
            (Some(f), _, _) => f,
            (None, Some(_), _) => OutputFormat::Json,
            (None, _, Some(_)) => OutputFormat::Table,
            (None, None, None) => OutputFormat::choose(None),
        };
        Ok(Self {
            format,
            jq,
            fields,
            terminal: std::io::stdout().is_terminal(),
        })
    }

    /// Prints as a table.
    pub fn table(&self) -> bool {
        self.format == OutputFormat::Table
    }

    /// Prints one JSON document (a resource, a page's envelope, a replay's report): as received
    /// under `-o json`, on one line under `-o ndjson`, through the filter under `--jq`.
    pub fn document(&self, body: &str) -> Result<(), HeadlessError> {
        if let Some(jq) = &self.jq {
            return self.filtered(jq, &[body]);
        }
        match self.format {
            OutputFormat::Ndjson => {
                let v: Value = crate::api::client::decode(200, body)?;
                emit(|out| self.json_line(out, &v))
            }
            _ => emit(|out| write_raw(out, body, self.terminal)),
        }
    }

    /// Prints items gathered from several pages: one pretty array under `-o json` (the filter
    /// gets the whole array), one line each under `-o ndjson` (the filter runs on each).
    pub fn items(&self, items: &[Value]) -> Result<(), HeadlessError> {
        match (self.format, &self.jq) {
            (OutputFormat::Ndjson, Some(jq)) => {
                let texts: Vec<String> = items.iter().map(Value::to_string).collect();
                self.filtered(jq, &texts)
            }
            (OutputFormat::Ndjson, None) => {
                emit(|out| items.iter().try_for_each(|v| self.json_line(out, v)))
            }
            (_, Some(jq)) => {
                let text = serde_json::to_string(items).map_err(json_error)?;
                self.filtered(jq, &[text])
            }
            (_, None) => emit(|out| write_array(out, items, self.terminal)),
        }
    }

    fn json_line(&self, out: &mut dyn Write, v: &Value) -> std::io::Result<()> {
        let text = v.to_string();
        let text = if self.terminal {
            crate::text::sanitize::json_for_terminal(&text)
        } else {
            text.into()
        };
        writeln!(out, "{text}")
    }

    fn filtered<S: AsRef<str> + Sync>(&self, jq: &Jq, docs: &[S]) -> Result<(), HeadlessError> {
        let terminal = self.terminal;
        // Each result is written as it comes: a filter's output is never all kept first.
        let r = jq.run(
            docs,
            std::io::stdout(),
            |out, l| match l {
                // Raw text is server text: on a terminal, through the one sanitizer.
                Line::Text(t) if terminal => writeln!(out, "{}", crate::text::multiline(&t)),
                Line::Text(t) => writeln!(out, "{t}"),
                Line::Json(j) => write_raw(out, &j, terminal),
            },
            Bounds::default(),
            &past_bounds,
        );
        match r {
            Ok(()) => Ok(()),
            Err(RunError::Filter(m)) => Err(HeadlessError::Usage(format!("--jq: {m}"))),
            Err(RunError::Write(e)) => Err(output_error(e)),
        }
    }

    /// A list's table with the `--fields` columns, secrets masked as in every table.
    pub fn field_table(&self, fields: &[String], items: &[Value]) -> Result<(), HeadlessError> {
        let rows: Vec<Vec<String>> = items
            .iter()
            .map(|it| {
                let it = crate::text::redact::masked(it);
                fields
                    .iter()
                    .map(|f| {
                        crate::resource::cut(&clean(&field_text(&it, f)), super::columns::MAX_CELL)
                    })
                    .collect()
            })
            .collect();
        let header: Vec<String> = fields.iter().map(|f| f.to_uppercase()).collect();
        emit(|out| super::columns::write_rows(out, &header, &rows))
    }

    /// One item's `HEADER  value` lines for the `--fields` paths.
    pub fn field_detail(&self, fields: &[String], item: &Value) -> Result<(), HeadlessError> {
        let item = crate::text::redact::masked(item);
        let w = fields.iter().map(|f| f.chars().count()).max().unwrap_or(0);
        emit(|out| {
            for f in fields {
                let header = f.to_uppercase();
                writeln!(
                    out,
                    "{header:<w$}  {}",
                    clean(&field_text(&item, f)).trim_end()
                )?;
            }
            Ok(())
        })
    }
}

fn json_error(e: serde_json::Error) -> HeadlessError {
    HeadlessError::Api(crate::api::Error::Decode {
        status: 200,
        detail: e.to_string(),
    })
}

/// `a,b.c` → `["a", "b.c"]`; empty paths are refused.
fn parse_fields(s: &str) -> Result<Vec<String>, HeadlessError> {
    let fields: Vec<String> = s.split(',').map(|f| f.trim().to_string()).collect();
    if fields
        .iter()
        .any(|f| f.is_empty() || f.split('.').any(str::is_empty))
    {
        return Err(HeadlessError::Usage(format!(
            "--fields {:?}: give paths separated by commas, e.g. id,name,webhook_destination.url",
            clean(s)
        )));
    }
    Ok(fields)
}

/// The value at a dotted path (`webhook_destination.url`, `attempts.0.status`).
pub fn at_path<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(v, |v, key| match v {
        Value::Object(o) => o.get(key),
        Value::Array(a) => key.parse::<usize>().ok().and_then(|i| a.get(i)),
        _ => None,
    })
}

/// A cell's text: strings as they are, `-` for missing or null, lists of plain values joined
/// by commas, anything else as compact JSON.
fn field_text(item: &Value, path: &str) -> String {
    match at_path(item, path) {
        None | Some(Value::Null) => "-".into(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(a)) if a.iter().all(|x| !x.is_object() && !x.is_array()) => a
            .iter()
            .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string))
            .collect::<Vec<_>>()
            .join(", "),
        Some(other) => other.to_string(),
    }
}

/// The `status`, `code` and `message` of an API or transport failure, as errors-as-data give
/// them (here and in the MCP server's tool errors): the server's own for an API error, else
/// no status and a code naming the kind of failure.
pub fn api_error_parts(e: &crate::api::Error) -> (Option<u16>, String, String) {
    use crate::api::Error as E;
    match e {
        E::Api(a) => (Some(a.status), a.code.clone(), a.message.clone()),
        E::Network(_) => (None, "network".into(), e.to_string()),
        E::Timeout(_) => (None, "timeout".into(), e.to_string()),
        E::Decode { status, .. } => (Some(*status), "bad_response".into(), e.to_string()),
        E::Invalid(_) => (None, "usage".into(), e.to_string()),
        E::TooManyPages { .. } => (None, "too_many_pages".into(), e.to_string()),
        E::UnsupportedVersion(_) => (Some(404), "unsupported_version".into(), e.to_string()),
    }
}

/// What `-o json|ndjson` prints on standard error for a failure: one JSON object,
/// `{"error":{"status","code","message"}}` (status `null` when no HTTP answer was involved),
/// with the server's `hint` and validation `errors` when it gave them.
pub fn error_json(e: &HeadlessError) -> String {
    use crate::api::Error as E;
    let (status, code, message) = match e {
        HeadlessError::Api(a) => api_error_parts(a),
        HeadlessError::Usage(_) => (None, "usage".into(), e.to_string()),
        HeadlessError::Cancelled => (None, "cancelled".into(), e.to_string()),
        HeadlessError::Io(_) => (None, "io".into(), e.to_string()),
        HeadlessError::Output(_) => (None, "output".into(), e.to_string()),
        HeadlessError::ReaderClosed => (None, "reader_closed".into(), e.to_string()),
        HeadlessError::Replay { code, .. } => (
            None,
            if *code == 4 {
                "no_answer"
            } else {
                "receiver_error"
            }
            .into(),
            e.to_string(),
        ),
        // recover and wait: what the run came to (exit 3, 4, 5 or 130).
        HeadlessError::Outcome { code, .. } => (
            None,
            match *code {
                4 => "no_answer",
                5 => "timeout",
                130 => "interrupted",
                _ => "not_all_succeeded",
            }
            .into(),
            e.to_string(),
        ),
    };
    let mut inner = serde_json::json!({ "status": status, "code": code, "message": message });
    if let HeadlessError::Api(E::Api(a)) = e {
        if let Some(h) = &a.hint {
            inner["hint"] = Value::String(h.clone());
        }
        if !a.errors.is_empty() {
            inner["errors"] = serde_json::to_value(&a.errors).unwrap_or(Value::Null);
        }
    }
    let text = serde_json::json!({ "error": inner }).to_string();
    // Server text bound for a terminal: nothing in it may act on the terminal.
    if std::io::stderr().is_terminal() {
        crate::text::sanitize::json_for_terminal(&text).into_owned()
    } else {
        text
    }
}
