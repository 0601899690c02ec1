//! Where a list's page starts (its own module: lists and rooms name it without the whole state).

/// Where a page starts: the list query that fetched (or will fetch) it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) enum Anchor {
    /// The first page.
    #[default]
    First,
    /// The items after this id.
    After(String),
    /// The items right before this id.
    Before(String),
    /// A page holding this id (landing on a created or edited item): the items before it, then
    /// it and what follows, one page in all.
    Around(String),
}
