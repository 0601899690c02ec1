//! `--jq EXPR`: a jq filter built in (the jaq crates), so scripts need no jq on the machine.
//!
//! A filter is the user's program run over server data, so it runs within bounds: its results
//! are written as they come (never all kept first), on a thread of its own whose time (not
//! counting waits on a slow reader) and memory are watched; past [`Bounds`] the command stops
//! with one clear error. `env` and `$ENV` are empty (the API key is in the environment), and
//! `stderr`/`debug` print nothing (raw server text must not reach a terminal).
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use jaq_core::load::{Arena, File, Loader};
use jaq_core::native::{Fun, bome, run as native, v};
use jaq_core::{Compiler, Ctx, ValT as _, Vars, data};
use jaq_json::Val;

/// A jq expression, checked when given (a bad one is a usage error before any request).
#[derive(Debug, Clone)]
pub struct Jq {
    expr: String,
    // Variables besides `$ENV` the caller gives each document (`$headers`, `$response`).
    vars: Vec<&'static str>,
}

type Data = data::JustLut<Val>;
type Filter = jaq_core::Filter<Data>;

/// How long a filter may compute (waits on the reader not counted) and how much memory it may
/// add to the process. Deep recursion (`def f: [f]; f`) grows the filter thread's stack, which
/// is larger than the memory bound, so it is stopped as memory before it can overflow.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// Computing time of one run.
    pub time: Duration,
    /// Bytes of resident memory one run may add.
    pub memory: u64,
}

/// The computing time one run may take unless [`TIME_ENV`] says otherwise.
const TIME: Duration = Duration::from_secs(30);
/// Resident memory one run may add.
const MEMORY: u64 = 256 * 1024 * 1024;
/// The filter thread's stack: above [`MEMORY`], so memory is what stops a deep recursion.
const STACK: usize = 1024 * 1024 * 1024;
/// How often the bounds are checked.
const TICK: Duration = Duration::from_millis(5);
/// Milliseconds of computing time per run, for tests only.
pub const TIME_ENV: &str = "SWITCHBOARD_JQ_TIME_MS";
/// Longest text of a value quoted in an error message; a longer one is named by its kind.
const QUOTED: usize = 40;

impl Default for Bounds {
    fn default() -> Self {
        let time = std::env::var(TIME_ENV)
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
            .map_or(TIME, Duration::from_millis);
        Self {
            time,
            memory: MEMORY,
        }
    }
}

/// Why a run did not finish.
#[derive(Debug)]
pub enum RunError {
    /// The filter failed or went past its bounds: the message (no data in it).
    Filter(String),
    /// Writing a result failed.
    Write(std::io::Error),
}

/// The natives of jq's standard library, less those that reach outside the data: `env` is an
/// empty object, `stderr` and `debug` print nothing.
fn natives() -> impl Iterator<Item = Fun<Data>> {
    let outside = ["env", "stderr_empty", "debug_empty"];
    jaq_core::funs()
        .chain(jaq_std::funs())
        .chain(jaq_json::funs())
        .filter(move |(name, _, _)| !outside.contains(name))
        .chain([
            native::<Data>(("env", v(0), |_| bome(Val::from_map([])))),
            native::<Data>(("stderr_empty", v(0), |_| Box::new(std::iter::empty()))),
            native::<Data>(("debug_empty", v(0), |_| Box::new(std::iter::empty()))),
        ])
}

