//! The one confirmation of the console. A room that wants an answer before it acts (a form's
//! delete, a reveal of masked headers or a signing secret, a replay or a recover beyond this
//! machine) opens a [`Confirm`]: its question, its [`Kind`] (yes/no, a typed name, a typed host,
//! typed hosts and a count) and its
//! [`Subject`], which says what a yes does. The confirmation layer (`layers::Layer::Confirm`)
//! takes every key while it is open, answers through [`on_key`] and hands the answer back to
//! the subject's room; this file draws it.
use crossterm::event::KeyCode;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use super::footer::Hint;
use super::input::TextInput;
use super::keymap::Input;
use super::theme::Theme;
use super::widgets::centered;

/// An open question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Confirm {
    /// The box's title.
    pub(crate) title: String,
    /// The question, one entry a line (server text is made safe when drawn).
    pub(crate) question: Vec<String>,
    /// How it is answered.
    pub(crate) kind: Kind,
    /// What the question is about: whose room acts on the answer.
    pub(crate) subject: Subject,
    /// A wrong typed answer's message.
    pub(crate) message: Option<String>,
}

/// How a question is answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Kind {
    /// No / Yes buttons; `yes` is the highlighted one (No at first).
    YesNo {
        /// Yes is highlighted.
        yes: bool,
    },
    /// The item's name typed exactly (`confirm = "type-name"`).
    Name {
        /// The name to type.
        expected: String,
        /// What was typed.
        typed: TextInput,
    },
    /// A host beyond this machine typed (case and surrounding blanks do not matter).
    Host {
        /// The host to type.
        host: String,
        /// What was typed.
        typed: TextInput,
    },
    /// Every host beyond this machine and the count of deliveries typed, in any order
    /// ([`crate::api::recover::confirmed`], as the headless prompt checks it).
    Hosts {
        /// The hosts to name.
        hosts: Vec<String>,
        /// The count to type.
        count: usize,
        /// What was typed.
        typed: TextInput,
    },
}

/// What a question is about; a yes does it, a no goes back to where it was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Subject {
    /// The open form dialog's write (a delete, a project or member removal): sent on yes.
    FormWrite,
    /// The open attempt's masked header values: shown on yes.
    RevealHeaders,
    /// A destination's signing secret (its id): shown on yes while its detail stays open.
    ShowSecret(String),
    /// The replay room's plan to a host beyond this machine: sent on yes.
    Replay,
    /// The recover room's plan to hosts beyond this machine: run on yes.
    Recover,
    /// The Samples room's send to a host beyond this machine: sent on yes.
    SampleSend,
    /// The Samples room's removal of this sample: removed on yes.
    SampleRm(String),
}

/// An answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answer {
    /// Do it.
    Yes,
    /// Do not.
    No,
}

impl Confirm {
    /// A yes/no question, No highlighted.
    pub(crate) fn yes_no(
        title: impl Into<String>,
        question: impl Into<String>,
        subject: Subject,
    ) -> Self {
        Self::new(
            title,
            vec![question.into()],
            Kind::YesNo { yes: false },
            subject,
        )
    }

    /// A question answered by typing `name` exactly.
    pub(crate) fn name(
        title: impl Into<String>,
        question: impl Into<String>,
        name: impl Into<String>,
        subject: Subject,
    ) -> Self {
        let kind = Kind::Name {
            expected: name.into(),
            typed: TextInput::default(),
        };
        Self::new(title, vec![question.into()], kind, subject)
    }

    /// A question answered by typing `host`.
    pub(crate) fn host(
        title: impl Into<String>,
        question: Vec<String>,
        host: impl Into<String>,
        subject: Subject,
    ) -> Self {
        let kind = Kind::Host {
            host: host.into(),
            typed: TextInput::default(),
        };
        Self::new(title, question, kind, subject)
    }

    /// A question answered by typing every host of `hosts` and `count`; the question is the
    /// headless prompt's, its last line drawn before what is typed.
    pub(crate) fn hosts(
        title: impl Into<String>,
        hosts: Vec<String>,
        count: usize,
        subject: Subject,
    ) -> Self {
        let prompt = crate::api::recover::confirmation_prompt(&hosts, count);
        let mut question: Vec<String> = prompt.lines().map(str::to_string).collect();
        question.pop();
        let kind = Kind::Hosts {
            hosts,
            count,
            typed: TextInput::default(),
        };
        Self::new(title, question, kind, subject)
    }

