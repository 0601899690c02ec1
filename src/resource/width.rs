//! Widths on a terminal: display width (CJK takes 2 columns, combining marks 0), cutting with
//! `…`, padding, and how a row's width is shared among a description's columns.
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// The sign that a cell was cut.
pub const ELLIPSIS: char = '…';

/// How many terminal columns `s` takes.
pub fn display_width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// `s` in at most `max` columns: whole when it fits, else cut with `…` at the end (a wide
/// character that would straddle the edge is left out whole). Combining marks stay with their
/// base character.
pub fn cut(s: &str, max: usize) -> String {
    if display_width(s) <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let room = max - 1;
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > room {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push(ELLIPSIS);
    out
}

/// An `http(s)` URL in at most `max` columns: whole when it fits, else cut in the middle,
/// keeping its host:port and the tail of its path (`127.0.0.1:4100…/issue-triage`): on a list
/// of one service's URLs the shared prefix tells none apart. `None` when `s` is not such a URL
/// or its host alone does not leave room for a tail.
pub fn cut_url(s: &str, max: usize) -> Option<String> {
    if display_width(s) <= max {
        return Some(s.to_string());
    }
    let rest = s
        .strip_prefix("http://")
        .or_else(|| s.strip_prefix("https://"))?;
    let (host, path) = rest.split_at(rest.find('/')?);
    let host_w = display_width(host);
    // At least a few characters of the path's tail, or the cut says nothing distinct.
    let room = max.checked_sub(host_w + 1).filter(|r| *r >= 4)?;
    let mut tail: Vec<char> = Vec::new();
    let mut used = 0;
    for c in path.chars().rev() {
        let w = UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > room {
            break;
        }
        used += w;
        tail.push(c);
    }
    tail.reverse();
    let mut out = host.to_string();
    out.push(ELLIPSIS);
    out.extend(tail);
    Some(out)
}

/// `s` cut to `width` columns and padded with spaces to exactly `width`.
pub fn fit(s: &str, width: usize) -> String {
    let mut out = cut(s, width);
    let w = display_width(&out);
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(w)));
    out
}

/// A column's width rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Width {
    /// Narrowest it is drawn.
    pub min: u16,
    /// Widest it is drawn: beyond this a cell is cut even when there is room.
    pub natural: u16,
    /// Among optional columns, lower comes first; among kept ones, the order they grow in.
    pub priority: u8,
    /// May be left out when there is no room.
    pub droppable: bool,
    /// Names the row (a name, an event type, a destination): grows to fit first.
    pub identifying: bool,
}

impl Width {
    /// Always shown, always this wide (a status word, a count, a relative time).
    pub const fn fixed(n: u16) -> Self {
        Self {
            min: n,
            natural: n,
            priority: 0,
            droppable: false,
            identifying: false,
        }
    }

    /// Names the row: always shown, as wide as its text up to `natural`, before any other grows.
    pub const fn identifying(min: u16, natural: u16) -> Self {
        Self {
            min,
            natural,
            priority: 0,
            droppable: false,
            identifying: true,
        }
    }

    /// Always shown, grows after the identifying columns.
    pub const fn flexible(min: u16, natural: u16) -> Self {
        Self {
            min,
            natural,
            priority: 1,
            droppable: false,
            identifying: false,
        }
    }

    /// Shown only once every kept column fits: `priority` orders the optional columns.
    pub const fn optional(self, priority: u8) -> Self {
        Self {
            priority,
            droppable: true,
            identifying: false,
            ..self
        }
    }
}

