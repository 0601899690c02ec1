//! Request descriptions of the newer generations (`generations.md` §4–§7): teams' access
//! policies, provider auth imports, the webhooks of `callback-destinations` and of
//! `event-destinations`. Pure data, as [`ApiRequest`]'s other builders; a multi-value filter is
//! `x=a` for one value and `x[]=a&x[]=b` for several.
use reqwest::Method;
use serde::Serialize;
use serde_json::Value;

use super::model::{
    AssignPolicy, AuthImportFilter, CreateAuthImport, CreateCallbackDestination,
    CreateDeploymentCallback, CreateEventDestination, CreateIntegrationCallback, CreateListener,
    UpdateCallbackDestination, UpdateDeploymentCallback, UpdateEventDestination,
    UpdateIntegrationCallback, UpdateListener,
};
use super::page::ListQuery;
use super::request::ApiRequest;

/// Filters of `GET /callbacks` in `callback-destinations`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeploymentCallbackFilter {
    /// `id`.
    pub ids: Vec<String>,
    /// `provider_deployment_id`.
    pub provider_deployment_ids: Vec<String>,
    /// `status`: active, archived, deleted.
    pub statuses: Vec<String>,
}

/// Filters of `GET /callbacks/{id}/notifications`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallbackNotificationFilter {
    /// `destination_id` (the `cbd_` id).
    pub destination_ids: Vec<String>,
    /// `status`: pending, delivered, retrying, failed.
    pub statuses: Vec<String>,
}

/// Filters of `GET /callbacks` in `event-destinations`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IntegrationCallbackFilter {
    /// `integration_id`.
    pub integration_ids: Vec<String>,
    /// `integration_provider_id`.
    pub integration_provider_ids: Vec<String>,
    /// `provider_id`.
    pub provider_ids: Vec<String>,
    /// `status`.
    pub statuses: Vec<String>,
}

/// Filters of `GET /callback-events`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallbackEventFilter {
    /// `callback_id`.
    pub callback_ids: Vec<String>,
    /// `status`: pending, processed, failed.
    pub statuses: Vec<String>,
    /// `source`: webhook, polling.
    pub sources: Vec<String>,
    /// `occurred_at[gt]` (ISO 8601).
    pub occurred_after: Option<String>,
    /// `occurred_at[lt]` (ISO 8601).
    pub occurred_before: Option<String>,
}

/// Filters of `GET /organization/event-destinations`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventDestinationFilter {
    /// `status`: active, archived.
    pub statuses: Vec<String>,
    /// `callback_id`.
    pub callback_ids: Vec<String>,
}

/// Filters of `GET /organization/event-destination-listeners`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListenerFilter {
    /// `event_destination_id`.
    pub event_destination_ids: Vec<String>,
    /// `instance_id`.
    pub instance_ids: Vec<String>,
}

/// Filters of `GET /organization/events`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventFilter {
    /// `instance_id`.
    pub instance_ids: Vec<String>,
    /// `event_type`.
    pub event_types: Vec<String>,
    /// `callback_id`.
    pub callback_ids: Vec<String>,
    /// `source`: resource, callback, chat, ping.
    pub sources: Vec<String>,
}

/// Filters of `GET /organization/event-deliveries` (no `callback_id`: go through events).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeliveryFilter {
    /// `status`: pending, retrying, delivered, failed, cancelled.
    pub statuses: Vec<String>,
    /// `event_id`.
    pub event_ids: Vec<String>,
    /// `event_type`.
    pub event_types: Vec<String>,
    /// `event_destination_id`.
    pub event_destination_ids: Vec<String>,
    /// `instance_id`.
    pub instance_ids: Vec<String>,
}

/// Filters of `GET /organization/event-delivery-attempts`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AttemptFilter {
    /// `status`: succeeded, failed.
    pub statuses: Vec<String>,
    /// `event_delivery_id`.
    pub event_delivery_ids: Vec<String>,
    /// `event_id`.
    pub event_ids: Vec<String>,
    /// `event_destination_id`.
    pub event_destination_ids: Vec<String>,
}

