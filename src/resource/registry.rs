//! The one list of the resources the console shows as tabs. From it come the kind enumeration
//! ([`Kind`], the console's tabs), the typed item ([`AnyItem`]) and its decoding, the list and get
//! requests, the `:` words and id prefixes, and which API generations serve each resource.
//! Adding a resource is its module (a [`Resource`] impl) and one line in [`resources!`]'s call.
use std::any::Any;
use std::sync::{Arc, Weak};

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::Description;
use super::ops::{Op, Verb};
use crate::api::generation::Generation;
use crate::api::{ApiRequest, ListQuery, NotificationFilter};

/// One resource as the registry knows it: its item type, its description and its requests.
pub trait Resource: 'static {
    /// The typed item (the API's object); described by this resource's description (the
    /// registry implements [`Described`] for it).
    type Item: DeserializeOwned + PartialEq + Send + Sync + Described + 'static;
    /// Its kind in the registry.
    const KIND: Kind;
    /// Plural noun for messages ("no token imports on this page").
    const NOUN: &'static str;
    /// Which key its paths need, for 401/403 messages.
    const NEEDED_KEY: &'static str = "the instance secret key";
    /// The API generations that serve it; a face connected to another shows no trace of it.
    const GENERATIONS: &'static [Generation];
    /// Its operations beyond list and get, as every face offers them.
    const OPS: &'static [&'static Op] = &[];
    /// The writes it offers through a dialog (create, update, delete, its sub-operations), each
    /// a [`Verb`] of its own module's typed writes or `ops`' shared ones.
    const WRITES: &'static [Verb] = &[];
    /// Its headless table over the API's JSON (a newer generation's verbs print the objects as
    /// received): each column's header and where its cell is read (`a.b`, `list[].name` joins a
    /// list's names, `#list` counts it).
    const WIRE_COLUMNS: &'static [(&'static str, &'static str)] = &[];
    /// Where its items go when they are a webhook's deliveries (`destinations` for
    /// `notifications`); none when its items are not deliveries. Faces ask this ("does this kind
    /// deliver?") instead of naming the kinds that do.
    const RECEIVERS: Option<Kind> = None;
    /// Whose deliveries its items are (`callbacks` for `notifications`).
    const SENDERS: Option<Kind> = None;
    /// Whether it is the notifications list the console's deliveries room works on: watched
    /// (`w`), filtered by status on the console's side, walked for failures (`n`/`N`), taking
    /// every server filter (callback, event, destination), its signatures checked with its
    /// receivers' secrets. One resource says so.
    const NOTIFICATIONS_LIST: bool = false;
    /// Whether the console counts its items' delivery health over a window (as `destinations
    /// stats` does) in their detail.
    const STATS: bool = false;
    /// Whether its items are teams, whose detail lists their members (loaded in the background)
    /// and whose member dialogs pick from them.
    const LISTS_MEMBERS: bool = false;
    /// Whether the server lists and gets its items only under a callback (no list or get of
    /// their own, `generations.md` §6): the console merges every callback's newest and looks an
    /// item up through the callbacks.
    const THROUGH_CALLBACKS: bool = false;
    /// Whether each of its deliveries embeds the one request it sent, with no attempts to
    /// choose: replay takes the item itself and there is no receiver's answer to compare.
    const ONE_REQUEST: bool = false;
    /// Where its deliveries' attempts are listed, when a resource of their own lists them.
    const ATTEMPTS: Option<Kind> = None;
    /// Whether its list has no time filter, so a view's `since` is read on the client (newest
    /// first, to the first older item: `api::window`).
    const WINDOWED_ON_CLIENT: bool = false;

    /// Its description (columns, fields, `:` words, id prefix).
    fn description() -> &'static Description<Self::Item>;
    /// An item's id.
    fn id(item: &Self::Item) -> &str;
    /// What an item is called (its name, or what names its row), unsanitised; empty if nothing.
    fn name(item: &Self::Item) -> String;
    /// The heading of an item's detail (`Team core`), unsanitised.
    fn heading(item: &Self::Item) -> String;
    /// One page of the list; `filter` narrows the lists that take one.
    fn list(q: &ListQuery, filter: &NotificationFilter) -> ApiRequest;
    /// One item by id.
    fn get(id: &str) -> ApiRequest;
}