/// Shares `total` columns among columns with these rules, `gap` columns between two shown ones.
/// `content[i]` is how wide column `i`'s widest cell (or title) is. Returns each column's width,
/// 0 for a column left out.
///
/// 1. Every kept (not droppable) column gets its minimum.
/// 2. The identifying ones grow to their content (up to `natural`), then the other kept ones.
/// 3. Only then optional columns are added, in priority order, each as wide as its content
///    (at least its minimum); the first that does not fit at its minimum ends the adding, and
///    the last one added takes what is left.
///
/// Each column's width only grows with `total`, so a wider terminal never shows a shorter cut of
/// the same cell, and no optional column takes room an identifying one needs.
pub fn allocate(rules: &[Width], content: &[u16], total: u16, gap: u16) -> Vec<u16> {
    let want: Vec<u16> = rules
        .iter()
        .enumerate()
        .map(|(i, r)| {
            content
                .get(i)
                .copied()
                .unwrap_or(r.min)
                .clamp(r.min, r.natural.max(r.min))
        })
        .collect();
    let mut widths = vec![0u16; rules.len()];
    let kept: Vec<usize> = (0..rules.len()).filter(|&i| !rules[i].droppable).collect();
    let gaps = |n: usize| gap.saturating_mul(u16::try_from(n.saturating_sub(1)).unwrap_or(0));
    let mut used = gaps(kept.len());
    for &i in &kept {
        widths[i] = rules[i].min;
        used = used.saturating_add(rules[i].min);
    }
    let mut left = total.saturating_sub(used);
    let mut grow_order = kept.clone();
    grow_order.sort_by_key(|&i| (!rules[i].identifying, rules[i].priority, i));
    for &i in &grow_order {
        let more = want[i].saturating_sub(widths[i]).min(left);
        widths[i] += more;
        left -= more;
    }
    let all_full = kept.iter().all(|&i| widths[i] >= want[i]);
    if !all_full {
        return widths;
    }
    let mut optional: Vec<usize> = (0..rules.len()).filter(|&i| rules[i].droppable).collect();
    optional.sort_by_key(|&i| (rules[i].priority, i));
    for (shown, i) in (kept.len()..).zip(optional) {
        let sep = if shown == 0 { 0 } else { gap };
        let need = rules[i].min.saturating_add(sep);
        if need > left {
            break;
        }
        let w = want[i].min(left - sep);
        widths[i] = w;
        left -= w + sep;
        if w < want[i] {
            break;
        }
    }
    widths
}

