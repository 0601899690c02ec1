//! A detail drawn from the resource's own description (`resource::Description::fields`): the
//! console side of a resource that needs nothing of its own beyond its fields.
use ratatui::text::{Line, Span};

use super::kit::ViewCtx;
use crate::console::widgets::fields::Fields;
use crate::resource::Description;

/// Every described field: its first line beside the label, the others under it.
pub(crate) fn detail<T>(d: &Description<T>, item: &T, ctx: &ViewCtx) -> Vec<Line<'static>> {
    let mut f = Fields::new(ctx.theme);
    for field in d.fields {
        let mut lines = (field.lines)(item).into_iter();
        f.field(field.label, lines.next().unwrap_or_default());
        for more in lines {
            f.line(LABEL_INDENT, vec![Span::raw(more)]);
        }
    }
    f.finish()
}

/// Where a field's further lines start: under its value.
const LABEL_INDENT: usize = 15;
