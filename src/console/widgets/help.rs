//! The help overlay, drawn from what the room under it declares (`layers::Layer::help`): a
//! title over each group of keys. Nothing is ever cut: descriptions wrap under themselves, and
//! rows flow into side-by-side columns (as few as fit the height). When even the most columns
//! do not fit, the columns scroll together (`j`/`k`, and the bottom line says where).
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use super::centered;
use crate::console::theme::Theme;

/// A group of the help overlay: its title and rows (keys, description).
pub(crate) type HelpGroup = (String, Vec<(String, String)>);

/// Columns tried at most.
const MAX_COLUMNS: usize = 3;
/// Narrowest description column worth wrapping into.
const MIN_DESC: usize = 12;
/// Spaces between the key and its description, and between columns.
const GAP: usize = 2;

/// Words of `text` in lines of at most `width` characters (a longer word is split).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut cur = String::new();
    for word in text.split(' ') {
        let mut word: Vec<char> = word.chars().collect();
        while word.len() > width {
            if !cur.is_empty() {
                lines.push(std::mem::take(&mut cur));
            }
            lines.push(word.drain(..width).collect());
        }
        let word: String = word.into_iter().collect();
        let len = cur.chars().count();
        if len > 0 && len + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(&word);
    }
    if !cur.is_empty() || lines.is_empty() {
        lines.push(cur);
    }
    lines
}

/// A layout that fits: columns, description width, lines per column.
#[derive(Debug, Clone, Copy)]
struct Fit {
    columns: usize,
    desc_w: usize,
    per_column: usize,
}

/// Rows (by their wrapped heights) split into at most `columns` runs of at most `cap` lines.
fn split(heights: &[usize], columns: usize, cap: usize) -> Option<Vec<std::ops::Range<usize>>> {
    let mut runs = Vec::new();
    let (mut start, mut used) = (0, 0);
    for (i, h) in heights.iter().enumerate() {
        if *h > cap {
            return None;
        }
        if used + h > cap {
            runs.push(start..i);
            start = i;
            used = 0;
        }
        used += h;
    }
    runs.push(start..heights.len());
    (runs.len() <= columns).then_some(runs)
}

/// One line of the help: a group's title, or keys and what they do.
struct Row {
    keys: String,
    desc: String,
    title: bool,
}

impl Row {
    /// Lines it takes with descriptions `desc_w` wide (a title spans the key column too).
    fn height(&self, key_w: usize, desc_w: usize) -> usize {
        if self.title {
            wrap(&self.desc, key_w + GAP + desc_w).len()
        } else {
            wrap(&self.desc, desc_w).len()
        }
    }
}

fn choose(rows: &[Row], key_w: usize, width: usize, height: usize) -> Option<Fit> {
    let desc_max = rows
        .iter()
        .filter(|r| !r.title)
        .map(|r| r.desc.chars().count())
        .max()
        .unwrap_or(0);
    for columns in 1..=MAX_COLUMNS {
        let col_w = width.saturating_sub(GAP * (columns - 1)) / columns;
        let desc_w = col_w.saturating_sub(key_w + GAP).min(desc_max.max(1));
        if desc_w < MIN_DESC.min(desc_max) {
            break;
        }
        let heights: Vec<usize> = rows.iter().map(|r| r.height(key_w, desc_w)).collect();
        let total: usize = heights.iter().sum();
        // The shortest columns that hold every row whole.
        let mut cap = total.div_ceil(columns);
        while cap <= height {
            if split(&heights, columns, cap).is_some() {
                return Some(Fit {
                    columns,
                    desc_w,
                    per_column: cap,
                });
            }
            cap += 1;
        }
    }
    None
}

/// When no layout fits the height: the most columns whose descriptions stay readable, each as
/// tall as it must be to hold its rows whole (the box then scrolls).
fn taller(rows: &[Row], key_w: usize, width: usize) -> Fit {
    let desc_max = rows
        .iter()
        .filter(|r| !r.title)
        .map(|r| r.desc.chars().count())
        .max()
        .unwrap_or(0);
    let desc_w_for = |columns: usize| {
        let col_w = width.saturating_sub(GAP * (columns - 1)) / columns;
        col_w
            .saturating_sub(key_w + GAP)
            .min(desc_max.max(1))
            .max(1)
    };
    let columns = (1..=MAX_COLUMNS)
        .rev()
        .find(|c| desc_w_for(*c) >= MIN_DESC.min(desc_max))
        .unwrap_or(1);
    let desc_w = desc_w_for(columns);
    let heights: Vec<usize> = rows.iter().map(|r| r.height(key_w, desc_w)).collect();
    let total: usize = heights.iter().sum();
    let mut per_column = total
        .div_ceil(columns)
        .max(heights.iter().copied().max().unwrap_or(1));
    while split(&heights, columns, per_column).is_none() {
        per_column += 1;
    }
    Fit {
        columns,
        desc_w,
        per_column,
    }
}

/// Where the help goes: its rows, the key column's width, the layout, the columns' runs of
/// rows and the box.
struct Placed {
    rows: Vec<Row>,
    key_w: usize,
    fit: Fit,
    runs: Vec<std::ops::Range<usize>>,
    r: Rect,
}

