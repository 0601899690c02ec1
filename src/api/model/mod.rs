//! Serde types for every resource of the contract. Tolerant: unknown keys are ignored and unknown
//! enum values are kept as text (`Other(String)`).
mod access_policy;
mod auth_import;
mod callback;
mod callback_destination;
mod destination;
mod event_delivery;
mod event_destination;
mod import;
mod integration_callback;
mod notification;
mod organization;
mod requests;
mod secret_field;
mod team;
pub mod time;

pub use access_policy::{
    AccessPolicy, AssignPolicy, InstancePreview, PolicyPreview, PolicyTeam, PolicyTeamProject,
    PolicyType,
};
pub use auth_import::{
    AuthConfig, AuthImport, AuthImportFilter, AuthImportSchema, CreateAuthImport, CredentialValue,
};
pub use callback_destination::{
    CallbackDestination, CallbackNotification, CallbackNotificationStatus, CallbackTrigger,
    CreateCallbackDestination, CreateDeploymentCallback, DeploymentCallback,
    DeploymentCallbackEvent, DeploymentPreview, EventDeliveryStatus, NotificationDestination,
    NotificationEvent, NotificationRetry, NotificationWebhook, ResourceStatus, SentRequest,
    TriggerInput, TriggerPreview, UpdateCallbackDestination, UpdateDeploymentCallback,
};
pub use event_delivery::{
    AttemptRequest, AttemptResponse, DeliveryAttempt, DeliveryAttemptStatus, DeliveryError,
    DeliveryStatus, Event, EventDelivery, EventSource, EventType, HeaderPair,
};
pub use event_destination::{
    CreateEventDestination, CreateListener, EventDestination, EventWebhook, Listener, ListenerType,
    MAX_RETRY_ATTEMPTS, RetryPolicy, RetryStrategy, UpdateEventDestination, UpdateListener,
    WebhookInput, parse_max_attempts, parse_retry_delay,
};
pub use integration_callback::{
    CallbackEvent, CallbackEventDetails, CallbackEventSource, CallbackEventStatus,
    CallbackInstance, CallbackSync, CreateIntegrationCallback, EncodedBody, IntegrationCallback,
    ProviderPreview, ReceivedRequest, ReceivedWebhook, SyncStatus, UpdateIntegrationCallback,
};

pub use callback::{Callback, CallbackSchedule, CallbackType};
pub use destination::{
    CallbackSelection, Destination, DestinationType, SelectionType, WebhookDestination,
};
pub use import::{ImportStatus, ProviderOauthImport};
pub use notification::{
    Attempt, AttemptStatus, Notification, NotificationStatus, NotificationType, WebhookRequest,
};
pub use organization::{
    Actor, ActorTeam, ActorType, Member, MemberRole, Project, ProjectStatus, TeamRole,
};
pub use requests::{
    CallbacksInput, CreateDestination, CreateImport, CreateTeam, SetTeamProject, TeamMemberInput,
    UpdateDestination, UpdateImport, UpdateTeam,
};
pub use team::{Team, TeamProject, TeamRoleAssignment};

/// Declares a string enum that keeps unknown values as `Other(text)` instead of failing.
macro_rules! open_enum {
    ($(#[$meta:meta])* $name:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $name {
            $(
                #[doc = concat!("`", $text, "`")]
                $variant,
            )+
            /// A value this version does not know, kept as sent.
            Other(String),
        }

        impl $name {
            /// Every value this version knows, in declaration order.
            pub const KNOWN: &'static [$name] = &[$($name::$variant),+];

            /// The wire text of the value.
            pub fn as_str(&self) -> &str {
                match self {
                    $($name::$variant => $text,)+
                    $name::Other(s) => s.as_str(),
                }
            }
        }

        // A string schema listing the known values, for the service's OpenAPI document.
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                utoipa::openapi::schema::ObjectBuilder::new()
                    .schema_type(utoipa::openapi::schema::Type::String)
                    .enum_values(Some([$($text),+]))
                    .description(Some(
                        "Known values; clients should keep unknown ones as text.",
                    ))
                    .into()
            }
        }

        impl utoipa::ToSchema for $name {}

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                match s {
                    $($text => $name::$variant,)+
                    other => $name::Other(other.to_string()),
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                Ok($name::from(s.as_str()))
            }
        }
    };
}
pub(crate) use open_enum;
