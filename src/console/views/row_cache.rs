//! The visible rows' cells, built once per row and context and reused by the frames after: a
//! cursor move, a spinner tick or a toast redraws the list without formatting, parsing (a
//! notification's event type is read from its delivered body) and sanitizing its rows again.
//!
//! Kept outside `State` (a view never changes the state), like the detail pane's wrapped lines.
//! A row's cells are a function of the item, the [`Ctx`] and the theme, and each is in the key:
//! the item by the address of its `Arc` (immutable, and pinned by a `Weak` while its entry
//! lives, so no other item can take that address), the `Ctx`'s deleted destinations and glance
//! by value, a notification's destinations as the `Ctx` names them, and the clock by the second
//! (the cells' relative times are computed from that very second).
use std::any::Any;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Weak;

use chrono::{DateTime, Utc};
use ratatui::text::Line;

use super::kit::ViewCtx;
use super::list::cells;
use crate::api::health::Health;
use crate::console::record::{Item, Record};
use crate::console::state::State;
use crate::console::theme::Theme;
use crate::resource::Ctx;

/// What every row's cells read besides the item, as of the last frame.
#[derive(PartialEq)]
struct Context {
    /// The clock's second (relative times are computed from it).
    second: i64,
    theme: Theme,
    deleted: Option<BTreeSet<String>>,
    health: Option<BTreeMap<String, Health>>,
}

/// One row's cells.
struct Entry {
    /// Pins the item's allocation, so its address (the entry's key) names this item only.
    _item: Weak<dyn Any>,
    /// What `Ctx::destinations_of` said of it (a function of more state than the `Ctx` holds).
    destinations: Option<Vec<String>>,
    cells: Vec<Line<'static>>,
    /// The frame that last drew it; the others are dropped after each frame.
    seen: u64,
}

#[derive(Default)]
struct Cache {
    context: Option<Context>,
    rows: HashMap<usize, Entry>,
    frame: u64,
}

thread_local! {
    static ROWS: RefCell<Cache> = RefCell::new(Cache::default());
}

/// The address of an item's `Arc` and a `Weak` that keeps that address its own.
fn identity(item: &Item) -> (usize, Weak<dyn Any>) {
    item.identity()
}

/// Whether the context is the one the cached rows were built in.
fn same(c: &Context, second: i64, theme: &Theme, ctx: &Ctx<'_>) -> bool {
    c.second == second
        && c.theme == *theme
        && c.deleted.as_ref() == ctx.deleted
        && c.health.as_ref() == ctx.health
}

/// The cells of `records` (the visible rows), each through `decorate`, built only for rows
/// and contexts the last frame did not draw.
pub(crate) fn rows<'r>(
    state: &State,
    v: &ViewCtx,
    records: impl Iterator<Item = &'r Record>,
    decorate: impl Fn(&Record, Vec<Line<'static>>) -> Vec<Line<'static>>,
) -> Vec<Vec<Line<'static>>> {
    let second = v.clock.now().timestamp();
    let now = DateTime::<Utc>::from_timestamp(second, 0).unwrap_or_default();
    let relative = |t: &DateTime<Utc>| crate::console::clock::relative(now, *t);
    super::context::with_ctx(state, |ctx| {
        // Every field named: a new one fails to compile here until the key covers it.
        let Ctx {
            relative: _,
            names: _,
            deleted,
            health,
            destinations_of,
        } = *ctx;
        // No list cell reads the names (a notification's destinations do, through
        // `destinations_of`, which is in its row's key), and comparing them would cost a frame
        // every name the console knows (10,000 on a big account): left out, so a column that
        // starts reading them shows ids until they are added to the key here.
        let ctx = Ctx {
            relative: Some(&relative),
            names: None,
            ..*ctx
        };
        ROWS.with(|cache| {
            let mut cache = cache.borrow_mut();
            let cache = &mut *cache;
            if !cache
                .context
                .as_ref()
                .is_some_and(|c| same(c, second, v.theme, &ctx))
            {
                cache.rows.clear();
                cache.context = Some(Context {
                    second,
                    theme: *v.theme,
                    deleted: deleted.cloned(),
                    health: health.cloned(),
                });
            }
            cache.frame += 1;
            let frame = cache.frame;
            let out = records
                .map(|record| {
                    let item = record.shown();
                    let destinations = match (item, destinations_of) {
                        (Item::Notification(n), Some(f)) => Some(f(n)),
                        _ => None,
                    };
                    let (address, weak) = identity(item);
                    let built = match cache.rows.get_mut(&address) {
                        Some(e) if e.destinations == destinations => {
                            e.seen = frame;
                            e.cells.clone()
                        }
                        _ => {
                            let built = cells(record, &ctx, v);
                            cache.rows.insert(
                                address,
                                Entry {
                                    _item: weak,
                                    destinations,
                                    cells: built.clone(),
                                    seen: frame,
                                },
                            );
                            built
                        }
                    };
                    decorate(record, built)
                })
                .collect();
            // Only what this frame drew stays: the cache is one screen of rows.
            cache.rows.retain(|_, e| e.seen == frame);
            out
        })
    })
}
