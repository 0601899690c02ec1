//! Each resource described once, for every face: the console's list (cells, `/` filter, `s`
//! sort, widths), its `:` words and id prefix, and the headless tables and detail views.
//!
//! A [`Column`] holds the text a cell shows; the filter matches that text and the sort orders by
//! a typed key taken from the same value, so what is shown is what sorts and what filters. No
//! UI here: the console and `headless` read these descriptions and draw them their own way.
pub mod access_policies;
pub mod attempts;
pub mod auth_imports;
pub mod callback_destinations;
pub mod callback_events;
pub mod callback_notifications;
pub mod callbacks;
pub mod deliveries;
pub mod delivery_attempts;
pub mod deployment_callback_events;
pub mod deployment_callbacks;
pub mod destinations;
pub mod event_destinations;
pub mod events;
pub mod imports;
pub mod integration_callbacks;
pub mod listeners;
pub mod members;
pub mod notifications;
pub mod ops;
pub mod org_teams;
pub mod provider_deployments;
pub mod registry;
pub mod teams;
pub mod width;
pub mod wrap;

#[cfg(test)]
mod tests;

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};

use crate::api::NameCache;
use crate::api::health::Health;
use crate::api::model::Notification;
pub use registry::{AnyItem, Described, Kind, Resource};
pub(crate) use registry::{with_item, with_kind};
pub use width::{Width, allocate, cut, display_width, fit};

/// How a status reads (the console gives each a symbol and a colour, never the colour alone).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// Succeeded, active.
    Good,
    /// Retrying.
    Busy,
    /// Pending.
    Waiting,
    /// Failed.
    Bad,
    /// Expired, inactive.
    Off,
    /// A value this version does not know.
    Unknown,
}

/// What `s` sorts a column by: the value the cell shows, typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SortKey {
    /// Text, compared ignoring case.
    Text(String),
    /// A number (a count, a status code, milliseconds, a percentage).
    Number(i64),
    /// A time.
    Time(DateTime<Utc>),
    /// Nothing shown (`—`): sorts last whichever the direction.
    Missing,
}

impl SortKey {
    /// Text, lower-cased once so comparisons ignore case; empty text is [`SortKey::Missing`].
    pub fn text(s: &str) -> Self {
        if s.is_empty() || s == DASH {
            Self::Missing
        } else {
            Self::Text(s.to_lowercase())
        }
    }

    /// Orders two keys, `desc` reversing present values only (missing ones stay last).
    pub fn compare(&self, other: &Self, desc: bool) -> Ordering {
        let rank = |k: &Self| match k {
            Self::Number(_) => 0,
            Self::Time(_) => 1,
            Self::Text(_) => 2,
            Self::Missing => 3,
        };
        let o = match (self, other) {
            (Self::Missing, Self::Missing) => return Ordering::Equal,
            (Self::Missing, _) => return Ordering::Greater,
            (_, Self::Missing) => return Ordering::Less,
            (Self::Number(a), Self::Number(b)) => a.cmp(b),
            (Self::Time(a), Self::Time(b)) => a.cmp(b),
            (Self::Text(a), Self::Text(b)) => a.cmp(b),
            (a, b) => rank(a).cmp(&rank(b)),
        };
        if desc { o.reverse() } else { o }
    }
}

/// How a face writes a time relative to now (`3 min ago`).
pub type Relative<'a> = &'a dyn Fn(&DateTime<Utc>) -> String;

/// How a face names the destinations a notification went to.
pub type DestinationsOf<'a> = &'a dyn Fn(&Notification) -> Vec<String>;

/// What a face knows besides the item: how it shows times, and names it looked up.
#[derive(Clone, Copy, Default)]
pub struct Ctx<'a> {
    /// Relative time text (`3 min ago`) for the console; without it times are absolute
    /// (`2026-01-02 03:04:05Z`), as headless prints them.
    pub relative: Option<Relative<'a>>,
    /// Callback and destination names by id.
    pub names: Option<&'a NameCache>,
    /// Destinations known to be deleted, by id.
    pub deleted: Option<&'a BTreeSet<String>>,
    /// Each destination's recent deliveries, by id (the destinations list's glance).
    pub health: Option<&'a BTreeMap<String, Health>>,
    /// The destinations a notification went to, by name, when the face can tell.
    pub destinations_of: Option<DestinationsOf<'a>>,
}

impl Ctx<'_> {
    /// A time as this face shows it.
    pub fn when(&self, t: &DateTime<Utc>) -> String {
        match self.relative {
            Some(f) => f(t),
            None => absolute(t),
        }
    }

    /// The label of a destination: its name when known, `(deleted)` after a deleted one.
    pub fn destination_label(&self, id: &str) -> String {
        let name = self.names.map_or(id, |n| n.label(id));
        if self.deleted.is_some_and(|d| d.contains(id)) {
            format!("{name} (deleted)")
        } else {
            name.to_string()
        }
    }
}

