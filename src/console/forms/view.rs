//! Draws a form dialog: labelled fields (required ones starred), each field's problem or note
//! beside it, pickers with their items, the server's message, and the keys.
use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use crate::console::forms::field::{Field, FieldKind};
use crate::console::forms::picker::{Items, Picker};
use crate::console::forms::{Dialog, Phase};
use crate::console::theme::Theme;
use crate::console::widgets::centered;
use tui_input::Input;

/// Width of the label column (at least: a longer label widens it for its form).
const LABEL: usize = 14;

/// The label column of `d`: [`LABEL`], or wider when a label and its star would touch (a
/// starred `Access token` keeps a space before its star and one after).
fn label_w(d: &Dialog) -> usize {
    d.fields
        .iter()
        .map(|f| f.label.chars().count() + 3)
        .fold(LABEL, usize::max)
}
/// Column (after the label) where a field's message starts when it fits beside the value.
const VALUE: usize = 30;
/// Picker rows shown at once.
const PICKER_ROWS: usize = 6;

/// A form laid out: its box, its lines (one screen row each) and where things are on them.
struct Laid {
    rect: Rect,
    lines: Vec<Line<'static>>,
    /// Lines scrolled off the top.
    scroll: usize,
    /// Each field's first line and one past its last.
    fields: Vec<(usize, usize)>,
    /// The line with the keys.
    footer: usize,
    /// The cursor's line and column, when the focused field has one.
    cursor: Option<(usize, u16)>,
}

/// What a click on a form hits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FormHit {
    /// A field (for a choice, the option under the pointer too).
    Field(usize, Option<usize>),
    /// The save key in the footer.
    Save,
    /// The cancel key in the footer.
    Cancel,
}

/// The footer's keys: what is shown, and what a click on each does.
const FOOTER_KEYS: &[(&str, &str, Option<FormHit>)] = &[
    ("Tab", "next", None),
    ("Shift-Tab", "back", None),
    ("Ctrl-S", "save", Some(FormHit::Save)),
    ("Esc", "cancel", Some(FormHit::Cancel)),
];

fn lay_out(area: Rect, d: &Dialog, theme: &Theme) -> Laid {
    let width = area.width.saturating_sub(4).min(90);
    let inner_w = usize::from(width.saturating_sub(2));
    let mut lines: Vec<Line<'static>> = Vec::new();
    let mut fields = Vec::with_capacity(d.fields.len());
    // The focused field's lines (its picker's included), kept in view.
    let mut focus_lines = (0, 0);
    let mut cursor: Option<(usize, u16)> = None;
    for (i, f) in d.fields.iter().enumerate() {
        let focused = i == d.focus && d.phase == Phase::Editing;
        let start = lines.len();
        let (first, col) = field_lines(f, focused, inner_w, label_w(d), theme, &mut lines);
        fields.push((start, lines.len()));
        if focused {
            focus_lines = (start, lines.len());
        }
        if focused && let Some(col) = col {
            cursor = Some((first, col));
        }
    }
    lines.push(Line::default());
    if let Some(m) = &d.message {
        // Wrapped here, not by the paragraph, so that a line is a screen row for the mouse.
        for chunk in wrap(m, inner_w) {
            lines.push(Line::from(Span::styled(chunk, theme.error)));
        }
    }
    let footer = lines.len();
    lines.push(footer_line(d, inner_w, theme));
    let wanted = u16::try_from(lines.len() + 2).unwrap_or(u16::MAX);
    let rect = centered(area, width, wanted);
    let inner_h = usize::from(rect.height.saturating_sub(2));
    // Taller than the screen, the form scrolls: as little as shows the whole focused field
    // (with the message and keys after the last one), its first line first when it cannot all
    // show.
    let (start, mut end) = focus_lines;
    if d.focus + 1 >= d.fields.len() {
        end = lines.len();
    }
    let scroll = end.saturating_sub(inner_h).min(start);
    let scroll = scroll.min(lines.len().saturating_sub(inner_h));
    Laid {
        rect,
        lines,
        scroll,
        fields,
        footer,
        cursor,
    }
}

/// `text` cut into lines of at most `w` characters, at spaces where it can be.
fn wrap(text: &str, w: usize) -> Vec<String> {
    let w = w.max(1);
    let mut out = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let len = line.chars().count();
        if len > 0 && len + 1 + word.chars().count() > w {
            out.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
        while line.chars().count() > w {
            let rest: String = line.chars().skip(w).collect();
            out.push(line.chars().take(w).collect());
            line = rest;
        }
    }
    out.push(line);
    out
}

