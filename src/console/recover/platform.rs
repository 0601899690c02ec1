//! The recover room where the generation retries on the server (`event-destinations`'
//! `POST …/retry`): the same room, form and keys, but the count is the platform's retry plan, a
//! yes asks the platform (journalled, as headless `notifications recover` does, through
//! `api::platform_retry`), and the new attempts' outcomes are shown as they land. Which items
//! and lists recover this way is their resource's console module's answer
//! (`DetailView::platform_retry`).

use ratatui::text::{Line, Span};

use super::{Platform, RecoverReply, Room, Row, Stage, WAIT};
use crate::api::platform_retry::{self as retry, Answer, Landed, RetryPlan};
use crate::console::theme::Theme;

/// The statuses typed in the form, checked against what the platform retries.
pub(crate) fn statuses(typed: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for s in typed
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
    {
        if !retry::FINISHED.contains(&s) {
            return Err(format!(
                "{s:?}: the platform retries only finished deliveries: {}",
                retry::FINISHED.join(", ")
            ));
        }
        out.push(s.to_string());
    }
    Ok(out)
}

/// Why the form's target is refused here: the platform's retry goes to each destination.
pub(crate) const NO_TARGET: &str = "the platform retries to each destination's own URL: leave Target empty (to send from this machine instead: switchboard notifications recover --to URL --secret-env VAR)";

/// Why the form's window or statuses are refused over marks: the marks are asked as they are.
pub(crate) const MARKS_AS_THEY_ARE: &str = "the marked deliveries are asked as they are: leave Since and Statuses empty (Esc clears the marks, to select by the list's filter instead)";

/// A reply of the run, into the room.
pub(crate) fn on_reply(room: &mut Room, reply: RecoverReply) {
    let Some(p) = room.platform.as_deref_mut() else {
        return;
    };
    match reply {
        RecoverReply::Retried(r) => {
            let (accepted, answer) = match &r.answer {
                Answer::Accepted { .. } => (true, "accepted".to_string()),
                Answer::Refused { status, message } => {
                    (false, format!("refused {status}: {message}"))
                }
                Answer::Unreachable(why) => (false, format!("unreachable: {why}")),
            };
            p.rows.push(Row {
                delivery: r.item.delivery.clone(),
                answer,
                accepted,
                outcome: None,
            });
        }
        RecoverReply::RetryRan(s) => {
            p.summary = Some(s);
            p.following = s.accepted > 0;
            room.stage = Stage::Done(Default::default());
            if !p.following {
                room.pending = None;
            }
        }
        RecoverReply::Landed(l) => {
            if let Some(row) = p.rows.iter_mut().find(|r| r.delivery == l.delivery) {
                row.outcome = Some(outcome(&l));
            }
        }
        RecoverReply::Followed(left) => {
            p.following = false;
            p.not_landed = left;
            room.pending = None;
        }
        _ => {}
    }
}

/// A landed attempt in words: `attempt #2 succeeded · HTTP 200 · 12 ms (delivered)`.
fn outcome(l: &Landed) -> (bool, String) {
    let a = &l.attempt;
    let n = a.get("attempt_number").and_then(serde_json::Value::as_u64);
    let http = a
        .get("response")
        .and_then(|r| r.get("status_code"))
        .and_then(serde_json::Value::as_u64);
    let ms = a.get("duration_ms").and_then(serde_json::Value::as_u64);
    let why = a
        .get("error")
        .and_then(|e| e.get("message").or_else(|| e.get("code")))
        .and_then(serde_json::Value::as_str);
    let mut s = format!("attempt #{} {}", n.unwrap_or(0), l.outcome());
    if let Some(h) = http {
        s.push_str(&format!(" · HTTP {h}"));
    }
    if let Some(ms) = ms {
        s.push_str(&format!(" · {ms} ms"));
    }
    if let Some(w) = why.filter(|_| l.outcome() != "succeeded") {
        s.push_str(&format!(" · {w}"));
    }
    s.push_str(&format!(" ({})", l.status));
    (l.outcome() == "succeeded", s)
}