fn place(area: Rect, groups: &[HelpGroup]) -> Placed {
    let mut rows = Vec::new();
    for (title, keys) in groups {
        rows.push(Row {
            keys: String::new(),
            desc: title.clone(),
            title: true,
        });
        rows.extend(keys.iter().map(|(k, d)| Row {
            keys: k.clone(),
            desc: d.clone(),
            title: false,
        }));
    }
    let key_w = rows
        .iter()
        .map(|r| r.keys.chars().count())
        .max()
        .unwrap_or(0);
    let inner_w = usize::from(area.width.saturating_sub(2));
    let inner_h = usize::from(area.height.saturating_sub(2));
    let fit =
        choose(&rows, key_w, inner_w, inner_h).unwrap_or_else(|| taller(&rows, key_w, inner_w));
    let heights: Vec<usize> = rows.iter().map(|r| r.height(key_w, fit.desc_w)).collect();
    let runs = split(&heights, fit.columns, fit.per_column)
        .unwrap_or_else(|| std::iter::once(0..rows.len()).collect());
    let col_w = key_w + GAP + fit.desc_w;
    let used_columns = runs.len().max(1);
    let box_w = col_w * used_columns + GAP * (used_columns - 1) + 2;
    let box_h = fit.per_column + 2;
    let r = centered(
        area,
        u16::try_from(box_w).unwrap_or(u16::MAX),
        u16::try_from(box_h).unwrap_or(u16::MAX),
    );
    Placed {
        rows,
        key_w,
        fit,
        runs,
        r,
    }
}

/// The furthest the help for `groups` scrolls in `area`: 0 when it fits.
pub(crate) fn max_scroll(area: Rect, groups: &[HelpGroup]) -> u16 {
    let p = place(area, groups);
    let shown_h = usize::from(p.r.height.saturating_sub(2));
    u16::try_from(p.fit.per_column.saturating_sub(shown_h)).unwrap_or(u16::MAX)
}

/// Draws the help box for `groups` centred in `area`, its columns scrolled by `scroll` lines
/// when they are taller than the screen.
pub(crate) fn render(
    frame: &mut Frame,
    area: Rect,
    groups: &[HelpGroup],
    scroll: u16,
    theme: &Theme,
) {
    let Placed {
        rows,
        key_w,
        fit,
        runs,
        r,
    } = place(area, groups);
    let col_w = key_w + GAP + fit.desc_w;
    // Scrolled no further than the last line reaching the bottom.
    let shown_h = usize::from(r.height.saturating_sub(2));
    let first = usize::from(scroll).min(fit.per_column.saturating_sub(shown_h));
    // The longest telling that fits the bottom border.
    let range = format!("{}–{} of {}", first + 1, first + shown_h, fit.per_column);
    let tellings = if fit.per_column > shown_h {
        vec![
            format!(" j/k scroll · {range} · ? or Esc to close "),
            format!(" j/k · {range} · Esc "),
            format!(" {range} "),
        ]
    } else {
        vec![
            " ? or Esc to close · / filters · Ctrl-P every action ".to_string(),
            " ? or Esc to close ".to_string(),
            " Esc ".to_string(),
        ]
    };
    let room = usize::from(r.width.saturating_sub(2));
    let where_ = tellings
        .iter()
        .find(|t| t.chars().count() <= room)
        .or(tellings.last())
        .cloned()
        .unwrap_or_default();
    let block = Block::bordered()
        .title(Line::from(Span::styled(" Keys ", theme.accent)))
        .title_bottom(Line::from(Span::styled(where_, theme.muted)));
    let inner = block.inner(r);
    frame.render_widget(Clear, r);
    frame.render_widget(block, r);
    for (n, run) in runs.into_iter().enumerate() {
        let mut lines = Vec::new();
        for row in rows.get(run).unwrap_or_default() {
            if row.title {
                let title = wrap(&row.desc, col_w);
                lines.extend(title.into_iter().map(|t| Line::styled(t, theme.accent)));
                continue;
            }
            for (i, part) in wrap(&row.desc, fit.desc_w).into_iter().enumerate() {
                let key = if i == 0 { row.keys.as_str() } else { "" };
                lines.push(Line::from(vec![
                    Span::styled(format!("{key:<key_w$}"), theme.key),
                    Span::raw(" ".repeat(GAP)),
                    Span::raw(part),
                ]));
            }
        }
        let x = usize::from(inner.x) + n * (col_w + GAP);
        let slot = Rect::new(
            u16::try_from(x).unwrap_or(u16::MAX),
            inner.y,
            u16::try_from(col_w).unwrap_or(u16::MAX),
            inner.height,
        )
        .intersection(inner);
        frame.render_widget(
            Paragraph::new(lines).scroll((u16::try_from(first).unwrap_or(u16::MAX), 0)),
            slot,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_keeps_every_word_and_the_width() {
        let lines = wrap("command line (:teams, :goto ID, :profile NAME, :q)", 14);
        assert!(lines.iter().all(|l| l.chars().count() <= 14), "{lines:?}");
        assert_eq!(
            lines.join(" "),
            "command line (:teams, :goto ID, :profile NAME, :q)"
        );
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
    }
}