/// Compiles `expr` with jq's standard library, `$ENV` and `vars`; `Err` holds jaq's own message.
fn compile(expr: &str, vars: &[&'static str]) -> Result<Filter, String> {
    let defs = jaq_core::defs()
        .chain(jaq_std::defs())
        .chain(jaq_json::defs());
    let arena = Arena::default();
    let program = File {
        code: expr,
        path: (),
    };
    let modules = Loader::new(defs)
        .load(&arena, program)
        .map_err(|errs| load_message(&errs))?;
    Compiler::default()
        .with_funs(natives())
        .with_global_vars(std::iter::once("$ENV").chain(vars.iter().copied()))
        .compile(modules)
        .map_err(|errs| {
            let found: Vec<String> = errs
                .iter()
                .flat_map(|(_, es)| es.iter())
                .map(|(name, what)| format!("undefined {} {name}", what.as_str()))
                .collect();
            found.join("; ")
        })
}

fn load_message(errs: &jaq_core::load::Errors<&str, ()>) -> String {
    use jaq_core::load::Error;
    let mut found = Vec::new();
    for (_, e) in errs {
        match e {
            Error::Io(es) => found.extend(es.iter().map(|(p, m)| format!("{p}: {m}"))),
            Error::Lex(es) => found.extend(
                es.iter()
                    .map(|(expect, at)| format!("expected {} at {}", expect.as_str(), near(at))),
            ),
            Error::Parse(es) => found.extend(
                es.iter()
                    .map(|(expect, at)| format!("expected {} at {}", expect.as_str(), near(at))),
            ),
        }
    }
    found.join("; ")
}

/// Where in the expression an error is: the rest of it, or its end.
fn near(rest: &str) -> String {
    if rest.is_empty() {
        "the end".into()
    } else {
        let cut: String = rest.chars().take(20).collect();
        format!("{cut:?}")
    }
}

/// A runtime error's message with every long value in it named by its kind and size instead
/// (`cannot index an object (30012 bytes) with "name"`): the data never fills the message.
fn summarize(message: &str) -> String {
    let mut out = String::new();
    let mut rest = message;
    while let Some(at) = rest.find(['{', '[', '"']) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let mut values =
            serde_json::Deserializer::from_str(tail).into_iter::<serde::de::IgnoredAny>();
        let end = match values.next() {
            Some(Ok(_)) => values.byte_offset(),
            // Not a JSON value after all: keep the character and go on.
            _ => tail.chars().next().map_or(1, char::len_utf8),
        };
        let text = &tail[..end];
        if text.len() > QUOTED {
            let kind = match text.as_bytes().first() {
                Some(b'{') => "an object",
                Some(b'[') => "an array",
                _ => "a string",
            };
            out.push_str(&format!("{kind} ({} bytes)", text.len()));
        } else {
            out.push_str(text);
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    crate::text::line(&out).into_owned()
}

/// What the filter thread tells the watcher.
#[derive(Default)]
struct Progress {
    /// Nanoseconds spent waiting on the output (a slow reader), not counted as computing.
    waiting: AtomicU64,
    done: AtomicBool,
}

/// Resident memory of this process in bytes, where the system says.
fn resident() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse::<u64>()
        .ok()?;
    Some(kb * 1024)
}

/// A writer that counts the time spent in writes (a reader that is slow or stopped).
struct Timed<'a, W> {
    inner: W,
    progress: &'a Progress,
}

impl<W: Write> Timed<'_, W> {
    fn timed<T>(&mut self, f: impl FnOnce(&mut W) -> std::io::Result<T>) -> std::io::Result<T> {
        let started = Instant::now();
        let r = f(&mut self.inner);
        let ns = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.progress.waiting.fetch_add(ns, Ordering::Relaxed);
        r
    }
}

impl<W: Write> Write for Timed<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.timed(|w| w.write(buf))
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.timed(Write::flush)
    }
}

impl Jq {
    /// Checks `expr`.
    ///
    /// # Errors
    /// jaq's message when the expression does not parse or names an undefined filter.
    pub fn new(expr: &str) -> Result<Self, String> {
        Self::with_vars(expr, &[])
    }