/// Draws the dialog centred in `area`.
pub(crate) fn render(frame: &mut Frame, area: Rect, d: &Dialog, theme: &Theme) {
    if d.fields.is_empty() {
        // While asked, the confirmation layer draws the question.
        if d.phase != Phase::Confirm {
            render_confirm(frame, area, d, theme);
        }
        return;
    }
    let Laid {
        rect: r,
        lines,
        scroll,
        cursor,
        ..
    } = lay_out(area, d, theme);
    let inner_h = usize::from(r.height.saturating_sub(2));
    let title = Line::from(Span::styled(
        format!(" {} ", crate::text::line(&d.title)),
        theme.accent,
    ));
    let mut block = Block::bordered().title(title);
    // A form taller than the screen says that more is above or below.
    if scroll > 0 {
        block = block.title(Line::from(Span::styled(" ↑ more ", theme.muted)).right_aligned());
    }
    if scroll + inner_h < lines.len() {
        block =
            block.title_bottom(Line::from(Span::styled(" ↓ more ", theme.muted)).right_aligned());
    }
    frame.render_widget(Clear, r);
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .scroll((u16::try_from(scroll).unwrap_or(0), 0)),
        r,
    );
    if let Some((line, col)) = cursor
        && line >= scroll
        && line - scroll < inner_h
    {
        let y = r.y + 1 + u16::try_from(line - scroll).unwrap_or(0);
        frame.set_cursor_position(Position::new(r.x + 1 + col, y));
    }
    if d.phase == Phase::Discard {
        super::confirm::ask(frame, area, "Discard what you typed?", theme);
    }
}

/// What is under `at` in a form being edited in `area`, if anything that answers a click.
pub(crate) fn hit(area: Rect, d: &Dialog, theme: &Theme, at: Position) -> Option<FormHit> {
    if d.fields.is_empty() || d.phase != Phase::Editing {
        return None;
    }
    let laid = lay_out(area, d, theme);
    let r = laid.rect;
    let inner = Rect::new(
        r.x + 1,
        r.y + 1,
        r.width.saturating_sub(2),
        r.height.saturating_sub(2),
    );
    if !inner.contains(at) {
        return None;
    }
    let line = laid.scroll + usize::from(at.y - inner.y);
    let col = usize::from(at.x - inner.x);
    if line == laid.footer {
        let mut x = 0;
        for (k, w, what) in footer_keys(usize::from(inner.width)) {
            let width = k.chars().count() + 1 + w.chars().count();
            if (x..x + width).contains(&col) {
                return *what;
            }
            x += width + 2;
        }
        return None;
    }
    let i = laid
        .fields
        .iter()
        .position(|(a, b)| (*a..*b).contains(&line))?;
    let option = match &d.fields[i].kind {
        FieldKind::Choice { options, .. } => {
            let row = line - laid.fields[i].0;
            choice_spots(options, usize::from(inner.width), label_w(d))
                .iter()
                .position(|&(r, x, w)| r == row && (x..x + w).contains(&col))
        }
        _ => None,
    };
    Some(FormHit::Field(i, option))
}

/// A dialog's confirmation step (or a dialog that is only a confirmation).
fn render_confirm(frame: &mut Frame, area: Rect, d: &Dialog, theme: &Theme) {
    super::confirm::render(frame, area, d, theme);
}

/// The keys the dialog takes where it is, for the screen's footer.
pub(crate) fn key_hints(d: &Dialog) -> &'static [(&'static str, &'static str)] {
    match d.phase {
        Phase::Editing => &[
            ("Tab", "next"),
            ("Shift-Tab", "back"),
            ("Ctrl-S", "save"),
            ("Esc", "cancel"),
        ],
        Phase::Discard => &[("y", "discard"), ("n/Esc", "keep editing")],
        // The confirmation layer above declares its own.
        Phase::Confirm => &[],
        Phase::Submitting(_) => &[("", "saving…")],
    }
}

/// The footer's keys that fit in `inner_w`: `Shift-Tab back` goes first on a narrow form.
fn footer_keys(
    inner_w: usize,
) -> impl Iterator<Item = &'static (&'static str, &'static str, Option<FormHit>)> {
    let all: usize = FOOTER_KEYS
        .iter()
        .map(|(k, w, _)| k.chars().count() + w.chars().count() + 3)
        .sum();
    let narrow = all > inner_w;
    FOOTER_KEYS
        .iter()
        .filter(move |(k, _, _)| !(narrow && *k == "Shift-Tab"))
}