fn req(method: Method, parts: &[&str]) -> ApiRequest {
    ApiRequest {
        method,
        segments: parts.iter().map(|s| s.to_string()).collect(),
        query: Vec::new(),
        body: None,
    }
}

fn list(parts: &[&str], q: &ListQuery) -> ApiRequest {
    let mut r = req(Method::GET, parts);
    r.query = q.pairs();
    r
}

fn with<T: Serialize>(mut r: ApiRequest, b: &T) -> ApiRequest {
    // Serializing our own plain structs cannot fail; a null body is the safe fallback.
    r.body = Some(serde_json::to_value(b).unwrap_or(Value::Null));
    r
}

/// Adds a multi-value filter: `key=v` for one value, `key[]=v` each for several.
fn filter(r: &mut ApiRequest, key: &str, values: &[String]) {
    let values: Vec<&String> = values.iter().filter(|v| !v.is_empty()).collect();
    match values.as_slice() {
        [] => {}
        [one] => r.query.push((key.to_string(), (*one).clone())),
        many => {
            for v in many {
                r.query.push((format!("{key}[]"), (*v).clone()));
            }
        }
    }
}

impl ApiRequest {
    // ---- teams with access policies (dashboard version) ----

    /// `POST /organization/teams/{id}/policies` (idempotent; custom policies only).
    pub fn assign_team_policy(team_id: &str, access_policy_id: &str) -> Self {
        let b = AssignPolicy {
            access_policy_id: access_policy_id.to_string(),
        };
        with(
            req(
                Method::POST,
                &["organization", "teams", team_id, "policies"],
            ),
            &b,
        )
    }
    /// `DELETE /organization/teams/{id}/policies/{access_policy_id}` (not assigned: a no-op).
    pub fn remove_team_policy(team_id: &str, access_policy_id: &str) -> Self {
        req(
            Method::DELETE,
            &[
                "organization",
                "teams",
                team_id,
                "policies",
                access_policy_id,
            ],
        )
    }
    /// `GET /organization/access-policies`.
    pub fn list_access_policies(q: &ListQuery) -> Self {
        list(&["organization", "access-policies"], q)
    }
    /// `GET /organization/access-policies/{id}`.
    pub fn get_access_policy(id: &str) -> Self {
        req(Method::GET, &["organization", "access-policies", id])
    }

    // ---- provider auth imports (both newer generations) ----

    /// `GET /provider-auth-config-imports`.
    pub fn list_auth_imports(q: &ListQuery, f: &AuthImportFilter) -> Self {
        let mut r = list(&["provider-auth-config-imports"], q);
        filter(&mut r, "id", &f.ids);
        filter(&mut r, "provider_id", &f.provider_ids);
        filter(&mut r, "provider_auth_credentials_id", &f.credentials_ids);
        filter(&mut r, "provider_auth_config_id", &f.auth_config_ids);
        filter(&mut r, "provider_deployment_id", &f.deployment_ids);
        r
    }
    /// `GET /provider-auth-config-imports/{id}`.
    pub fn get_auth_import(id: &str) -> Self {
        req(Method::GET, &["provider-auth-config-imports", id])
    }
    /// `POST /provider-auth-config-imports` (the value is a secret: the body is never logged).
    pub fn create_auth_import(b: &CreateAuthImport) -> Self {
        with(req(Method::POST, &["provider-auth-config-imports"]), b)
    }
    /// `GET /provider-auth-config-imports/schema` for a provider (a 404 means unavailable).
    pub fn auth_import_schema(provider_id: Option<&str>, auth_method_id: Option<&str>) -> Self {
        let mut r = req(Method::GET, &["provider-auth-config-imports", "schema"]);
        if let Some(p) = provider_id {
            r.query.push(("provider_id".into(), p.into()));
        }
        if let Some(m) = auth_method_id {
            r.query.push(("provider_auth_method_id".into(), m.into()));
        }
        r
    }