    /// Checks `expr`, which may use the variables `vars` (`$headers`): each [`Doc`] given to
    /// [`Jq::test`] carries their values in this order.
    ///
    /// # Errors
    /// jaq's message when the expression does not parse or names an undefined filter or variable.
    pub fn with_vars(expr: &str, vars: &[&'static str]) -> Result<Self, String> {
        compile(expr, vars)?;
        Ok(Self {
            expr: expr.into(),
            vars: vars.to_vec(),
        })
    }

    /// Runs the filter over each JSON document of `inputs`, handing each result to `line` as it
    /// comes (with `out`, buffered): a string as its raw text (as `gh --jq` and `jq -r` print),
    /// anything else as compact JSON. Past `bounds`, `exceeded` is called with the message (the
    /// binary ends the process there: a filter cannot be stopped from outside).
    ///
    /// # Errors
    /// A document that is not JSON, jaq's message for a runtime error (values in it summarized),
    /// `halt`; or the write error.
    pub fn run<S, W, L>(
        &self,
        inputs: &[S],
        out: W,
        line: L,
        bounds: Bounds,
        exceeded: &(dyn Fn(&str) + Sync),
    ) -> Result<(), RunError>
    where
        S: AsRef<str> + Sync,
        W: Write + Send,
        L: Fn(&mut dyn Write, Line) -> std::io::Result<()> + Sync,
    {
        bounded(bounds, exceeded, |progress| {
            self.run_here(inputs, out, &line, progress)
        })
    }

    /// The filter as a test: for each document of `docs` (read as they come: time waiting for
    /// the next is not counted as computing), whether one of its results is `true`, handed to
    /// `verdict` (which returns `false` to stop). A runtime error is that document's
    /// [`Verdict::Failed`], not the run's. Past `bounds`, `exceeded` is called as by [`Jq::run`].
    ///
    /// # Errors
    /// A variable that is not JSON (a document that is not is `null`); `halt` is a document's
    /// failure.
    pub fn test<I, F>(
        &self,
        docs: I,
        verdict: F,
        bounds: Bounds,
        exceeded: &(dyn Fn(&str) + Sync),
    ) -> Result<(), RunError>
    where
        I: Iterator<Item = Doc> + Send,
        F: FnMut(Verdict) -> bool + Send,
    {
        bounded(bounds, exceeded, |progress| {
            self.test_here(docs, verdict, progress)
        })
    }

    fn test_here<I, F>(
        &self,
        mut docs: I,
        mut verdict: F,
        progress: &Progress,
    ) -> Result<(), RunError>
    where
        I: Iterator<Item = Doc>,
        F: FnMut(Verdict) -> bool,
    {
        let filter = compile(&self.expr, &self.vars).map_err(RunError::Filter)?;
        let env = Val::from_map([]).map_err(|e| RunError::Filter(e.to_string()))?;
        let parse = |text: &str, what: &str| {
            jaq_json::read::parse_single(text.as_bytes())
                .map_err(|e| RunError::Filter(format!("{what} is not JSON: {e}")))
        };
        loop {
            // Waiting for the next document (the pages being read) is not computing.
            let started = Instant::now();
            let next = docs.next();
            let ns = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
            progress.waiting.fetch_add(ns, Ordering::Relaxed);
            let Some(doc) = next else { return Ok(()) };
            // A document that is not JSON is `null` to the filter (a search's body).
            let input = parse(&doc.input, "a document").unwrap_or(Val::Null);
            let mut vars = vec![env.clone()];
            for v in &doc.vars {
                vars.push(parse(v, "a variable")?);
            }
            let ctx = Ctx::<Data>::new(&filter.lut, Vars::new(vars));
            let mut found = Verdict::NotTrue;
            for v in filter.id.run((ctx, input)) {
                match v {
                    Ok(Val::Bool(true)) => {
                        found = Verdict::True;
                        break;
                    }
                    Ok(_) => {}
                    Err(exn) => {
                        found = Verdict::Failed(error_message(exn));
                        break;
                    }
                }
            }
            if !verdict(found) {
                return Ok(());
            }
        }
    }

    /// The filter's run on this thread: values live here only (jaq's are not `Send`).
    fn run_here<S: AsRef<str>, W: Write>(
        &self,
        inputs: &[S],
        out: W,
        line: &(dyn Fn(&mut dyn Write, Line) -> std::io::Result<()> + Sync),
        progress: &Progress,
    ) -> Result<(), RunError> {
        let filter = compile(&self.expr, &self.vars).map_err(RunError::Filter)?;
        let mut out = std::io::BufWriter::new(Timed {
            inner: out,
            progress,
        });
        let env = Val::from_map([]).map_err(|e| RunError::Filter(e.to_string()))?;
        let many = inputs.len() > 1;
        for (n, input) in inputs.iter().enumerate() {
            let at = if many {
                format!(" (document {})", n + 1)
            } else {
                String::new()
            };
            let input = jaq_json::read::parse_single(input.as_ref().as_bytes())
                .map_err(|e| RunError::Filter(format!("not JSON{at}: {e}")))?;
            let ctx = Ctx::<Data>::new(&filter.lut, Vars::new([env.clone()]));
            for v in filter.id.run((ctx, input)) {
                let v = match v {
                    Ok(v) => v,
                    Err(exn) => {
                        let message = error_message(exn);
                        return Err(RunError::Filter(format!("{message}{at}")));
                    }
                };
                let l = match v {
                    Val::TStr(b) => Line::Text(jaq_json::bstr(&**b).to_string()),
                    other => Line::Json(other.to_string()),
                };
                line(&mut out, l).map_err(RunError::Write)?;
            }
            // Each document's results reach the reader before the next document is read.
            out.flush().map_err(RunError::Write)?;
        }
        Ok(())
    }
}

/// A runtime error's message (values summarized) or `halt`'s.
fn error_message(exn: jaq_core::Exn<Val>) -> String {
    match exn.get_err() {
        Ok(e) => summarize(&e.to_string()),
        Err(halted) => match halted.get_halt() {
            Ok(code) => format!("the filter called halt ({code})"),
            Err(_) => "the filter failed".into(),
        },
    }
}

/// Runs `work` on a thread of its own with a large stack, watching its computing time (not
/// counting what it reports as waiting) and the memory the process gains; past `bounds`,
/// `exceeded` is called once with the message.
fn bounded<F>(bounds: Bounds, exceeded: &(dyn Fn(&str) + Sync), work: F) -> Result<(), RunError>
where
    F: FnOnce(&Progress) -> Result<(), RunError> + Send,
{
    let progress = Progress::default();
    let start_memory = resident();
    let started = Instant::now();
    // Handed to whichever thread starts.
    let work = std::sync::Mutex::new(Some(work));
    std::thread::scope(|s| {
        // Where a stack that large cannot be had (strict overcommit), a quarter of it, with
        // the memory bound below it so a deep recursion still stops as memory.
        let mut memory = bounds.memory;
        let spawn = |stack: usize| {
            let (work, progress) = (&work, &progress);
            std::thread::Builder::new()
                .name("jq".into())
                .stack_size(stack)
                .spawn_scoped(s, move || {
                    let work = work.lock().unwrap_or_else(|p| p.into_inner()).take();
                    let r = match work {
                        Some(work) => work(progress),
                        None => Err(RunError::Filter("the filter ran twice".into())),
                    };
                    progress.done.store(true, Ordering::Release);
                    r
                })
        };
        let worker = match spawn(STACK) {
            Ok(w) => w,
            Err(_) => {
                memory = memory.min(STACK as u64 / 8);
                spawn(STACK / 4)
                    .map_err(|e| RunError::Filter(format!("cannot start the filter: {e}")))?
            }
        };
        let mut told = false;
        while !progress.done.load(Ordering::Acquire) {
            std::thread::park_timeout(TICK);
            if told {
                continue;
            }
            let waiting = Duration::from_nanos(progress.waiting.load(Ordering::Relaxed));
            let computing = started.elapsed().saturating_sub(waiting);
            let grown = start_memory
                .zip(resident())
                .map_or(0, |(before, now)| now.saturating_sub(before));
            let why = if computing > bounds.time {
                Some(format!(
                    "stopped after {} s of computing (the bound of one filter run)",
                    bounds.time.as_secs_f32()
                ))
            } else if grown > memory {
                Some(format!(
                    "stopped: the filter took more than {} MiB of memory (a result too large, or a recursion too deep)",
                    memory / 1024 / 1024
                ))
            } else {
                None
            };
            if let Some(why) = why {
                told = true;
                exceeded(&why);
            }
        }
        worker
            .join()
            .unwrap_or_else(|_| Err(RunError::Filter("the filter failed".into())))
    })
}

/// One document for [`Jq::test`]: `.` and the values of the variables, as JSON text.
#[derive(Debug, Clone)]
pub struct Doc {
    /// `.`.
    pub input: String,
    /// The variables' values, in the order [`Jq::with_vars`] named them.
    pub vars: Vec<String>,
}

/// What [`Jq::test`] found for one document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// One of its results was `true`.
    True,
    /// None was.
    NotTrue,
    /// The filter failed on it: the message (no data in it).
    Failed(String),
}