/// An item type with a description: every registered resource's item (the registry says so)
/// and the lookups' items a face prints as tables (projects, team roles, members).
pub trait Described: Sized + 'static {
    /// Its description (columns, fields).
    fn description() -> &'static Description<Self>;
}

/// A tab's title: the one given, else the kind's name.
macro_rules! title_or {
    ($t:literal ; $k:ident) => {
        $t
    };
    (; $k:ident) => {
        stringify!($k)
    };
}

/// Registers every listed resource once: `Kind ("Title")? / ItemVariant: module::Type`, in tab
/// order (a title when the kind's name is not what the header shows).
macro_rules! resources {
    ($d:tt $( $kind:ident $(($title:literal))? / $variant:ident : $module:ident :: $ty:ident ),* $(,)?) => {
        /// One resource of the registry; the console's tabs, in header order.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Kind {
            $(
                #[doc = concat!("The ", stringify!($module), " (`resource::", stringify!($module), "`).")]
                $kind,
            )*
        }

        impl Kind {
            /// How many resources are registered.
            pub const COUNT: usize = [$(Kind::$kind),*].len();
            /// Every resource, in tab order.
            pub const ALL: [Kind; Kind::COUNT] = [$(Kind::$kind),*];

            /// Position in [`Kind::ALL`].
            pub const fn index(self) -> usize {
                self as usize
            }

            /// Title in the console's header.
            pub const fn title(self) -> &'static str {
                match self { $(Kind::$kind => title_or!($($title)? ; $kind)),* }
            }

            /// The `[keys]` name of the action that jumps to its tab.
            pub const fn tab_config_name(self) -> &'static str {
                match self { $(Kind::$kind => concat!("tab_", stringify!($module))),* }
            }

            /// The help line of the action that jumps to its tab.
            pub const fn tab_help(self) -> &'static str {
                match self { $(Kind::$kind => concat!(title_or!($($title)? ; $kind), " tab")),* }
            }

            /// Plural noun for messages.
            pub fn noun(self) -> &'static str {
                match self { $(Kind::$kind => <$module::$ty as Resource>::NOUN),* }
            }

            /// Which key its paths need, for 401/403 messages.
            pub fn needed_key(self) -> &'static str {
                match self { $(Kind::$kind => <$module::$ty as Resource>::NEEDED_KEY),* }
            }

            /// Its headless table's columns (see [`Resource::WIRE_COLUMNS`]).
            pub const fn wire_columns(self) -> &'static [(&'static str, &'static str)] {
                match self { $(Kind::$kind => <$module::$ty as Resource>::WIRE_COLUMNS),* }
            }

            /// The generations that serve it.
            pub fn generations(self) -> &'static [Generation] {
                match self { $(Kind::$kind => <$module::$ty as Resource>::GENERATIONS),* }
            }

            /// Where its deliveries go (see [`Resource::RECEIVERS`]).
            pub const fn receivers(self) -> Option<Kind> {
                match self { $(Kind::$kind => <$module::$ty as Resource>::RECEIVERS),* }
            }

            /// Whose deliveries its items are (see [`Resource::SENDERS`]).
            pub const fn senders(self) -> Option<Kind> {
                match self { $(Kind::$kind => <$module::$ty as Resource>::SENDERS),* }
            }

            /// Whether it is the deliveries room's notifications list (see
            /// [`Resource::NOTIFICATIONS_LIST`]).
            pub const fn is_notifications_list(self) -> bool {
                match self { $(Kind::$kind => <$module::$ty as Resource>::NOTIFICATIONS_LIST),* }
            }

            /// Whether its detail counts delivery health (see [`Resource::STATS`]).
            pub const fn has_stats(self) -> bool {
                match self { $(Kind::$kind => <$module::$ty as Resource>::STATS),* }
            }

            /// Whether its items are teams with members (see [`Resource::LISTS_MEMBERS`]).
            pub const fn lists_members(self) -> bool {
                match self { $(Kind::$kind => <$module::$ty as Resource>::LISTS_MEMBERS),* }
            }

            /// Whether it is read only under a callback (see [`Resource::THROUGH_CALLBACKS`]).
            pub const fn through_callbacks(self) -> bool {
                match self { $(Kind::$kind => <$module::$ty as Resource>::THROUGH_CALLBACKS),* }
            }

            /// Whether its deliveries keep one request each (see [`Resource::ONE_REQUEST`]).
            pub const fn one_request(self) -> bool {
                match self { $(Kind::$kind => <$module::$ty as Resource>::ONE_REQUEST),* }
            }

            /// Where its deliveries' attempts are listed (see [`Resource::ATTEMPTS`]).
            pub const fn attempts(self) -> Option<Kind> {
                match self { $(Kind::$kind => <$module::$ty as Resource>::ATTEMPTS),* }
            }

            /// Whether a view's `since` is read on the client (see
            /// [`Resource::WINDOWED_ON_CLIENT`]).
            pub const fn windowed_on_client(self) -> bool {
                match self { $(Kind::$kind => <$module::$ty as Resource>::WINDOWED_ON_CLIENT),* }
            }

            /// Its operations (see [`Resource::OPS`]).
            pub fn ops(self) -> &'static [&'static Op] {
                match self { $(Kind::$kind => <$module::$ty as Resource>::OPS),* }
            }

            /// Its dialog writes (see [`Resource::WRITES`]).
            pub fn writes(self) -> &'static [Verb] {
                match self { $(Kind::$kind => <$module::$ty as Resource>::WRITES),* }
            }

            /// Its `:` words (the first is what completion offers).
            pub fn aliases(self) -> &'static [&'static str] {
                match self { $(Kind::$kind => <$module::$ty as Resource>::description().aliases),* }
            }

            /// The prefix of its ids (`cld_`).
            pub fn id_prefix(self) -> &'static str {
                match self { $(Kind::$kind => <$module::$ty as Resource>::description().id_prefix),* }
            }

            /// Its plural, lower-case name (`destinations`).
            pub fn name(self) -> &'static str {
                match self { $(Kind::$kind => <$module::$ty as Resource>::description().name),* }
            }

            /// One page of its list.
            pub fn list_request(self, q: &ListQuery, filter: &NotificationFilter) -> ApiRequest {
                match self { $(Kind::$kind => <$module::$ty as Resource>::list(q, filter)),* }
            }

            /// One of its items by id.
            pub fn get_request(self, id: &str) -> ApiRequest {
                match self { $(Kind::$kind => <$module::$ty as Resource>::get(id)),* }
            }
        }

        $(
            impl Described for <$module::$ty as Resource>::Item {
                fn description() -> &'static Description<Self> {
                    <$module::$ty as Resource>::description()
                }
            }
        )*

        /// The typed form of one item of any registered resource (shared: copies cost a pointer).
        #[derive(Clone, PartialEq)]
        pub enum AnyItem {
            $(
                #[doc = concat!("One of the ", stringify!($module), ".")]
                $variant(Arc<<$module::$ty as Resource>::Item>),
            )*
        }

        impl AnyItem {
            /// Decodes an item of `kind` from its JSON.
            ///
            /// # Errors
            /// When the JSON is not the resource's object.
            pub fn decode(kind: Kind, raw: &Value) -> Result<AnyItem, serde_json::Error> {
                Ok(match kind {
                    $(Kind::$kind => AnyItem::$variant(Arc::new(
                        <<$module::$ty as Resource>::Item as serde::Deserialize>::deserialize(raw)?,
                    ))),*
                })
            }

            /// The typed item when it is one of `R`'s.
            pub fn typed<R: Resource>(&self) -> Option<&R::Item> {
                let any: &dyn Any = match self { $(AnyItem::$variant(x) => x.as_ref()),* };
                any.downcast_ref::<R::Item>()
            }

            /// Its kind.
            pub fn kind(&self) -> Kind {
                match self { $(AnyItem::$variant(_) => Kind::$kind),* }
            }

            /// Its id.
            pub fn id(&self) -> &str {
                match self { $(AnyItem::$variant(x) => <$module::$ty as Resource>::id(x)),* }
            }

            /// What it is called, unsanitised (empty when nothing names it).
            pub fn name(&self) -> String {
                match self { $(AnyItem::$variant(x) => <$module::$ty as Resource>::name(x)),* }
            }

            /// Its detail's heading, unsanitised.
            pub fn heading(&self) -> String {
                match self { $(AnyItem::$variant(x) => <$module::$ty as Resource>::heading(x)),* }
            }

            /// The address of its `Arc` and a `Weak` that keeps that address its own (a cache
            /// keyed by identity holds the `Weak`, so the address is not reused while it is kept).
            pub fn identity(&self) -> (usize, Weak<dyn Any>) {
                fn of<T: Any>(a: &Arc<T>) -> (usize, Weak<dyn Any>) {
                    let weak: Weak<T> = Arc::downgrade(a);
                    (Arc::as_ptr(a).cast::<()>() as usize, weak as Weak<dyn Any>)
                }
                match self { $(AnyItem::$variant(x) => of(x)),* }
            }
        }

        /// Runs `$body` with `$R` the [`Resource`] type of the kind `$k`: a face's generic
        /// code over one resource, dispatched without a match of its own.
        macro_rules! with_kind {
            ($d k:expr, $d R:ident => $d body:expr) => {
                match $d k {
                    $( $crate::resource::Kind::$kind => {
                        type $d R = $crate::resource::$module::$ty;
                        $d body
                    } )*
                }
            };
        }
        pub(crate) use with_kind;

        /// Runs `$body` with `$R` the [`Resource`] type of the item `$i` and `$x` its typed item.
        macro_rules! with_item {
            ($d i:expr, $d R:ident, $d x:ident => $d body:expr) => {
                match $d i {
                    $( $crate::resource::AnyItem::$variant($d x) => {
                        type $d R = $crate::resource::$module::$ty;
                        $d body
                    } )*
                }
            };
        }
        pub(crate) use with_item;
    };
}

