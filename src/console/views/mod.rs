//! The console side of each resource, one module each (a [`DetailView`]: detail lines, which
//! dialog a write key opens and the write it builds, where its operations show in the footer),
//! reached through the registry's `with_kind!`/`with_item!`, never a `match` on the kind. The
//! list's columns, cells, `/` texts and sort keys come from `resource/` through `list`.
pub(crate) mod access_policies;
pub(crate) mod auth_imports;
pub(crate) mod callback_destinations;
pub(crate) mod callback_events;
pub(crate) mod callback_notifications;
pub(crate) mod callbacks;
pub(crate) mod context;
pub(crate) mod deliveries;
pub(crate) mod delivery_attempts;
pub(crate) mod deployment_callback_events;
pub(crate) mod deployment_callbacks;
pub(crate) mod described;
pub(crate) mod destinations;
pub(crate) mod event_destinations;
pub(crate) mod events;
pub(crate) mod imports;
pub(crate) mod integration_callbacks;
pub(crate) mod kit;
pub(crate) mod list;
pub(crate) mod listeners;
pub(crate) mod notifications;
pub(crate) mod org_teams;
pub(crate) mod provider_deployments;
pub(crate) mod row_cache;
pub(crate) mod teams;

use ratatui::text::Line;

use super::forms::ops::WriteOp;
use super::forms::picker::PickItem;
use super::forms::{Dialog, WriteSpec};
use super::keymap::Action;
use super::record::{Item, Record};
use super::tab::Tab;
use crate::resource::ops::Verb;
use crate::resource::{with_item, with_kind};

pub(crate) use kit::{Tone, ViewCtx, duration_ms};
pub(crate) use list::{ListColumn, columns};

/// Every field of the item, for the detail pane, before the sanitizer (the pane sanitizes
/// what it shows, once per record).
pub(crate) fn unsanitised_detail(record: &Record, ctx: &ViewCtx) -> Vec<Line<'static>> {
    with_item!(record.shown(), R, x => <R as DetailView>::detail(x, ctx))
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

    /// Whether one of its operations asks for the item's name typed, whatever `confirm` says
    /// (an operation that breaks something until the operator acts).
    fn typed_confirm(_verb: &str) -> bool {
        false
    }

    /// The fields one of its operations asks for first (their keys name its inputs), with the
    /// lookups that fill their pickers; `None`: the operation only asks its question.
    fn op_form(_verb: &str, _item: &Self::Item) -> Option<OpForm> {
        None
    }

    /// How an item shows in a picker filled from its list, or `None` to leave it out.
    fn pick(item: &Self::Item) -> Option<PickItem> {
        let name = Self::name(item);
        let id = Self::id(item).to_string();
        Some(PickItem {
            label: if name.is_empty() { id.clone() } else { name },
            detail: String::new(),
            id,
        })
    }

    /// Whether one of its operations answers with what no later read gives (a new secret): the
    /// detail keeps that answer instead of reading the item again.
    fn keeps_reply(_verb: &str) -> bool {
        false
    }

    /// The write keys its tab offers (`c`, `e`, `d`) where its console module opens dialogs
    /// for them; the footer, help and palette show these.
    fn write_keys() -> &'static [Action] {
        &[]
    }

    /// Where one of the dialog writes its tab offers shows in the footer; `None`: in help only
    /// (or beside the write it is paired with). Create, edit and delete where they usually are
    /// unless it says otherwise.
    fn write_place(verb: Verb) -> Option<WritePlace> {
        WritePlace::standard(verb)
    }

    /// The keys that follow a selected item to another list (`D`, `N`, `V`) its tab offers;
    /// the footer shows these.
    fn follow_keys() -> &'static [Action] {
        &[]
    }

    /// Whether the answer to its create holds what no later read gives (a signing secret):
    /// the detail keeps that answer.
    fn keeps_created() -> bool {
        false
    }

    /// What one of its writes does besides its request (toast word, question, what follows),
    /// by the write key that opened its dialog: the standard create, edit and delete unless it
    /// says otherwise.
    fn write_spec(action: Action) -> WriteSpec {
        WriteSpec {
            keeps_reply: action == Action::CREATE && Self::keeps_created(),
            ..WriteSpec::standard(action)
        }
    }

    /// Where its generation retries on the server: what a recover (`b`) from this item, or from
    /// its list (`None`, under the list's server `statuses`), asks the platform to retry, with
    /// the selection in words. `None`: not here (the client-side recover, where there is one).
    fn platform_retry(
        _item: Option<&Self::Item>,
        _statuses: &[String],
    ) -> Option<(String, crate::api::platform_retry::RetrySelection)> {
        None
    }

    /// Where its list's rows take marks (`Space`, `V`, `*`) that `b` asks the platform to
    /// retry: the selection of exactly the marked `ids`. `None`: no marks here.
    fn marked_retry(_ids: &[String]) -> Option<crate::api::platform_retry::RetrySelection> {
        None
    }

    /// Why a key does not act on its tab (yet) and what does instead, in one sentence, where
    /// that says more than "no such key" (an import is not changed: import again); `None`: the
    /// key works here (or means nothing here).
    fn not_here(_action: Action) -> Option<&'static str> {
        None
    }

    /// Whether one of its operations answers with a delivery to follow to its outcome (a
    /// ping): the console waits on the worker and says how it ended.
    fn follows_reply(_verb: &str) -> bool {
        false
    }

    /// The statuses its list is filtered by on the server (`l` cycles them); none by default.
    fn server_statuses() -> &'static [&'static str] {
        &[]
    }

    /// The dialog a write key opens on its tab (`item`: the selected or open item).
    fn dialog(action: Action, item: Option<&Self::Item>) -> Option<Dialog>;

    /// The write one of its dialogs describes, or `None` with problems marked on the dialog.
    fn build(d: &mut Dialog) -> Option<WriteOp>;

    /// The question before one of its dialogs' writes, when the dialog's fields decide it.
    fn confirm_text(_d: &Dialog) -> Option<String> {
        None
    }

    /// The name typed to confirm under `confirm = "type-name"`, when the fields decide it.
    fn confirm_name(_d: &Dialog) -> Option<String> {
        None
    }

    /// Keeps one of its dialogs' fields in step after an edit.
    fn after_change(_d: &mut Dialog) {}
}