    fn new(title: impl Into<String>, question: Vec<String>, kind: Kind, subject: Subject) -> Self {
        Self {
            title: title.into(),
            question,
            kind,
            subject,
            message: None,
        }
    }

    /// The text input of a typed answer.
    fn typed_mut(&mut self) -> Option<&mut TextInput> {
        match &mut self.kind {
            Kind::YesNo { .. } => None,
            Kind::Name { typed, .. } | Kind::Host { typed, .. } | Kind::Hosts { typed, .. } => {
                Some(typed)
            }
        }
    }

    /// Pasted text goes into a typed answer (one line); a yes/no question ignores it.
    pub(crate) fn paste(&mut self, text: &str) {
        if let Some(t) = self.typed_mut() {
            t.paste(text);
            self.message = None;
        }
    }

    /// The keys it takes, for the footer and help (each names what it does).
    pub(crate) fn hints(&self) -> Vec<Hint> {
        match &self.kind {
            Kind::YesNo { .. } => vec![
                Hint::Key("y", "yes"),
                Hint::Key("n/Esc", "no"),
                Hint::Key("←/→", "pick"),
                Hint::Key("Enter", "answer"),
            ],
            Kind::Name { .. } => vec![
                Hint::Key("Enter", "confirm"),
                Hint::Key("Esc", "cancel"),
                Hint::Key("Ctrl-U", "clear"),
            ],
            Kind::Host { .. } | Kind::Hosts { .. } => vec![
                Hint::Key("Enter", "confirm"),
                Hint::Key("Esc", "back"),
                Hint::Key("Ctrl-U", "clear"),
            ],
        }
    }
}

/// A key on the open question: the answer when it is given, `None` while it stays open (a
/// choice moved, a letter typed, a wrong name refused with a message).
pub(crate) fn on_key(c: &mut Confirm, key: &Input) -> Option<Answer> {
    if let Kind::YesNo { yes } = &mut c.kind {
        return match key.code {
            KeyCode::Char('y' | 'Y') => Some(Answer::Yes),
            KeyCode::Char('n' | 'N') | KeyCode::Esc => Some(Answer::No),
            KeyCode::Enter if *yes => Some(Answer::Yes),
            KeyCode::Enter => Some(Answer::No),
            KeyCode::Left | KeyCode::Right | KeyCode::Tab | KeyCode::BackTab => {
                *yes = !*yes;
                None
            }
            _ => None,
        };
    }
    match key.code {
        KeyCode::Esc => Some(Answer::No),
        KeyCode::Enter => match wrong_answer(&c.kind) {
            None => Some(Answer::Yes),
            Some(why) => {
                c.message = Some(why);
                None
            }
        },
        _ => {
            if c.typed_mut().is_some_and(|t| t.edit(key)) {
                c.message = None;
            }
            None
        }
    }
}

/// Why what was typed does not answer the question; `None` when it does.
fn wrong_answer(kind: &Kind) -> Option<String> {
    match kind {
        Kind::YesNo { .. } => None,
        Kind::Name { expected, typed } => {
            (typed.value() != expected).then(|| format!("Type “{expected}” exactly to confirm"))
        }
        Kind::Host { host, typed } => (!typed.value().trim().eq_ignore_ascii_case(host))
            .then(|| format!("Type “{host}” exactly to send")),
        Kind::Hosts {
            hosts,
            count,
            typed,
        } => (!crate::api::recover::confirmed(typed.value(), hosts, *count))
            .then(|| "that is not every host name and the count".to_string()),
    }
}

/// Width of the box: a host's question carries a longer warning.
fn width(c: &Confirm) -> u16 {
    match c.kind {
        Kind::Host { .. } | Kind::Hosts { .. } => 70,
        _ => 64,
    }
}

/// Draws the question centred in `area`.
pub(crate) fn render(frame: &mut Frame, area: Rect, c: &Confirm, theme: &Theme) {
    let block = Block::bordered()
        .border_style(theme.warn)
        .title(Line::from(Span::styled(
            format!(" {} ", crate::text::line(&c.title)),
            theme.warn,
        )));
    draw_box(frame, area, width(c), lines(c, theme), block);
}