    // ---- callbacks (both newer generations share the paths) ----

    /// `PATCH /callbacks/{id}` of `callback-destinations` (`destination_ids` replaces the set).
    pub fn update_deployment_callback(id: &str, b: &UpdateDeploymentCallback) -> Self {
        with(req(Method::PATCH, &["callbacks", id]), b)
    }
    /// `DELETE /callbacks/{id}` (archives; a non-active one → 400 `callback_not_active`).
    pub fn delete_callback(id: &str) -> Self {
        req(Method::DELETE, &["callbacks", id])
    }

    // ---- webhooks of `callback-destinations` ----

    /// `GET /callbacks` with the `callback-destinations` filters.
    pub fn list_deployment_callbacks(q: &ListQuery, f: &DeploymentCallbackFilter) -> Self {
        let mut r = list(&["callbacks"], q);
        filter(&mut r, "id", &f.ids);
        filter(&mut r, "provider_deployment_id", &f.provider_deployment_ids);
        filter(&mut r, "status", &f.statuses);
        r
    }
    /// `POST /callbacks` on a provider deployment.
    pub fn create_deployment_callback(b: &CreateDeploymentCallback) -> Self {
        with(req(Method::POST, &["callbacks"]), b)
    }
    /// `GET /provider-deployments` (what a callback is created on).
    pub fn list_provider_deployments(q: &ListQuery) -> Self {
        list(&["provider-deployments"], q)
    }
    /// `GET /provider-deployments/{id}`.
    pub fn get_provider_deployment(id: &str) -> Self {
        req(Method::GET, &["provider-deployments", id])
    }
    /// `GET /callbacks/{id}/events`, optionally of some types.
    pub fn list_deployment_callback_events(
        q: &ListQuery,
        callback_id: &str,
        types: &[String],
    ) -> Self {
        let mut r = list(&["callbacks", callback_id, "events"], q);
        filter(&mut r, "type", types);
        r
    }
    /// `GET /callbacks/{id}/events/{event_id}`.
    pub fn get_deployment_callback_event(callback_id: &str, event_id: &str) -> Self {
        req(Method::GET, &["callbacks", callback_id, "events", event_id])
    }
    /// `GET /callback-destinations`, optionally those of some callbacks.
    pub fn list_callback_destinations(q: &ListQuery, callback_ids: &[String]) -> Self {
        let mut r = list(&["callback-destinations"], q);
        filter(&mut r, "callback_id", callback_ids);
        r
    }
    /// `GET /callback-destinations/{id}`.
    pub fn get_callback_destination(id: &str) -> Self {
        req(Method::GET, &["callback-destinations", id])
    }
    /// `POST /callback-destinations`.
    pub fn create_callback_destination(b: &CreateCallbackDestination) -> Self {
        with(req(Method::POST, &["callback-destinations"]), b)
    }
    /// `PATCH /callback-destinations/{id}`.
    pub fn update_callback_destination(id: &str, b: &UpdateCallbackDestination) -> Self {
        with(req(Method::PATCH, &["callback-destinations", id]), b)
    }
    /// `DELETE /callback-destinations/{id}` (archives).
    pub fn delete_callback_destination(id: &str) -> Self {
        req(Method::DELETE, &["callback-destinations", id])
    }
    /// `GET /callbacks/{id}/notifications` (there is no global list).
    pub fn list_callback_notifications(
        q: &ListQuery,
        callback_id: &str,
        f: &CallbackNotificationFilter,
    ) -> Self {
        let mut r = list(&["callbacks", callback_id, "notifications"], q);
        filter(&mut r, "destination_id", &f.destination_ids);
        filter(&mut r, "status", &f.statuses);
        r
    }
    /// `GET /callbacks/{id}/notifications/{notification_id}` (with the sent request).
    pub fn get_callback_notification(callback_id: &str, id: &str) -> Self {
        req(
            Method::GET,
            &["callbacks", callback_id, "notifications", id],
        )
    }

