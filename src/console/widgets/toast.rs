//! Toasts: short messages at the right end of the footer line that clear themselves on the
//! clock (see `update`'s tick), side by side, the newest rightmost; a message said again while
//! it shows is not shown twice but afresh.
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::{Clear, Paragraph};

use crate::console::state::{Toast, ToastKind};
use crate::console::theme::Theme;

/// Columns between two toasts.
const GAP: usize = 1;
/// Fewest columns a toast is drawn in beside a prompt.
const MIN_BESIDE: u16 = 12;
/// The toasts that fit in `max` columns, newest last (it is drawn rightmost), each as its text
/// and kind: the newest always (cut with `…` when it alone is too long), then older ones while
/// they fit whole; the oldest left out are counted on the leftmost (`+1 more`, the newest
/// cut to leave room for it).
fn shown(toasts: &[Toast], max: usize) -> Vec<(String, ToastKind)> {
    // Toasts often quote a server's error message.
    let text = |t: &Toast| format!(" {} ", crate::text::line(&t.text));
    let Some(newest) = toasts.last() else {
        return Vec::new();
    };
    let newest_w = crate::resource::display_width(&text(newest));
    let older = toasts.len() - 1;
    // Alone it does not fit beside the count of the others: cut it so that the count shows.
    let reserve = if older > 0 && newest_w + more(older).len() > max {
        more(older).len()
    } else {
        0
    };
    let mut out = vec![(
        format!(
            " {} ",
            crate::resource::cut(
                &crate::text::line(&newest.text),
                max.saturating_sub(2 + reserve)
            )
        ),
        newest.kind,
    )];
    let mut used = crate::resource::display_width(&out[0].0);
    for t in toasts.iter().rev().skip(1) {
        let s = text(t);
        let w = crate::resource::display_width(&s) + GAP;
        if used + w > max {
            break;
        }
        used += w;
        out.insert(0, (s, t.kind));
    }
    let left_out = toasts.len() - out.len();
    if left_out > 0 {
        let more = more(left_out);
        if used + more.len() <= max {
            out[0].0.insert_str(0, &more);
        }
    }
    out
}

/// The count of the toasts left out, said in words.
fn more(n: usize) -> String {
    format!(" +{n} more")
}

/// Columns the toasts take at the right end of a footer `width` wide (0 when there is none).
pub(crate) fn width(toasts: &[Toast], width: u16) -> u16 {
    let shown = shown(toasts, usize::from(width));
    let w: usize = shown
        .iter()
        .map(|(s, _)| crate::resource::display_width(s) + GAP)
        .sum();
    u16::try_from(w.saturating_sub(GAP)).unwrap_or(width)
}

/// Draws the toasts right-aligned in the one-line `area`, right of its first `used` columns (a
/// prompt's text there stays; the toasts wait when they do not fit beside it).
pub(crate) fn render(frame: &mut Frame, area: Rect, used: u16, toasts: &[Toast], theme: &Theme) {
    let room = if used > 0 {
        area.width.saturating_sub(used + 2)
    } else {
        area.width
    };
    // Too little room beside a prompt to say anything readable.
    if used > 0 && room < MIN_BESIDE {
        return;
    }
    let mut right = area.right();
    for (text, kind) in shown(toasts, usize::from(room)).into_iter().rev() {
        let w = u16::try_from(crate::resource::display_width(&text)).unwrap_or(room);
        let r = Rect::new(right.saturating_sub(w), area.y, w, 1);
        let style = match kind {
            ToastKind::Info => theme.selected,
            ToastKind::Error => theme.error.add_modifier(ratatui::style::Modifier::REVERSED),
        };
        frame.render_widget(Clear, r);
        frame.render_widget(Paragraph::new(Span::styled(text, style)), r);
        right = r.x.saturating_sub(GAP as u16);
    }
}