/// The dialog a write key opens on `tab`, from the tab's resource's console module.
pub(crate) fn dialog(tab: Tab, action: Action, item: Option<&Item>) -> Option<Dialog> {
    with_kind!(tab, R => <R as DetailView>::dialog(action, item.and_then(|i| i.typed::<R>()))).map(
        |mut d| {
            d.resource = Some(tab);
            d
        },
    )
}

/// The write a dialog describes, built by the console module of the resource that opened it.
pub(crate) fn build(d: &mut Dialog) -> Option<WriteOp> {
    let tab = d.resource?;
    with_kind!(tab, R => <R as DetailView>::build(d))
}

/// The question a dialog's fields decide, if they do.
pub(crate) fn confirm_text(d: &Dialog) -> Option<String> {
    let tab = d.resource?;
    with_kind!(tab, R => <R as DetailView>::confirm_text(d))
}

/// The name a dialog's fields decide for a typed confirmation, if they do.
pub(crate) fn confirm_name(d: &Dialog) -> Option<String> {
    let tab = d.resource?;
    with_kind!(tab, R => <R as DetailView>::confirm_name(d))
}

/// Keeps a dialog's fields in step after an edit.
pub(crate) fn after_change(d: &mut Dialog) {
    if let Some(tab) = d.resource {
        with_kind!(tab, R => <R as DetailView>::after_change(d));
    }
}

/// Where an operation shows in its tab's footer, as its resource's console module says.
pub(crate) fn op_rank(op: crate::resource::ops::OpId) -> Option<u8> {
    crate::resource::with_kind!(op.resource, R => <R as DetailView>::op_rank(op.verb))
}

/// Whether an operation asks for the item's name typed, as its resource's console module says.
pub(crate) fn typed_confirm(op: crate::resource::ops::OpId) -> bool {
    crate::resource::with_kind!(op.resource, R => <R as DetailView>::typed_confirm(op.verb))
}

/// The fields of an operation's dialog and the lookups filling their pickers.
pub(crate) type OpForm = (
    Vec<crate::console::forms::field::Field>,
    Vec<(crate::console::forms::ops::Lookup, usize)>,
);

/// The fields an operation asks for first on `record`, as its resource's console module says.
pub(crate) fn op_form(op: crate::resource::ops::OpId, record: &Record) -> Option<OpForm> {
    with_item!(&record.item, R, x => (op.resource == <R as crate::resource::Resource>::KIND)
        .then(|| <R as DetailView>::op_form(op.verb, x))
        .flatten())
}

/// A record as a picker item, as its resource's console module shows it.
pub(crate) fn pick(record: &Record) -> Option<PickItem> {
    with_item!(&record.item, R, x => <R as DetailView>::pick(x))
}

/// Whether an operation's answer stays in the detail, as its resource's console module says.
pub(crate) fn keeps_reply(op: crate::resource::ops::OpId) -> bool {
    crate::resource::with_kind!(op.resource, R => <R as DetailView>::keeps_reply(op.verb))
}

/// The write keys a tab's console module offers dialogs for.
pub(crate) fn write_keys(tab: Tab) -> &'static [Action] {
    with_kind!(tab, R => <R as DetailView>::write_keys())
}