    // ---- webhooks of `event-destinations` ----

    /// `GET /callbacks` with the `event-destinations` filters.
    pub fn list_integration_callbacks(q: &ListQuery, f: &IntegrationCallbackFilter) -> Self {
        let mut r = list(&["callbacks"], q);
        filter(&mut r, "integration_id", &f.integration_ids);
        filter(
            &mut r,
            "integration_provider_id",
            &f.integration_provider_ids,
        );
        filter(&mut r, "provider_id", &f.provider_ids);
        filter(&mut r, "status", &f.statuses);
        r
    }
    /// `POST /callbacks` for an integration provider.
    pub fn create_integration_callback(b: &CreateIntegrationCallback) -> Self {
        with(req(Method::POST, &["callbacks"]), b)
    }
    /// `PATCH /callbacks/{id}`.
    pub fn update_integration_callback(id: &str, b: &UpdateIntegrationCallback) -> Self {
        with(req(Method::PATCH, &["callbacks", id]), b)
    }
    /// `GET /callback-events`.
    pub fn list_callback_events(q: &ListQuery, f: &CallbackEventFilter) -> Self {
        let mut r = list(&["callback-events"], q);
        filter(&mut r, "callback_id", &f.callback_ids);
        filter(&mut r, "status", &f.statuses);
        filter(&mut r, "source", &f.sources);
        if let Some(t) = &f.occurred_after {
            r.query.push(("occurred_at[gt]".into(), t.clone()));
        }
        if let Some(t) = &f.occurred_before {
            r.query.push(("occurred_at[lt]".into(), t.clone()));
        }
        r
    }
    /// `GET /callback-events/{id}` (with its details).
    pub fn get_callback_event(id: &str) -> Self {
        req(Method::GET, &["callback-events", id])
    }
    /// `GET /callback-instances`, optionally of some callbacks.
    pub fn list_callback_instances(q: &ListQuery, callback_ids: &[String]) -> Self {
        let mut r = list(&["callback-instances"], q);
        filter(&mut r, "callback_id", callback_ids);
        r
    }
    /// `GET /callback-instances/{id}`.
    pub fn get_callback_instance(id: &str) -> Self {
        req(Method::GET, &["callback-instances", id])
    }
    /// `GET /organization/event-destinations`.
    pub fn list_event_destinations(q: &ListQuery, f: &EventDestinationFilter) -> Self {
        let mut r = list(&["organization", "event-destinations"], q);
        filter(&mut r, "status", &f.statuses);
        filter(&mut r, "callback_id", &f.callback_ids);
        r
    }
    /// `GET /organization/event-destinations/{id}`.
    pub fn get_event_destination(id: &str) -> Self {
        req(Method::GET, &["organization", "event-destinations", id])
    }
    /// `POST /organization/event-destinations` (the answer holds the secret, once).
    pub fn create_event_destination(b: &CreateEventDestination) -> Self {
        with(
            req(Method::POST, &["organization", "event-destinations"]),
            b,
        )
    }
    /// `PATCH /organization/event-destinations/{id}`.
    pub fn update_event_destination(id: &str, b: &UpdateEventDestination) -> Self {
        with(
            req(Method::PATCH, &["organization", "event-destinations", id]),
            b,
        )
    }
    /// `POST /organization/event-destinations/{id}/archive` (cancels pending deliveries).
    pub fn archive_event_destination(id: &str) -> Self {
        req(
            Method::POST,
            &["organization", "event-destinations", id, "archive"],
        )
    }
    /// `POST /organization/event-destinations/{id}/rotate-webhook-secret` (the old one stops).
    pub fn rotate_event_destination_secret(id: &str) -> Self {
        req(
            Method::POST,
            &[
                "organization",
                "event-destinations",
                id,
                "rotate-webhook-secret",
            ],
        )
    }
    /// `POST /organization/event-destinations/{id}/ping` (returns the delivery).
    pub fn ping_event_destination(id: &str) -> Self {
        req(
            Method::POST,
            &["organization", "event-destinations", id, "ping"],
        )
    }
    /// `GET /organization/event-destination-listeners`.
    pub fn list_listeners(q: &ListQuery, f: &ListenerFilter) -> Self {
        let mut r = list(&["organization", "event-destination-listeners"], q);
        filter(&mut r, "event_destination_id", &f.event_destination_ids);
        filter(&mut r, "instance_id", &f.instance_ids);
        r
    }
    /// `GET /organization/event-destination-listeners/{id}`.
    pub fn get_listener(id: &str) -> Self {
        req(
            Method::GET,
            &["organization", "event-destination-listeners", id],
        )
    }
    /// `POST /organization/event-destination-listeners`.
    pub fn create_listener(b: &CreateListener) -> Self {
        with(
            req(
                Method::POST,
                &["organization", "event-destination-listeners"],
            ),
            b,
        )
    }
    /// `PATCH /organization/event-destination-listeners/{id}`.
    pub fn update_listener(id: &str, b: &UpdateListener) -> Self {
        with(
            req(
                Method::PATCH,
                &["organization", "event-destination-listeners", id],
            ),
            b,
        )
    }
    /// `DELETE /organization/event-destination-listeners/{id}` (returns the listener).
    pub fn delete_listener(id: &str) -> Self {
        req(
            Method::DELETE,
            &["organization", "event-destination-listeners", id],
        )
    }
    /// `GET /organization/events`.
    pub fn list_events(q: &ListQuery, f: &EventFilter) -> Self {
        let mut r = list(&["organization", "events"], q);
        filter(&mut r, "instance_id", &f.instance_ids);
        filter(&mut r, "event_type", &f.event_types);
        filter(&mut r, "callback_id", &f.callback_ids);
        filter(&mut r, "source", &f.sources);
        r
    }
    /// `GET /organization/events/{id}`.
    pub fn get_event(id: &str) -> Self {
        req(Method::GET, &["organization", "events", id])
    }
    /// `GET /organization/event-deliveries` (the status filter is the server's).
    pub fn list_deliveries(q: &ListQuery, f: &DeliveryFilter) -> Self {
        let mut r = list(&["organization", "event-deliveries"], q);
        filter(&mut r, "status", &f.statuses);
        filter(&mut r, "event_id", &f.event_ids);
        filter(&mut r, "event_type", &f.event_types);
        filter(&mut r, "event_destination_id", &f.event_destination_ids);
        filter(&mut r, "instance_id", &f.instance_ids);
        r
    }
    /// `GET /organization/event-deliveries/{id}` (with its attempts).
    pub fn get_delivery(id: &str) -> Self {
        req(Method::GET, &["organization", "event-deliveries", id])
    }
    /// `POST /organization/event-deliveries/{id}/retry` (a finished delivery only).
    pub fn retry_delivery(id: &str) -> Self {
        req(
            Method::POST,
            &["organization", "event-deliveries", id, "retry"],
        )
    }
    /// `GET /organization/event-delivery-attempts`.
    pub fn list_delivery_attempts(q: &ListQuery, f: &AttemptFilter) -> Self {
        let mut r = list(&["organization", "event-delivery-attempts"], q);
        filter(&mut r, "status", &f.statuses);
        filter(&mut r, "event_delivery_id", &f.event_delivery_ids);
        filter(&mut r, "event_id", &f.event_ids);
        filter(&mut r, "event_destination_id", &f.event_destination_ids);
        r
    }
    /// `GET /organization/event-delivery-attempts/{id}` (request and response).
    pub fn get_delivery_attempt(id: &str) -> Self {
        req(
            Method::GET,
            &["organization", "event-delivery-attempts", id],
        )
    }
    /// `GET /organization/webhook-events`: the event types (one page).
    pub fn list_event_types() -> Self {
        req(Method::GET, &["organization", "webhook-events"])
    }
}