/// One output of a filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// A string result, as its raw text.
    Text(String),
    /// Any other result, as compact JSON.
    Json(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(jq: &Jq, inputs: &[&str]) -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        let r = jq.run(
            inputs,
            &mut out,
            |w, l| match l {
                Line::Text(t) => writeln!(w, "T {t}"),
                Line::Json(j) => writeln!(w, "J {j}"),
            },
            Bounds::default(),
            &|_| {},
        );
        match r {
            Ok(()) => Ok(String::from_utf8_lossy(&out)
                .lines()
                .map(str::to_string)
                .collect()),
            Err(RunError::Filter(m)) => Err(m),
            Err(RunError::Write(e)) => Err(e.to_string()),
        }
    }

    #[test]
    fn strings_are_raw_and_the_rest_compact_json() {
        let jq = Jq::new(".items[] | .id, {n: .n}").expect("valid");
        let out = lines(&jq, &[r#"{"items":[{"id":"a","n":1},{"id":"b","n":2}]}"#]).expect("runs");
        assert_eq!(out, ["T a", r#"J {"n":1}"#, "T b", r#"J {"n":2}"#]);
    }

    #[test]
    fn bad_expressions_are_refused_with_jaqs_message() {
        let e = Jq::new(".items[").expect_err("parse error");
        assert!(e.contains("expected"), "{e}");
        let e = Jq::new("nosuchfilter").expect_err("undefined");
        assert!(e.contains("undefined filter nosuchfilter"), "{e}");
        assert!(Jq::new("map(select(.status == \"failed\")) | length").is_ok());
    }

    #[test]
    fn runtime_errors_are_reported() {
        let jq = Jq::new(".a.b").expect("valid");
        let e = lines(&jq, &["[1]"]).expect_err("cannot index");
        assert!(e.contains("cannot index"), "{e}");
    }

    #[test]
    fn errors_name_the_kind_of_a_value_never_its_text() {
        let big = format!(r#"{{"items":[{{"secret":"{}"}}]}}"#, "s".repeat(30_000));
        let jq = Jq::new(".items.name").expect("valid");
        let e = lines(&jq, &[&big]).expect_err("cannot index an array with a name");
        assert!(e.len() < 200, "{e}");
        assert!(!e.contains("sss"), "{e}");
        assert!(e.contains("cannot index an array ("), "{e}");
        assert!(e.contains(r#""name""#), "{e}");
    }

    #[test]
    fn env_and_dollar_env_are_empty() {
        // SAFETY-free: reading is enough; the key is whatever the process holds.
        let jq = Jq::new("env, $ENV, (env | length), ($ENV | length)").expect("valid");
        let out = lines(&jq, &["null"]).expect("runs");
        assert_eq!(out, ["J {}", "J {}", "J 0", "J 0"]);
    }

    #[test]
    fn halt_is_an_error_not_an_exit() {
        let jq = Jq::new("1, halt_error").expect("valid");
        let e = lines(&jq, &["\"x\""]).expect_err("halted");
        assert!(e.contains("halt"), "{e}");
    }

    #[test]
    fn results_are_written_as_they_come() {
        // A reader that fails at its first write stops an endless filter at once.
        struct Closed;
        impl Write for Closed {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Err(std::io::ErrorKind::BrokenPipe.into())
            }
        }
        let jq = Jq::new("range(1e12)").expect("valid");
        let r = jq.run(
            &["null"],
            Closed,
            |w, l| match l {
                Line::Text(t) | Line::Json(t) => writeln!(w, "{t}"),
            },
            Bounds::default(),
            &|m| panic!("no bound should be reached: {m}"),
        );
        assert!(matches!(r, Err(RunError::Write(e)) if e.kind() == std::io::ErrorKind::BrokenPipe));
    }
}