/// What sits above the results in a platform room, after the form.
pub(crate) fn stage_lines(room: &Room, p: &Platform, t: &Theme) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let overview = |plan: &RetryPlan| plan.overview(false).into_iter().map(Line::raw);
    match &room.stage {
        Stage::Editing if p.marked => out.push(Line::from(Span::styled(
            "Enter reads each marked delivery and shows the count and the first few before \
             anything is asked. A yes asks the platform to retry each (journalled: a later run \
             does not ask again); one still being delivered is asked too and the platform's \
             refusal shown. Each new attempt is shown here as it lands.",
            t.muted,
        ))),
        Stage::Editing => out.push(Line::from(Span::styled(
            "Enter counts the finished deliveries this selects and shows the count and the first \
             few before anything is asked. A yes asks the platform to retry each (journalled: \
             a later run does not ask again); the platform signs and records each new attempt, \
             shown here as it lands.",
            t.muted,
        ))),
        Stage::Planning => out.push(Line::from(Span::styled("counting…", t.warn))),
        Stage::RetryPlanned(plan) | Stage::RetryConfirm(plan) => {
            out.extend(overview(plan));
            if !plan.already.is_empty() && matches!(room.stage, Stage::RetryPlanned(_)) {
                out.push(Line::from(Span::styled(
                    format!(
                        "a asks again for the {} already retried",
                        plan.already.len()
                    ),
                    t.muted,
                )));
            }
            if plan.items.is_empty() {
                out.push(Line::from(Span::styled("Nothing to retry.", t.warn)));
            } else {
                out.push(Line::from(Span::styled(
                    "Enter asks the platform (after a yes)",
                    t.muted,
                )));
            }
        }
        Stage::Running {
            total, stopping, ..
        } => {
            out.push(Line::raw(format!(
                "{}/{total} asked · {} accepted",
                p.rows.len(),
                p.rows.iter().filter(|r| r.accepted).count()
            )));
            if *stopping {
                out.push(Line::from(Span::styled(
                    "stopping: the retries in flight finish and are journalled; nothing new is asked",
                    t.warn,
                )));
            }
        }
        Stage::Done(_) => {
            if let Some(s) = &p.summary {
                out.push(Line::from(Span::styled(
                    format!(
                        "{} accepted, {} refused, {} unreachable",
                        s.accepted, s.refused, s.unreachable
                    ),
                    if s.refused + s.unreachable == 0 {
                        t.ok
                    } else {
                        t.warn
                    },
                )));
                if s.stopped {
                    out.push(Line::from(Span::styled(
                        format!(
                            "stopped: {} not asked; recovering again asks the rest",
                            s.left
                        ),
                        t.warn,
                    )));
                }
            }
            let landed = p.rows.iter().filter(|r| r.outcome.is_some()).count();
            let waited = p.rows.iter().filter(|r| r.accepted).count();
            if p.following {
                out.push(Line::from(Span::styled(
                    format!(
                        "waiting for the new attempts: {landed}/{waited} landed (up to {} s)",
                        WAIT.as_secs()
                    ),
                    t.warn,
                )));
            } else if !p.not_landed.is_empty() {
                out.push(Line::from(Span::styled(
                    format!(
                        "{} new attempt{} not landed after {} s",
                        p.not_landed.len(),
                        if p.not_landed.len() == 1 { "" } else { "s" },
                        WAIT.as_secs()
                    ),
                    t.warn,
                )));
            } else if waited > 0 {
                out.push(Line::raw(format!("{landed}/{waited} new attempts landed")));
            }
        }
        Stage::Planned(_) | Stage::Confirm(_) => {}
    }
    out
}

/// One line per delivery asked: its answer and, once landed, the new attempt's outcome.
pub(crate) fn result_lines(p: &Platform, height: usize, t: &Theme) -> Vec<Line<'static>> {
    p.rows
        .iter()
        .rev()
        .take(height)
        .rev()
        .map(|r| {
            let mut spans = vec![
                Span::raw(format!("  {}  ", r.delivery)),
                Span::styled(r.answer.clone(), if r.accepted { t.ok } else { t.error }),
            ];
            match &r.outcome {
                Some((ok, text)) => {
                    spans.push(Span::raw("  → "));
                    spans.push(Span::styled(text.clone(), if *ok { t.ok } else { t.error }));
                }
                None if r.accepted => spans.push(Span::styled("  → waiting…", t.muted)),
                None => {}
            }
            Line::from(spans)
        })
        .collect()
}