fn footer_line(d: &Dialog, inner_w: usize, theme: &Theme) -> Line<'static> {
    if let Phase::Submitting(_) = d.phase {
        return Line::from(Span::styled(" Saving…  ", theme.muted));
    }
    let mut spans = Vec::new();
    for (k, w, _) in footer_keys(inner_w) {
        spans.push(Span::styled(k.to_string(), theme.key));
        spans.push(Span::styled(format!(" {w}  "), theme.muted));
    }
    Line::from(spans)
}

/// The text of a one-line input that fits in `w`, and the cursor column within it. Focused, the
/// part around the cursor shows; otherwise the start (cut with `…`), so that a long value is
/// recognised by its beginning.
fn visible(input: &Input, masked: bool, w: usize, focused: bool) -> (String, usize) {
    let text: String = if masked {
        "•".repeat(input.value().chars().count())
    } else {
        input.value().to_string()
    };
    if !focused {
        return (crate::resource::cut(&text, w), 0);
    }
    let scroll = input.visual_scroll(w);
    let shown: String = text.chars().skip(scroll).take(w).collect();
    (shown, input.visual_cursor().saturating_sub(scroll))
}

/// Appends a field's lines; returns the index of the cursor's line and its column there.
fn field_lines(
    f: &Field,
    focused: bool,
    inner_w: usize,
    lw: usize,
    theme: &Theme,
    out: &mut Vec<Line<'static>>,
) -> (usize, Option<u16>) {
    let first = out.len();
    let star = if f.required { "*" } else { " " };
    let label_style = if focused { theme.accent } else { theme.muted };
    let label = Span::styled(format!("{:<w$}{star} ", f.label, w = lw - 2), label_style);
    let value_style = theme.text;
    // The value takes the rest of the line; a message goes under it when it does not fit.
    let value_w = inner_w.saturating_sub(lw + 1).max(1);
    let mut cursor = None;
    // Rows below the field's first line where the cursor sits (the typed line of a lines field).
    let mut cursor_row = 0;
    let mut value: Vec<Span<'static>> = Vec::new();
    let mut extra: Vec<Line<'static>> = Vec::new();
    let mut under_first: Vec<Line<'static>> = Vec::new();
    match &f.kind {
        FieldKind::Text { input, masked } => {
            let (text, col) = visible(input, *masked, value_w, focused);
            cursor = Some(col);
            value.push(Span::styled(text, value_style));
        }
        FieldKind::Lines { done, input } => {
            // Finished lines first, then the line being typed.
            let mut rows: Vec<String> = done
                .iter()
                .map(|l| crate::resource::cut(l, value_w))
                .collect();
            let (text, col) = visible(input, false, value_w, focused);
            rows.push(text);
            let last = rows.len().saturating_sub(1);
            for (i, row) in rows.into_iter().enumerate() {
                if i == 0 {
                    value.push(Span::raw(row));
                } else {
                    extra.push(Line::from(vec![Span::raw(" ".repeat(lw)), Span::raw(row)]));
                }
            }
            cursor = Some(col);
            cursor_row = last;
        }
        FieldKind::Choice { options, index } => {
            let spots = choice_spots(options, inner_w, lw);
            for (i, (o, (row, x, _))) in options.iter().zip(spots).enumerate() {
                let mark = if i == *index { "(•) " } else { "( ) " };
                let style = if i == *index { theme.text } else { theme.muted };
                let span = Span::styled(format!("{mark}{o}  "), style);
                if row == 0 {
                    value.push(span);
                } else {
                    // Options that do not fit go on rows of their own, right under the first.
                    if under_first.len() < row {
                        under_first.push(Line::from(Span::raw(" ".repeat(x))));
                    }
                    if let Some(l) = under_first.last_mut() {
                        l.spans.push(span);
                    }
                }
            }
        }
        FieldKind::Picker(p) => {
            let (text, col) = visible(&p.search, false, value_w, focused);
            cursor = Some(col);
            if text.is_empty() && !focused {
                value.push(Span::styled(picker_summary(p), theme.text));
            } else {
                value.push(Span::styled(text, value_style));
            }
            picker_rows(p, focused, inner_w, lw, theme, &mut extra);
        }
    }
    let used: usize = lw
        + value
            .iter()
            .map(|s| s.content.chars().count())
            .sum::<usize>();
    let pad = VALUE.saturating_add(lw).saturating_sub(used).max(1);
    let msg = match (&f.error, &f.note) {
        (Some(e), _) => Some(Span::styled(format!("✗ {e}"), theme.error)),
        (None, Some(n)) => Some(Span::styled(n.clone(), theme.muted)),
        _ => None,
    };
    let mut spans = vec![label];
    spans.extend(value);
    match msg {
        Some(m) if used + pad + m.content.chars().count() <= inner_w => {
            spans.push(Span::raw(" ".repeat(pad)));
            spans.push(m);
            out.push(Line::from(spans));
            out.extend(under_first);
        }
        Some(m) => {
            // On lines of its own under the value, wrapped: a server's message can be long.
            out.push(Line::from(spans));
            out.extend(under_first);
            let style = m.style;
            let below = wrap(&m.content, inner_w.saturating_sub(lw));
            if cursor_row > 0 {
                cursor_row += below.len();
            }
            out.extend(below.into_iter().map(|chunk| {
                Line::from(vec![Span::raw(" ".repeat(lw)), Span::styled(chunk, style)])
            }));
        }
        None => {
            out.push(Line::from(spans));
            out.extend(under_first);
        }
    }
    out.extend(extra);
    let col = cursor.map(|c| u16::try_from(lw + c).unwrap_or(0));
    (first + cursor_row, col)
}