/// Draws `lines` in a bordered box of `width` (at most `area`'s) centred in `area`, grown with
/// the wrapped text; the last line (the answers) is kept at the bottom inside the border, so a
/// small terminal cuts the question, never the way to answer it.
pub(crate) fn draw_box(
    frame: &mut Frame,
    area: Rect,
    width: u16,
    mut lines: Vec<Line<'static>>,
    block: Block<'static>,
) {
    let r = box_rect(area, width, &lines);
    let inner = block.inner(r);
    let foot = lines.pop().unwrap_or_default();
    let foot_h = wrapped_height(&foot, inner.width).min(inner.height);
    let body = Rect {
        height: inner.height - foot_h,
        ..inner
    };
    let foot_r = Rect {
        y: body.bottom(),
        height: foot_h,
        ..inner
    };
    frame.render_widget(Clear, r);
    frame.render_widget(block, r);
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), body);
    frame.render_widget(Paragraph::new(foot).wrap(Wrap { trim: false }), foot_r);
}

/// Where the No and Yes buttons of a yes/no question are drawn, for mouse clicks.
pub(crate) fn buttons(area: Rect, c: &Confirm, theme: &Theme) -> Option<(Rect, Rect)> {
    if !matches!(c.kind, Kind::YesNo { .. }) {
        return None;
    }
    let lines = lines(c, theme);
    let r = box_rect(area, width(c), &lines);
    let foot_h = lines
        .last()
        .map_or(1, |l| wrapped_height(l, r.width.saturating_sub(2)));
    // The buttons start the last line inside the border: ` No `, two spaces, ` Yes `.
    let y = (r.y + r.height).checked_sub(1 + foot_h)?.max(r.y + 1);
    let no = Rect::new(r.x + 1, y, 4, 1);
    let yes = Rect::new(r.x + 1 + 4 + 2, y, 5, 1);
    Some((no, yes))
}

/// A box of `width` (at most `area`'s) holding `lines` wrapped at the width it really gets,
/// centred in `area`.
pub(crate) fn box_rect(area: Rect, width: u16, lines: &[Line]) -> Rect {
    let width = width.min(area.width);
    let inner_w = width.saturating_sub(2);
    let wrapped: usize = lines
        .iter()
        .map(|l| usize::from(wrapped_height(l, inner_w)))
        .sum();
    let h = u16::try_from(wrapped + 2).unwrap_or(u16::MAX);
    centered(area, width, h)
}

/// The rows `line` takes wrapped at word boundaries in `width` columns (a word longer than a
/// row is broken), as the drawing's wrap lays it out or more.
pub(crate) fn wrapped_height(line: &Line, width: u16) -> u16 {
    let width = usize::from(width).max(1);
    let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
    let mut rows = 1usize;
    let mut at = 0usize;
    for word in text.split_inclusive(' ') {
        let w = crate::resource::display_width(word);
        let bare = crate::resource::display_width(word.trim_end_matches(' '));
        if at > 0 && at + bare > width {
            rows += 1;
            at = 0;
        }
        if at == 0 && bare > width {
            rows += bare.div_ceil(width) - 1;
            at = bare % width;
            continue;
        }
        at += w;
    }
    u16::try_from(rows).unwrap_or(u16::MAX)
}

