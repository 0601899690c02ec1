//! The console's tabs: one per resource of the registry (`resource::Kind`) that the connected
//! API generation serves.
use crate::api::generation::Generation;

/// One tab of the console: a resource of the registry.
pub use crate::resource::Kind as Tab;

/// The tabs the console shows for a server of generation `g`, in header order: a tab whose
/// resource that generation does not serve is absent.
pub(crate) fn shown_for(g: Generation) -> Vec<Tab> {
    shown_in(g, Tab::generations)
}

/// The tabs shown for generation `g` when `generations` says which generations serve each.
pub(crate) fn shown_in(
    g: Generation,
    generations: impl Fn(Tab) -> &'static [Generation],
) -> Vec<Tab> {
    Tab::ALL
        .into_iter()
        .filter(|t| generations(*t).contains(&g))
        .collect()
}

/// The tab after `tab` among `shown`, wrapping (the first when `tab` is not shown).
pub(crate) fn next_of(shown: &[Tab], tab: Tab) -> Tab {
    let i = shown.iter().position(|t| *t == tab);
    match i {
        Some(i) => shown
            .get((i + 1) % shown.len().max(1))
            .copied()
            .unwrap_or(tab),
        None => shown.first().copied().unwrap_or(tab),
    }
}

/// The tab before `tab` among `shown`, wrapping.
pub(crate) fn prev_of(shown: &[Tab], tab: Tab) -> Tab {
    let n = shown.len().max(1);
    let i = shown.iter().position(|t| *t == tab);
    match i {
        Some(i) => shown.get((i + n - 1) % n).copied().unwrap_or(tab),
        None => shown.first().copied().unwrap_or(tab),
    }
}

/// The header's tab labels as drawn in `width` columns, with the columns each takes: ` N Title `
/// after one space; when they do not all fit, the others show only their number (the active one
/// keeps its title). The header draws these and a click reads them, so the two cannot differ.
pub(crate) fn labels(
    shown: &[Tab],
    active: Tab,
    width: u16,
) -> Vec<(Tab, String, std::ops::Range<u16>)> {
    let full: usize = 1 + shown
        .iter()
        .map(|tab| tab.title().chars().count() + 4)
        .sum::<usize>();
    let short = full > usize::from(width);
    let mut left = 1u16;
    shown
        .iter()
        .map(|&tab| {
            let label = if short && tab != active {
                format!(" {} ", tab.number())
            } else {
                format!(" {} {} ", tab.number(), tab.title())
            };
            let w = u16::try_from(label.chars().count()).unwrap_or(u16::MAX);
            let span = left..left.saturating_add(w);
            left = span.end;
            (tab, label, span)
        })
        .collect()
}