use super::{
    access_policies, auth_imports, callback_destinations, callback_events, callback_notifications,
    callbacks, deliveries, delivery_attempts, deployment_callback_events, deployment_callbacks,
    destinations, event_destinations, events, imports, integration_callbacks, listeners,
    notifications, org_teams, provider_deployments, teams,
};

resources! {$
    Teams / Team: teams::Teams,
    Imports / Import: imports::Imports,
    Callbacks / Callback: callbacks::Callbacks,
    Destinations / Destination: destinations::Destinations,
    Notifications / Notification: notifications::Notifications,
    OrgTeams("Teams") / OrgTeam: org_teams::OrgTeams,
    AccessPolicies("Policies") / AccessPolicy: access_policies::AccessPolicies,
    AuthImports("Imports") / AuthImport: auth_imports::AuthImports,
    IntegrationCallbacks("Callbacks") / IntegrationCallback: integration_callbacks::IntegrationCallbacks,
    CallbackEvents("Callback events") / CallbackEvent: callback_events::CallbackEvents,
    EventDestinations("Destinations") / EventDestination: event_destinations::EventDestinations,
    Listeners / Listener: listeners::Listeners,
    Events / Event: events::Events,
    Deliveries / Delivery: deliveries::Deliveries,
    DeliveryAttempts("Attempts") / DeliveryAttempt: delivery_attempts::DeliveryAttempts,
    DeploymentCallbacks("Callbacks") / DeploymentCallback: deployment_callbacks::DeploymentCallbacks,
    CallbackDestinations("Destinations") / CallbackDestination: callback_destinations::CallbackDestinations,
    CallbackNotifications("Notifications") / CallbackNotification: callback_notifications::CallbackNotifications,
    ProviderDeployments("Deployments") / ProviderDeployment: provider_deployments::ProviderDeployments,
    DeploymentCallbackEvents("Callback events") / DeploymentCallbackEvent: deployment_callback_events::DeploymentCallbackEvents,
}

