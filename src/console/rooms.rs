//! The list of rooms: each room's model, the replies the worker sends it and the commands it
//! sends the worker, named here once. The core (`state`, `msg`, `settings`) names this list,
//! never a room's module; a new room adds its lines here and its field in `State`.

/// Form dialogs (`forms/`): the model, its writes and lookups, a picker's items.
pub(crate) use super::forms::{
    FormsState,
    ops::{Lookup, WriteOp},
    picker::PickItem,
};

/// Following a webhook (`deliveries/`): attempt view, watch, filter dialog, health.
pub(crate) use super::deliveries::DeliveriesState;

/// Command line, filters, sorts, raw view, clipboard and profile switch (`power/`).
pub(crate) use super::power::{
    AlertsLoader, PowerEffect, PowerMsg, PowerState, filter::Haystacks, sort::Sort,
};

/// The replay room (`P`, `E`).
pub(crate) use super::replay::{ReplayCmd, ReplayReply, ReplayState};

/// The recover room (`b`) and the marks.
pub(crate) use super::recover::{RecoverCmd, RecoverReply, RecoverState};

/// The forward room (`L`).
pub(crate) use super::forward::{ForwardJob, ForwardReply, ForwardState};

/// The Samples room.
pub(crate) use super::samples::{SamplesReply, SamplesState, SendCmd};

/// `Ctrl-F`'s search by content.
pub(crate) use super::search::{SearchCmd, SearchReply, SearchState};

/// `Ctrl-P`'s palette and the help's filter.
pub(crate) use super::palette::PaletteState;

/// The alert rules judged (`!`, the header's chip): the model, the rules, the check and what
/// fails, and how often it is judged.
pub(crate) use super::alerts::{
    Active as AlertsActive, AlertsCmd, AlertsState, INTERVAL as ALERTS_INTERVAL,
    Rules as AlertRules,
};

/// Compare (`=`).
pub(crate) use super::compare::{CompareCmd, CompareState, Found as CompareFound};