/// Where each option of a choice is drawn as `( ) name  `: (row under the field's first line,
/// column, width). Options go on one row while they fit in `inner_w`, then on the next.
fn choice_spots(options: &[&str], inner_w: usize, lw: usize) -> Vec<(usize, usize, usize)> {
    let (mut row, mut x) = (0, lw);
    options
        .iter()
        .map(|o| {
            let w = 4 + o.chars().count() + 2;
            // The two trailing spaces may pass the edge.
            if x > lw && x + w - 2 > inner_w {
                row += 1;
                // Under the label when too long for the value column.
                x = lw.min((inner_w + 2).saturating_sub(w));
            }
            let spot = (row, x, w);
            x += w;
            spot
        })
        .collect()
}

fn picker_summary(p: &Picker) -> String {
    if p.multi {
        let chosen: Vec<&str> = p
            .chosen
            .iter()
            .map(|id| p.label_of(id).unwrap_or(id))
            .collect();
        if chosen.is_empty() {
            "none chosen".into()
        } else {
            chosen.join(", ")
        }
    } else {
        match p.value() {
            Some(id) => p.label_of(&id).map(str::to_string).unwrap_or(id),
            None => "none".into(),
        }
    }
}

fn picker_rows(
    p: &Picker,
    focused: bool,
    inner_w: usize,
    lw: usize,
    theme: &Theme,
    out: &mut Vec<Line<'static>>,
) {
    let indent = Span::raw(" ".repeat(lw));
    match &p.items {
        Items::Loading => out.push(Line::from(vec![
            indent,
            Span::styled("loading…", theme.muted),
        ])),
        Items::Typed(reason) => out.extend(
            wrap(reason, inner_w.saturating_sub(lw))
                .into_iter()
                .map(|chunk| Line::from(vec![indent.clone(), Span::styled(chunk, theme.warn)])),
        ),
        Items::Ready(_) if !focused => {}
        Items::Ready(_) => {
            let items = p.filtered();
            if items.is_empty() {
                out.push(Line::from(vec![
                    indent,
                    Span::styled("no match: the typed text is used as the id", theme.muted),
                ]));
                return;
            }
            let start = p.cursor.saturating_sub(PICKER_ROWS - 1);
            for (i, item) in items.iter().enumerate().skip(start).take(PICKER_ROWS) {
                let here = i == p.cursor;
                let mark = match (p.multi, p.chosen.contains(&item.id)) {
                    (true, true) => "[x] ",
                    (true, false) => "[ ] ",
                    (false, _) if here => "(•) ",
                    (false, _) => "( ) ",
                };
                let style: Style = if here { theme.selected } else { theme.text };
                let text = format!("{mark}{}", item.label);
                let room = inner_w.saturating_sub(lw + text.chars().count() + 2);
                let detail: String = item.detail.chars().take(room).collect();
                out.push(Line::from(vec![
                    indent.clone(),
                    Span::styled(text, style),
                    Span::styled(format!("  {detail}"), theme.muted),
                ]));
            }
            if items.len() > start + PICKER_ROWS {
                out.push(Line::from(vec![
                    indent,
                    Span::styled(
                        format!("… {} more", items.len() - start - PICKER_ROWS),
                        theme.muted,
                    ),
                ]));
            }
        }
    }
}