impl Default for Kind {
    fn default() -> Self {
        Kind::ALL[0]
    }
}

impl Kind {
    /// The notifications list the console's deliveries room works on: the one resource whose
    /// [`Resource::NOTIFICATIONS_LIST`] says so (the build fails when none does).
    pub const NOTIFICATIONS_LIST: Kind = {
        let mut i = 0;
        loop {
            assert!(i < Kind::COUNT, "no resource is the notifications list");
            if Kind::ALL[i].is_notifications_list() {
                break Kind::ALL[i];
            }
            i += 1;
        }
    };

    /// The notifications list read through the callbacks: the one resource whose items are a
    /// callback's notifications and [`Resource::THROUGH_CALLBACKS`] (the build fails when none is).
    pub const MERGED_NOTIFICATIONS: Kind = {
        let mut i = 0;
        loop {
            assert!(
                i < Kind::COUNT,
                "no notifications are read through the callbacks"
            );
            if Kind::ALL[i].notifies() && Kind::ALL[i].through_callbacks() {
                break Kind::ALL[i];
            }
            i += 1;
        }
    };

    /// Whether its items are a callback's notifications to destinations (they have senders and
    /// receivers): the lists recover and forward work from, where marks are taken.
    pub const fn notifies(self) -> bool {
        self.delivers() && self.senders().is_some()
    }