/// `2026-01-02 03:04:05Z`.
pub fn absolute(t: &DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M:%SZ").to_string()
}

/// What an empty cell shows.
pub const DASH: &str = "—";

/// Text, or [`DASH`] when there is none.
pub fn or_dash(s: Option<&str>) -> String {
    match s {
        Some(s) if !s.is_empty() => s.to_string(),
        _ => DASH.into(),
    }
}

/// How a column reads a cell, a filter text or a sort key from an item.
pub type Read<T, R> = fn(&T, &Ctx<'_>) -> R;

/// Where a column shows in headless tables.
#[derive(Clone, Copy)]
pub enum Headless<T> {
    /// Not in headless tables (the face has nothing to fill it with).
    Hidden,
    /// The cell text with a headless [`Ctx`] (absolute times).
    Cell,
    /// Text of its own (e.g. a status code with its duration).
    Text(Read<T, String>),
}

/// One column of a resource's list.
pub struct Column<T> {
    /// Title in the console; upper-cased it heads the headless table.
    pub title: &'static str,
    /// Width rule.
    pub width: Width,
    /// The text the cell shows.
    pub cell: Read<T, String>,
    /// The key `s` sorts by (taken from the same value as the cell); `None`: not sortable.
    pub sort: Option<Read<T, SortKey>>,
    /// More text `/` matches besides the cell (an absolute date beside `3 min ago`).
    pub also: Option<Read<T, String>>,
    /// The tone of a status cell.
    pub tone: Option<fn(&T) -> Tone>,
    /// Drawn muted (ids).
    pub muted: bool,
    /// In headless tables.
    pub headless: Headless<T>,
}

impl<T> Column<T> {
    /// A column showing `cell`, sorted by its text, in headless tables as it shows.
    pub const fn new(title: &'static str, width: Width, cell: Read<T, String>) -> Self {
        Self {
            title,
            width,
            cell,
            sort: None,
            also: None,
            tone: None,
            muted: false,
            headless: Headless::Cell,
        }
    }

    /// Sorted by this key.
    pub const fn sort(mut self, key: Read<T, SortKey>) -> Self {
        self.sort = Some(key);
        self
    }

    /// `/` also matches this text.
    pub const fn also(mut self, text: Read<T, String>) -> Self {
        self.also = Some(text);
        self
    }

    /// A status with this tone.
    pub const fn tone(mut self, tone: fn(&T) -> Tone) -> Self {
        self.tone = Some(tone);
        self
    }

    /// Drawn muted.
    pub const fn muted(mut self) -> Self {
        self.muted = true;
        self
    }

    /// How it shows in headless tables.
    pub const fn headless(mut self, h: Headless<T>) -> Self {
        self.headless = h;
        self
    }

    /// The headless table's header.
    pub fn header(&self) -> String {
        self.title.to_uppercase()
    }

    /// The headless table's text, when the column is in headless tables.
    pub fn headless_text(&self, item: &T, ctx: &Ctx<'_>) -> Option<String> {
        match self.headless {
            Headless::Hidden => None,
            Headless::Cell => Some((self.cell)(item, ctx)),
            Headless::Text(f) => Some(f(item, ctx)),
        }
    }

    /// The texts `/` matches for this column: what the cell shows, and [`Column::also`].
    pub fn filter_texts(&self, item: &T, ctx: &Ctx<'_>) -> Vec<String> {
        let mut out = vec![(self.cell)(item, ctx)];
        if let Some(f) = self.also {
            out.push(f(item, ctx));
        }
        out
    }
}

/// One field of a detail view: a label and one value per line (each cleaned on its own).
pub struct Field<T> {
    /// Label, upper-cased in headless detail views.
    pub label: &'static str,
    /// The lines (at least one; a list field has one per entry).
    pub lines: fn(&T) -> Vec<String>,
}

/// A single-line field.
pub const fn field<T>(label: &'static str, lines: fn(&T) -> Vec<String>) -> Field<T> {
    Field { label, lines }
}

/// Lines, or one `-` when there are none.
pub fn lines_or_dash(lines: Vec<String>) -> Vec<String> {
    if lines.is_empty() {
        vec!["-".into()]
    } else {
        lines
    }
}

/// A resource as every face sees it.
pub struct Description<T: 'static> {
    /// Plural, lower case: `notifications`.
    pub name: &'static str,
    /// Words `:` accepts for its list; the first is what completion offers.
    pub aliases: &'static [&'static str],
    /// The prefix of its ids (`cbn_`), by which a bare id is recognised.
    pub id_prefix: &'static str,
    /// List columns, in the console's order.
    pub columns: &'static [Column<T>],
    /// Fields of its detail view.
    pub fields: &'static [Field<T>],
}