/// Where a dialog write shows in a tab's footer, as the tab's console module says; `None` where
/// the tab does not offer it (its resource's `WRITES` or its console module's write keys).
pub(crate) fn write_place(tab: Tab, verb: Verb) -> Option<WritePlace> {
    let offered = tab.writes().contains(&verb) || write_keys(tab).contains(&Action::Write(verb));
    offered
        .then(|| with_kind!(tab, R => <R as DetailView>::write_place(verb)))
        .flatten()
}

/// Where a dialog write shows in its tab's footer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WritePlace {
    /// Its rank among the tab's keys (lower shows first; they rank 1–28).
    pub(crate) rank: u8,
    /// Shown on the list whether a row is selected or not (a new item needs none); otherwise
    /// where an item is selected or open.
    pub(crate) on_list: bool,
    /// The write shown beside it under one word (`p/P project`), if any.
    pub(crate) partner: Option<Verb>,
    /// The footer's word.
    pub(crate) word: &'static str,
}

impl WritePlace {
    /// Create on the list, edit and delete on a selected item, each under its verb's word.
    pub(crate) fn standard(verb: Verb) -> Option<WritePlace> {
        use crate::resource::ops;
        let (rank, on_list) = match verb {
            v if v == ops::CREATE => (4, true),
            v if v == ops::UPDATE => (5, false),
            v if v == ops::DELETE => (11, false),
            _ => return None,
        };
        Some(WritePlace {
            rank,
            on_list,
            partner: None,
            word: verb.hint,
        })
    }

    /// On a selected item, shown with its partner under its verb's word.
    pub(crate) fn paired(rank: u8, verb: Verb, partner: Verb) -> Option<WritePlace> {
        Some(WritePlace {
            rank,
            on_list: false,
            partner: Some(partner),
            word: verb.hint,
        })
    }
}

/// What a dialog's write does besides its request: the console module of the resource that
/// opened it says for a write of its own, the typed operation for an operation.
pub(crate) fn write_spec(d: &Dialog) -> WriteSpec {
    use super::forms::Kind;
    match &d.kind {
        Kind::Write(action, _) => match d.resource {
            Some(tab) => with_kind!(tab, R => <R as DetailView>::write_spec(*action)),
            None => WriteSpec::standard(*action),
        },
        Kind::Op(o, _) | Kind::OpForm(o, _) => WriteSpec {
            keeps_reply: keeps_reply(*o),
            // An operation with inputs asks its question after them (one without asks before
            // anything, when it opens).
            asks: matches!(d.kind, Kind::OpForm(..)),
            ..WriteSpec::saves(o.op().map_or("done", |o| o.done))
        },
    }
}

/// The keys that follow a tab's selected item to another list, as its console module says.
pub(crate) fn follow_keys(tab: Tab) -> &'static [Action] {
    with_kind!(tab, R => <R as DetailView>::follow_keys())
}

/// What a recover from `record` (or from `tab`'s list when `None`) asks the platform to retry,
/// as the resource's console module says.
pub(crate) fn platform_retry(
    tab: Tab,
    record: Option<&Record>,
    statuses: &[String],
) -> Option<(String, crate::api::platform_retry::RetrySelection)> {
    match record {
        Some(r) => {
            with_item!(r.shown(), R, x => <R as DetailView>::platform_retry(Some(x), statuses))
        }
        None => with_kind!(tab, R => <R as DetailView>::platform_retry(None, statuses)),
    }
}

/// What `b` over the marked `ids` of `tab`'s list asks the platform to retry, as the resource's
/// console module says (`None`: its rows take no marks of that kind).
pub(crate) fn marked_retry(
    tab: Tab,
    ids: &[String],
) -> Option<crate::api::platform_retry::RetrySelection> {
    with_kind!(tab, R => <R as DetailView>::marked_retry(ids))
}

/// Why `action` does not act on `tab` yet, as its resource's console module says.
pub(crate) fn not_here(tab: Tab, action: Action) -> Option<&'static str> {
    with_kind!(tab, R => <R as DetailView>::not_here(action))
}

/// Whether an operation's answer is a delivery to follow, as its resource's console module says.
pub(crate) fn follows_reply(op: crate::resource::ops::OpId) -> bool {
    crate::resource::with_kind!(op.resource, R => <R as DetailView>::follows_reply(op.verb))
}

/// The statuses a tab's list is filtered by on the server, as its console module says.
pub(crate) fn server_statuses(tab: Tab) -> &'static [&'static str] {
    with_kind!(tab, R => <R as DetailView>::server_statuses())
}

/// The detail pane's title.
pub(crate) fn title(record: &Record) -> String {
    record.shown().heading()
}