    /// The notifications its items send or receive (a callback's or a destination's), or its own
    /// when its items are notifications; none elsewhere.
    pub const fn notifications_of(self) -> Option<Kind> {
        if self.notifies() {
            return Some(self);
        }
        let mut i = 0;
        while i < Kind::COUNT {
            let k = Kind::ALL[i];
            if k.notifies() {
                let sent = matches!(k.senders(), Some(s) if s as usize == self as usize);
                let received = matches!(k.receivers(), Some(r) if r as usize == self as usize);
                if sent || received {
                    return Some(k);
                }
            }
            i += 1;
        }
        None
    }

    /// The deliveries whose attempts its items are (see [`Resource::ATTEMPTS`]).
    pub const fn attempts_of(self) -> Option<Kind> {
        let mut i = 0;
        while i < Kind::COUNT {
            if let Some(k) = Kind::ALL[i].attempts()
                && k as usize == self as usize
            {
                return Some(Kind::ALL[i]);
            }
            i += 1;
        }
        None
    }

    /// Whether its items are deliveries whose attempts a resource of their own lists, or those
    /// attempts: replay works from either.
    pub const fn lists_attempts(self) -> bool {
        self.attempts().is_some() || self.attempts_of().is_some()
    }

    /// Whether its items are a webhook's deliveries to receivers (see [`Resource::RECEIVERS`]).
    pub const fn delivers(self) -> bool {
        self.receivers().is_some()
    }

    /// Whether its items are where some resource's deliveries go (destinations).
    pub const fn receives(self) -> bool {
        let mut i = 0;
        while i < Kind::COUNT {
            if let Some(k) = Kind::ALL[i].receivers()
                && k as usize == self as usize
            {
                return true;
            }
            i += 1;
        }
        false
    }

    /// Whether a server of generation `g` serves this resource.
    pub fn served_by(self, g: Generation) -> bool {
        self.generations().contains(&g)
    }

    /// The resources a server of generation `g` serves, in tab order.
    pub fn served(g: Generation) -> Vec<Kind> {
        Kind::ALL.into_iter().filter(|k| k.served_by(g)).collect()
    }

    /// The generation its tab is numbered in: the first that serves it.
    pub fn home(self) -> Generation {
        self.generations()
            .first()
            .copied()
            .unwrap_or(Generation::Pulsar)
    }

    /// Its tab's number (from 1) among the tabs of its home generation, which the digit keys
    /// follow: `1`–`9` in tab order whichever generation is shown.
    pub fn number(self) -> usize {
        Kind::served(self.home())
            .iter()
            .position(|k| *k == self)
            .map_or(0, |i| i + 1)
    }

    /// The resource an id belongs to, by its prefix.
    pub fn of_id(id: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| {
            let p = k.id_prefix();
            id.len() > p.len() && id.starts_with(p)
        })
    }
}
