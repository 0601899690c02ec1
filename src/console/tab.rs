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