fn lines(c: &Confirm, theme: &Theme) -> Vec<Line<'static>> {
    let safe = |s: &str| crate::text::line(s).into_owned();
    let mut lines: Vec<Line> = c.question.iter().map(|q| Line::from(safe(q))).collect();
    lines.push(Line::default());
    if let Some(m) = &c.message {
        lines.push(Line::from(Span::styled(safe(m), theme.error)));
        lines.push(Line::default());
    }
    let button = |label: &str, on: bool| {
        let style = if on { theme.selected } else { theme.muted };
        Span::styled(format!(" {label} "), style)
    };
    match &c.kind {
        Kind::YesNo { yes } => lines.push(Line::from(vec![
            button("No", !yes),
            Span::raw("  "),
            button("Yes", *yes),
            Span::styled("   y yes · n/Esc no · ←/→ pick · Enter answer", theme.muted),
        ])),
        Kind::Name { expected, typed } => lines.push(Line::from(vec![
            Span::raw(format!("Type “{}” to confirm: ", safe(expected))),
            Span::styled(safe(&typed.with_cursor()), theme.key),
            Span::styled("   Enter confirm · Esc cancel", theme.muted),
        ])),
        Kind::Host { host, typed } => {
            lines.push(Line::from(vec![
                Span::raw(format!("Type “{}” to send: ", safe(host))),
                Span::styled(safe(&typed.with_cursor()), theme.key),
            ]));
            lines.push(Line::from(Span::styled(
                "Enter confirm · Esc back",
                theme.muted,
            )));
        }
        Kind::Hosts {
            hosts,
            count,
            typed,
        } => {
            let prompt = crate::api::recover::confirmation_prompt(hosts, *count);
            lines.push(Line::from(vec![
                Span::raw(safe(prompt.lines().last().unwrap_or_default())),
                Span::styled(safe(&typed.with_cursor()), theme.key),
            ]));
            lines.push(Line::from(Span::styled(
                "Enter confirm · Esc back",
                theme.muted,
            )));
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::keymap::Keymap;
    use crossterm::event::{KeyEvent, KeyModifiers};

    fn key(code: KeyCode) -> Input {
        Keymap::default().input(KeyEvent::new(code, KeyModifiers::NONE))
    }

    #[test]
    fn yes_no_starts_on_no_and_picks() {
        let mut c = Confirm::yes_no("Delete", "Delete it?", Subject::FormWrite);
        assert_eq!(on_key(&mut c, &key(KeyCode::Char('x'))), None);
        assert_eq!(on_key(&mut c, &key(KeyCode::Enter)), Some(Answer::No));
        assert_eq!(on_key(&mut c, &key(KeyCode::Right)), None);
        assert_eq!(on_key(&mut c, &key(KeyCode::Enter)), Some(Answer::Yes));
        assert_eq!(on_key(&mut c, &key(KeyCode::Char('n'))), Some(Answer::No));
        assert_eq!(on_key(&mut c, &key(KeyCode::Char('y'))), Some(Answer::Yes));
    }

    #[test]
    fn typed_answers_edit_and_paste_like_every_input() {
        let mut c = Confirm::name("Remove", "Remove it?", "Ops", Subject::FormWrite);
        c.paste("Op\ns");
        assert_eq!(on_key(&mut c, &key(KeyCode::Enter)), Some(Answer::Yes));
        let mut h = Confirm::host("Send", vec![], "hooks.example", Subject::Replay);
        h.paste("wrong");
        assert_eq!(on_key(&mut h, &key(KeyCode::Enter)), None);
        assert!(h.message.as_deref().is_some_and(|m| m.contains("exactly")));
        let ctrl_u =
            Keymap::default().input(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL));
        assert_eq!(on_key(&mut h, &ctrl_u), None);
        assert_eq!(h.message, None, "an edit clears the message");
        h.paste(" HOOKS.example ");
        assert_eq!(on_key(&mut h, &key(KeyCode::Enter)), Some(Answer::Yes));
    }

    #[test]
    fn hosts_and_count_are_typed_in_any_order() {
        let hosts = vec!["a.example".to_string(), "b.example".to_string()];
        let mut c = Confirm::hosts("Send", hosts, 3, Subject::Recover);
        assert!(
            c.question
                .iter()
                .any(|l| l.contains("a.example, b.example")),
            "{:?}",
            c.question
        );
        c.paste("a.example 3");
        assert_eq!(on_key(&mut c, &key(KeyCode::Enter)), None, "a host missing");
        assert!(c.message.as_deref().is_some_and(|m| m.contains("count")));
        c.paste(", B.example");
        assert_eq!(c.message, None, "an edit clears the message");
        assert_eq!(on_key(&mut c, &key(KeyCode::Enter)), Some(Answer::Yes));
        assert_eq!(on_key(&mut c, &key(KeyCode::Esc)), Some(Answer::No));
        assert!(c.hints().contains(&Hint::Key("Esc", "back")));
    }
}
