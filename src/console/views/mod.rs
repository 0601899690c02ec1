//! One module per resource: its columns, row cells and detail pane. Dispatch on the item kind.
pub(crate) mod callbacks;
pub(crate) mod context;
pub(crate) mod destinations;
pub(crate) mod imports;
pub(crate) mod kit;
pub(crate) mod list;
pub(crate) mod notifications;
pub(crate) mod row_cache;
pub(crate) mod teams;

use ratatui::text::Line;

use super::record::Record;

pub(crate) use kit::{Tone, ViewCtx, duration_ms};
pub(crate) use list::{ListColumn, columns};

/// Every field of the item, for the detail pane, before the sanitizer (the pane sanitizes
/// what it shows, once per record).
pub(crate) fn unsanitised_detail(record: &Record, ctx: &ViewCtx) -> Vec<Line<'static>> {
    crate::resource::with_item!(record.shown(), R, x => <R as DetailView>::detail(x, ctx))
}

/// A resource's console side (each resource's view module has one): its detail lines and where
/// its operations show in the footer.
pub(crate) trait DetailView: crate::resource::Resource {
    /// Every field of the item, before the sanitizer.
    fn detail(item: &Self::Item, ctx: &ViewCtx) -> Vec<Line<'static>>;

    /// The footer rank of one of its operations on a selected item (lower shows first; the
    /// tab's own keys rank 1–28), or `None` to offer it in help only.
    fn op_rank(_verb: &str) -> Option<u8> {
        None
    }
}

/// Where an operation shows in its tab's footer, as its resource's console module says.
pub(crate) fn op_rank(op: crate::resource::ops::OpId) -> Option<u8> {
    crate::resource::with_kind!(op.resource, R => <R as DetailView>::op_rank(op.verb))
}

/// The detail pane's title.
pub(crate) fn title(record: &Record) -> String {
    record.shown().heading()
}
