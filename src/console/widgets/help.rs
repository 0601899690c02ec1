//! The help overlay, drawn from what the room under it declares (`layers::Layer::help`): a
//! title over each group of keys. Nothing is ever cut: descriptions wrap under themselves, and
//! rows flow into side-by-side columns (as few as fit the height).
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use super::centered;
use crate::console::layers::HelpGroup;
use crate::console::theme::Theme;

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

/// Draws the help box for `groups` centred in `area`.
pub(crate) fn render(frame: &mut Frame, area: Rect, groups: &[HelpGroup], theme: &Theme) {
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
    // Too small for everything whole: the most columns, cut at the bottom (the console needs
    // 80×24, where everything fits).
    let fit = choose(&rows, key_w, inner_w, inner_h).unwrap_or(Fit {
        columns: MAX_COLUMNS,
        desc_w: inner_w.saturating_sub(GAP * (MAX_COLUMNS - 1)) / MAX_COLUMNS,
        per_column: inner_h,
    });
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
    let block = Block::bordered()
        .title(Line::from(Span::styled(" Keys ", theme.accent)))
        .title_bottom(Line::from(Span::styled(" ? or Esc to close ", theme.muted)));
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
        frame.render_widget(Paragraph::new(lines), slot);
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