/// Shares `total` columns among columns with these rules from the rules alone (the console's
/// notifications list): which columns show and how wide they are depend on `total` only, never on
/// the rows' text, so nothing moves while scrolling or paging, and a wider terminal never shows
/// less of a cell.
///
/// 1. Every kept column gets its minimum; when even the minimums do not fit, the kept columns
///    that do not name the row are left out from the last one, and nothing grows.
/// 2. The identifying columns grow together, one column each in turn, up to `natural`; then the
///    other kept ones, in priority order.
/// 3. Then optional columns are added as in [`allocate`], each as wide as its `natural`.
pub fn allocate_stable(rules: &[Width], total: u16, gap: u16) -> Vec<u16> {
    let want: Vec<u16> = rules.iter().map(|r| r.natural.max(r.min)).collect();
    let mut widths = vec![0u16; rules.len()];
    let mut kept: Vec<usize> = (0..rules.len()).filter(|&i| !rules[i].droppable).collect();
    let need = |kept: &[usize]| {
        let gaps = gap.saturating_mul(u16::try_from(kept.len().saturating_sub(1)).unwrap_or(0));
        kept.iter()
            .fold(gaps, |sum, &i| sum.saturating_add(rules[i].min))
    };
    if need(&kept) > total {
        // Too narrow for every minimum: the row's names stay, other columns go from the end.
        while need(&kept) > total {
            let Some(pos) = kept.iter().rposition(|&i| !rules[i].identifying) else {
                break;
            };
            kept.remove(pos);
        }
        for &i in &kept {
            widths[i] = rules[i].min;
        }
        return widths;
    }
    let mut left = total - need(&kept);
    for &i in &kept {
        widths[i] = rules[i].min;
    }
    let identifying: Vec<usize> = kept
        .iter()
        .copied()
        .filter(|&i| rules[i].identifying)
        .collect();
    // Fair shares: a long event type does not starve the destination beside it.
    while left > 0 {
        let mut grew = false;
        for &i in &identifying {
            if left > 0 && widths[i] < want[i] {
                widths[i] += 1;
                left -= 1;
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    let mut others: Vec<usize> = kept
        .iter()
        .copied()
        .filter(|&i| !rules[i].identifying)
        .collect();
    others.sort_by_key(|&i| (rules[i].priority, i));
    for &i in &others {
        let more = want[i].saturating_sub(widths[i]).min(left);
        widths[i] += more;
        left -= more;
    }
    if kept.iter().any(|&i| widths[i] < want[i]) {
        return widths;
    }
    let mut optional: Vec<usize> = (0..rules.len()).filter(|&i| rules[i].droppable).collect();
    optional.sort_by_key(|&i| (rules[i].priority, i));
    for (shown, i) in (kept.len()..).zip(optional) {
        let sep = if shown == 0 { 0 } else { gap };
        let need = rules[i].min.saturating_add(sep);
        if need > left {
            break;
        }
        let w = want[i].min(left - sep);
        widths[i] = w;
        left -= w + sep;
        if w < want[i] {
            break;
        }
    }
    widths
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn cut_counts_columns_not_characters() {
        let wide = "漢字".repeat(40);
        let c = cut(&wide, 60);
        assert!(display_width(&c) <= 60, "{}", display_width(&c));
        assert!(c.ends_with(ELLIPSIS));
        assert_eq!(cut("ok", 5), "ok");
        assert_eq!(cut("abcdef", 4), "abc…");
        // A combining mark takes no column and stays with its letter.
        assert_eq!(display_width("e\u{301}te\u{301}"), 3);
        assert_eq!(fit("e\u{301}", 3), "e\u{301}  ");
        assert_eq!(fit("漢", 3), "漢 ");
        assert_eq!(cut("漢字", 2), "…");
    }

    fn rule() -> impl Strategy<Value = Width> {
        (1u16..20, 0u16..60, 0u8..4, any::<bool>(), any::<bool>()).prop_map(
            |(min, extra, priority, droppable, identifying)| Width {
                min,
                natural: min + extra,
                priority,
                droppable,
                identifying: identifying && !droppable,
            },
        )
    }

    proptest! {
        /// From 40 to 250 columns, no column ever gets narrower as the terminal widens.
        #[test]
        fn widths_never_shrink_as_the_terminal_widens(
            cols in prop::collection::vec((rule(), 0u16..80), 1..10),
        ) {
            let (rules, content): (Vec<Width>, Vec<u16>) = cols.into_iter().unzip();
            let mut before = allocate(&rules, &content, 40, 1);
            for total in 41..=250 {
                let now = allocate(&rules, &content, total, 1);
                for (i, (a, b)) in before.iter().zip(&now).enumerate() {
                    prop_assert!(b >= a, "column {i} shrank {a} → {b} at {total}");
                }
                let used: u16 = now.iter().sum::<u16>()
                    + now.iter().filter(|w| **w > 0).count().saturating_sub(1) as u16;
                let floor: u16 = rules.iter().filter(|r| !r.droppable).map(|r| r.min).sum::<u16>()
                    + rules.iter().filter(|r| !r.droppable).count().saturating_sub(1) as u16;
                prop_assert!(used <= total.max(floor), "{used} > {total}");
                before = now;
            }
        }

        /// Stable widths: none shrinks as the terminal widens, and they never overflow once the
        /// minimums fit.
        #[test]
        fn stable_widths_never_shrink_as_the_terminal_widens(
            rules in prop::collection::vec(rule(), 1..10),
        ) {
            let mut before = allocate_stable(&rules, 20, 1);
            for total in 21..=250 {
                let now = allocate_stable(&rules, total, 1);
                for (i, (a, b)) in before.iter().zip(&now).enumerate() {
                    prop_assert!(b >= a, "column {i} shrank {a} → {b} at {total}");
                }
                let used: u16 = now.iter().sum::<u16>()
                    + now.iter().filter(|w| **w > 0).count().saturating_sub(1) as u16;
                let floor: u16 = rules.iter().filter(|r| r.identifying).map(|r| r.min + 1).sum();
                prop_assert!(used <= total.max(floor), "{used} > {total}");
                before = now;
            }
        }

        /// An optional column is shown only once every identifying column has its full width.
        #[test]
        fn optional_columns_wait_for_identifying_ones(
            cols in prop::collection::vec((rule(), 0u16..80), 1..10),
            total in 40u16..250,
        ) {
            let (rules, content): (Vec<Width>, Vec<u16>) = cols.into_iter().unzip();
            let w = allocate(&rules, &content, total, 1);
            let any_optional = rules.iter().zip(&w).any(|(r, w)| r.droppable && *w > 0);
            if any_optional {
                for (i, r) in rules.iter().enumerate() {
                    if r.identifying {
                        let want = content[i].clamp(r.min, r.natural.max(r.min));
                        prop_assert_eq!(w[i], want);
                    }
                }
            }
        }
    }
}