impl<T> Description<T> {
    /// The column titled `title` (ignoring case).
    pub fn column(&self, title: &str) -> Option<&Column<T>> {
        self.columns
            .iter()
            .find(|c| c.title.eq_ignore_ascii_case(title))
    }

    /// The sortable columns' positions, in the order `s` cycles through them.
    pub fn sortable(&self) -> Vec<usize> {
        (0..self.columns.len())
            .filter(|&i| self.columns[i].sort.is_some())
            .collect()
    }

    /// Whether `id` is one of this resource's ids (prefix and something after it).
    pub fn owns_id(&self, id: &str) -> bool {
        id.len() > self.id_prefix.len() && id.starts_with(self.id_prefix)
    }

    /// Every text `/` matches in an item: each column's shown text (and its extra text).
    pub fn filter_texts(&self, item: &T, ctx: &Ctx<'_>) -> Vec<String> {
        self.columns
            .iter()
            .flat_map(|c| c.filter_texts(item, ctx))
            .collect()
    }

    /// Sorts positions into `items` by column `col` (stable: equal keys keep their order).
    pub fn sort(&self, col: usize, desc: bool, items: &[T], ctx: &Ctx<'_>, view: &mut [usize]) {
        let Some(key) = self.columns.get(col).and_then(|c| c.sort) else {
            return;
        };
        let keys: Vec<SortKey> = items.iter().map(|it| key(it, ctx)).collect();
        let missing = SortKey::Missing;
        view.sort_by(|&a, &b| {
            let (x, y) = (
                keys.get(a).unwrap_or(&missing),
                keys.get(b).unwrap_or(&missing),
            );
            x.compare(y, desc)
        });
    }

    /// Column widths for `items` on `total` terminal columns (0: left out), see [`allocate`].
    pub fn widths(&self, items: &[T], ctx: &Ctx<'_>, total: u16, gap: u16) -> Vec<u16> {
        let content: Vec<u16> = self
            .columns
            .iter()
            .map(|c| {
                let widest = items
                    .iter()
                    .map(|it| display_width(&crate::text::line((c.cell)(it, ctx).as_str())))
                    .max()
                    .unwrap_or(0);
                u16::try_from(widest.max(display_width(c.title))).unwrap_or(u16::MAX)
            })
            .collect();
        let rules: Vec<Width> = self.columns.iter().map(|c| c.width).collect();
        allocate(&rules, &content, total, gap)
    }

    /// The columns headless tables show: the id first (scripts read it there), then the others
    /// in the console's order.
    pub fn table_columns(&self) -> Vec<&Column<T>> {
        let (ids, rest): (Vec<&Column<T>>, Vec<&Column<T>>) = self
            .columns
            .iter()
            .filter(|c| !matches!(c.headless, Headless::Hidden))
            .partition(|c| c.title == "ID");
        ids.into_iter().chain(rest).collect()
    }
}

/// Whether every word of `query` is in one of `texts` (smart case: case matters once the word
/// has a capital). The console ranks with its fuzzy matcher over the same texts.
pub fn matches(query: &str, texts: &[String]) -> bool {
    query.split_whitespace().all(|w| {
        let exact = w.chars().any(char::is_uppercase);
        let lw = w.to_lowercase();
        texts.iter().any(|t| {
            if exact {
                t.contains(w)
            } else {
                t.to_lowercase().contains(&lw)
            }
        })
    })
}

/// Every resource's `:` words and id prefix, for a face that must tell them apart: the
/// registry's, then the ones described for lookups only (members, attempts).
pub fn words_and_prefixes() -> Vec<(&'static str, &'static [&'static str], &'static str)> {
    let mut out: Vec<_> = Kind::ALL
        .into_iter()
        .map(|k| (k.name(), k.aliases(), k.id_prefix()))
        .collect();
    out.push((
        members::MEMBERS.name,
        members::MEMBERS.aliases,
        members::MEMBERS.id_prefix,
    ));
    out.push((
        attempts::ATTEMPTS.name,
        attempts::ATTEMPTS.aliases,
        attempts::ATTEMPTS.id_prefix,
    ));
    out
}

/// The id prefix of every described resource (`cld_`), for what must recognise an id.
pub fn id_prefixes() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = words_and_prefixes()
        .into_iter()
        .map(|(_, _, p)| p)
        .collect();
    out.push(teams::PROJECTS.id_prefix);
    out.push(teams::TEAM_ROLES.id_prefix);
    out
}

/// The resource an id belongs to, by its prefix.
pub fn resource_of_id(id: &str) -> Option<&'static str> {
    words_and_prefixes()
        .into_iter()
        .find(|(_, _, p)| id.len() > p.len() && id.starts_with(p))
        .map(|(name, _, _)| name)
}

/// `12 ms` or `10.0 s`.
pub fn duration_ms(ms: i64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}
