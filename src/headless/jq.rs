//! `--jq EXPR`: a jq filter built in (the jaq crates), so scripts need no jq on the machine.
use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, Vars, data, unwrap_valr};
use jaq_json::Val;

/// A jq expression, checked when given (a bad one is a usage error before any request).
#[derive(Debug, Clone)]
pub struct Jq {
    expr: String,
}

type Filter = jaq_core::Filter<data::JustLut<Val>>;

/// Compiles `expr` with jq's standard library; `Err` holds jaq's own message.
fn compile(expr: &str) -> Result<Filter, String> {
    let defs = jaq_core::defs()
        .chain(jaq_std::defs())
        .chain(jaq_json::defs());
    let funs = jaq_core::funs()
        .chain(jaq_std::funs())
        .chain(jaq_json::funs());
    let arena = Arena::default();
    let program = File {
        code: expr,
        path: (),
    };
    let modules = Loader::new(defs)
        .load(&arena, program)
        .map_err(|errs| load_message(&errs))?;
    Compiler::default()
        .with_funs(funs)
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

impl Jq {
    /// Checks `expr`.
    ///
    /// # Errors
    /// jaq's message when the expression does not parse or names an undefined filter.
    pub fn new(expr: &str) -> Result<Self, String> {
        compile(expr)?;
        Ok(Self { expr: expr.into() })
    }

    /// Runs the filter over each JSON document of `inputs`; each output is one line: a string
    /// as its raw text (as `gh --jq` and `jq -r` print), anything else as compact JSON.
    ///
    /// # Errors
    /// A document that is not JSON, or jaq's message for a runtime error.
    pub fn run<'a>(&self, inputs: impl IntoIterator<Item = &'a str>) -> Result<Vec<Line>, String> {
        let filter = compile(&self.expr)?;
        let mut out = Vec::new();
        for input in inputs {
            let input = jaq_json::read::parse_single(input.as_bytes())
                .map_err(|e| format!("not JSON: {e}"))?;
            let ctx = Ctx::<data::JustLut<Val>>::new(&filter.lut, Vars::new([]));
            for v in filter.id.run((ctx, input)).map(unwrap_valr) {
                let v = v.map_err(|e| e.to_string())?;
                out.push(match v {
                    Val::TStr(b) => Line::Text(jaq_json::bstr(&**b).to_string()),
                    other => Line::Json(other.to_string()),
                });
            }
        }
        Ok(out)
    }
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

    #[test]
    fn strings_are_raw_and_the_rest_compact_json() {
        let jq = Jq::new(".items[] | .id, {n: .n}").expect("valid");
        let out = jq
            .run([r#"{"items":[{"id":"a","n":1},{"id":"b","n":2}]}"#])
            .expect("runs");
        assert_eq!(
            out,
            vec![
                Line::Text("a".into()),
                Line::Json(r#"{"n":1}"#.into()),
                Line::Text("b".into()),
                Line::Json(r#"{"n":2}"#.into()),
            ]
        );
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
        let e = jq.run(["[1]"]).expect_err("cannot index");
        assert!(e.contains("cannot index"), "{e}");
    }
}
